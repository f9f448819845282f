package poll

import (
	"context"
	"errors"
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
		Every(ctx, time.Millisecond, func(context.Context) {
			select {
			case ticked <- struct{}{}:
			default:
			}
		})
	}()
	<-ticked
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Every still running 10 s after ctx ended")
	}
}

// TestEvery: f runs once per interval, none at the start; a slow f does not
// make up the ticks it missed.
func TestEvery(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		start := time.Now()
		var (
			mu    sync.Mutex
			calls []time.Duration
		)
		done := make(chan struct{})
		go func() {
			defer close(done)
			Every(ctx, time.Second, func(context.Context) {
				mu.Lock()
				calls = append(calls, time.Since(start))
				n := len(calls)
				mu.Unlock()
				if n == 2 {
					time.Sleep(2500 * time.Millisecond) // a call stuck until its deadline
				}
			})
		}()

		time.Sleep(6500 * time.Millisecond)
		synctest.Wait()
		cancel()
		<-done

		// The second call ends at 4.5 s: the tick of 3 s waited in the
		// ticker and runs at once, the one of 4 s was dropped, then the
		// ticker's pace resumes.
		want := []time.Duration{time.Second, 2 * time.Second, 4500 * time.Millisecond, 5 * time.Second, 6 * time.Second}
		if !slices.Equal(calls, want) {
			t.Errorf("f called at %v, want %v", calls, want)
		}
	})
}

// TestBounded: a call that waits past its limit ends there, with an error
// that names the call and the limit and is a deadline; a call that fails on
// its own keeps its error; the end of the parent context stays a
// cancellation.
func TestBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		err := Bounded(t.Context(), 5*time.Second, "catalogue version check", func(ctx context.Context) error {
			<-ctx.Done() // a black-holed database
			return ctx.Err()
		})
		if took := time.Since(start); took != 5*time.Second {
			t.Errorf("a stuck call ended after %v, want 5s", took)
		}
		if err == nil || err.Error() != "catalogue version check: no answer within 5s" || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("stuck call: %v", err)
		}

		refused := errors.New("connection refused")
		if err := Bounded(t.Context(), time.Second, "x", func(context.Context) error { return refused }); err != refused {
			t.Errorf("failing call: %v, want its own error", err)
		}

		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if err := Bounded(ctx, time.Second, "x", func(ctx context.Context) error { return ctx.Err() }); !errors.Is(err, context.Canceled) {
			t.Errorf("canceled parent: %v, want context.Canceled", err)
		}
	})
}
