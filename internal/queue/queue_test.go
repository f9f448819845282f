package queue

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/poll"
	"github.com/cardcat/cardcat/internal/testkit"
)

func TestDelay(t *testing.T) {
	top := func() float64 { return 0.999999 }
	for attempts, want := range map[int]time.Duration{1: time.Second, 2: 2 * time.Second, 3: 4 * time.Second, 4: 8 * time.Second, 5: 10 * time.Second, 40: 10 * time.Second} {
		if got := Delay(attempts, time.Second, 10*time.Second, top); got < want*99/100 || got > want {
			t.Errorf("Delay(%d) = %v, want about %v", attempts, got, want)
		}
	}
	if got := Delay(3, time.Second, 10*time.Second, func() float64 { return 0 }); got != 2*time.Second {
		t.Errorf("Delay(3) with no jitter = %v, want half of 4s", got)
	}
	if got := Delay(1, time.Second, time.Minute, nil); got < time.Second/2 || got > time.Second {
		t.Errorf("Delay(1) with the default jitter = %v, want 0.5-1s", got)
	}
	if Or(0, time.Hour) != time.Hour || Or(-1, time.Hour) != time.Hour || Or(time.Second, time.Hour) != time.Second {
		t.Error("Or: a setting left at zero (or below) is the default, any other is kept")
	}
}

// TestRun: the workers call one back to back while items are due, wait
// poll when none is or one failed, tell the tracker each outcome, and all return
// once the context ends.
func TestRun(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	due, calls, idle := 5, 0, 0
	boom := errors.New("store down")
	var logs testkit.SyncBuffer
	tracker := poll.NewTracker("test queue", "items wait", slog.New(slog.NewTextHandler(&logs, nil)), nil)
	done := make(chan struct{})
	go func() {
		defer close(done)
		Run(ctx, 2, 20*time.Millisecond, func(context.Context) (bool, error) {
			mu.Lock()
			defer mu.Unlock()
			calls++
			switch {
			case calls == 3:
				return false, boom
			case due > 0:
				due--
				return true, nil
			}
			idle++
			if idle == 4 {
				cancel()
			}
			return false, nil
		}, tracker)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after its context ended")
	}
	mu.Lock()
	defer mu.Unlock()
	// The failure is told (the outage's one WARN), and the calls after it
	// as successes (its recovery).
	out := logs.String()
	if due != 0 || strings.Count(out, "level=WARN") != 1 || !strings.Contains(out, "store down") ||
		strings.Count(out, "test queue recovered") != 1 || tracker.LastSuccess().IsZero() {
		t.Errorf("%d items left; want every item taken, the one failure told and the successes after it:\n%s", due, out)
	}
	// 5 items, 1 failure and 4 idle calls: the idle ones each waited poll,
	// so at most a few calls more than those (a worker may have been
	// waiting when the other cancelled).
	if calls < 10 || calls > 12 {
		t.Errorf("%d calls, want 10 (5 items, 1 failure, 4 idle)", calls)
	}
}
