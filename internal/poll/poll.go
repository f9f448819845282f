// Package poll runs the loops that keep an in-memory view of the store
// current (the catalogue, the key directory): a refresh on a ticker.
package poll

import (
	"context"
	"time"
)

// Every calls f every interval until ctx ends, the first time one interval
// from now. An error of f goes to onErr unless ctx ended meanwhile (then it
// is the cancellation's); the next tick tries again.
func Every(ctx context.Context, every time.Duration, f func(context.Context) error, onErr func(error)) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := f(ctx); err != nil && ctx.Err() == nil {
				onErr(err)
			}
		}
	}
}
