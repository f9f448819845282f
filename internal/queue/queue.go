// Package queue holds what the workers of the store's queues share: the
// webhook deliveries (internal/webhooks) and the alert emails
// (internal/alertmail) are each claimed with a lease by one of several
// workers, tried, and retried on a schedule. Run is the workers' loop and
// Delay the schedule; the claims, leases and outcomes are each queue's own.
package queue

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/cardcat/cardcat/internal/poll"
)

// Or returns d, or def when d is not positive (a setting left at zero).
func Or(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// Delay is the wait after the attempts-th failed attempt: first, doubled
// after each attempt up to limit, then jittered into its upper half by
// jitter (a number in [0, 1); rand.Float64 when nil), so that the retries
// of many items failed together do not come back together.
func Delay(attempts int, first, limit time.Duration, jitter func() float64) time.Duration {
	d := first
	for i := 1; i < attempts && d < limit; i++ {
		d *= 2
	}
	d = min(d, limit)
	if jitter == nil {
		jitter = rand.Float64
	}
	return d/2 + time.Duration(jitter()*float64(d/2))
}

// Run runs n workers until ctx ends, each calling one for the next due
// item and waiting every when none was due (did false) or one failed;
// tracker is told each call's outcome, unless ctx had ended, so that a
// store that stays busy or down (SQLite's write lock held by a long ingest)
// is logged once, not by every worker at every poll, and a worker's failure
// reported after another's success is not a new outage.
func Run(ctx context.Context, n int, every time.Duration, one func(context.Context) (did bool, err error), tracker *poll.Tracker) {
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			for ctx.Err() == nil {
				attempt := tracker.Begin()
				did, err := one(ctx)
				if ctx.Err() == nil {
					attempt.Record(ctx, err)
				}
				if !did || err != nil {
					select {
					case <-ctx.Done():
					case <-time.After(every):
					}
				}
			}
		})
	}
	wg.Wait()
}
