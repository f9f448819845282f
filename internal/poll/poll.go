// Package poll runs the loops that keep an in-memory view of the store
// current (the catalogue, the key directory): a refresh on a ticker, and a
// Tracker of its outcomes that logs each outage once and tells /health and
// the readiness probe when it last succeeded.
package poll

import (
	"context"
	"time"
)

// Every calls f every interval until ctx ends, the first time one interval
// from now. f reports its own outcome (a Tracker); it must bound each of its
// calls to the store or the network, since a call that never returns stops
// the loop. A tick that falls while f runs is dropped, so a slow f is not
// called again at once for every interval it took.
func Every(ctx context.Context, every time.Duration, f func(context.Context)) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			f(ctx)
		}
	}
}

// Bounded runs f with a context that ends after limit (or with ctx), so that
// a store or network call of a background loop cannot wait for as long as
// TCP lets it. An error of f cut short by the limit says which limit it was.
func Bounded(ctx context.Context, limit time.Duration, what string, f func(context.Context) error) error {
	ctx, cancel := context.WithTimeoutCause(ctx, limit, &TimeoutError{What: what, Limit: limit})
	defer cancel()
	err := f(ctx)
	if err != nil && ctx.Err() != nil {
		if cause := context.Cause(ctx); cause != nil && cause != ctx.Err() {
			return cause
		}
	}
	return err
}

// TimeoutError is the error of a call that Bounded cut short.
type TimeoutError struct {
	What  string
	Limit time.Duration
}

func (e *TimeoutError) Error() string {
	return e.What + ": no answer within " + e.Limit.String()
}

// Timeout says the call timed out, as net.Error does.
func (e *TimeoutError) Timeout() bool { return true }

// Is makes errors.Is(err, context.DeadlineExceeded) hold for it.
func (e *TimeoutError) Is(target error) bool { return target == context.DeadlineExceeded }
