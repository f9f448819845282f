package poll

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// TestEveryReturnsWhenCanceled: Every returns once ctx ends (in real time,
// so that a loop which never returns fails here rather than hangs a bubble).
func TestEveryReturnsWhenCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	ticked := make(chan struct{}, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		Every(ctx, time.Millisecond, func(context.Context) error {
			select {
			case ticked <- struct{}{}:
			default:
			}
			return nil
		}, func(error) {})
	}()
	<-ticked
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Every still running 10 s after ctx ended")
	}
}

// TestEvery: f runs once per interval, none at the start; its errors reach
// onErr and the ticks go on.
func TestEvery(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		start := time.Now()
		var (
			mu    sync.Mutex
			calls []time.Duration
			errs  []string
		)
		done := make(chan struct{})
		go func() {
			defer close(done)
			Every(ctx, time.Second, func(context.Context) error {
				mu.Lock()
				defer mu.Unlock()
				calls = append(calls, time.Since(start))
				if len(calls) == 2 {
					return fmt.Errorf("call %d failed", len(calls))
				}
				return nil
			}, func(err error) {
				mu.Lock()
				defer mu.Unlock()
				errs = append(errs, err.Error())
			})
		}()

		time.Sleep(3500 * time.Millisecond)
		synctest.Wait()
		cancel()
		<-done

		want := []time.Duration{time.Second, 2 * time.Second, 3 * time.Second}
		if !slices.Equal(calls, want) {
			t.Errorf("f called at %v, want %v", calls, want)
		}
		if want := []string{"call 2 failed"}; !slices.Equal(errs, want) {
			t.Errorf("onErr got %q, want %q", errs, want)
		}
	})
}

// TestEveryCanceledDuringF: the error of an f cut short by the end of ctx is
// the cancellation's, not a failure to report, and Every returns.
func TestEveryCanceledDuringF(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		calls := 0
		var errs []error
		Every(ctx, time.Minute, func(ctx context.Context) error {
			calls++
			cancel()
			return ctx.Err()
		}, func(err error) { errs = append(errs, err) })
		if calls != 1 || len(errs) != 0 {
			t.Errorf("%d calls, onErr got %v; want 1 call and no error", calls, errs)
		}
	})
}
