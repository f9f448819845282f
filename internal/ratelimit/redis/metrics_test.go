package redis

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/ratelimit/limitertest"
	"github.com/cardcat/cardcat/internal/ratelimit/memory"
)

// TestRoundTripAndLocal: Options.RoundTrip hears every round trip, alone
// or pipelined, and Local says whether the fallback counts.
func TestRoundTripAndLocal(t *testing.T) {
	url := redisURL(t)
	var trips atomic.Int64
	var longest atomic.Int64
	l := mustOpen(t, url, memory.New(memory.Options{}), Options{Prefix: testPrefix(t, url), Timeout: steady,
		RoundTrip: func(d time.Duration) {
			trips.Add(1)
			if int64(d) > longest.Load() {
				longest.Store(int64(d))
			}
		}})
	if l.Local() {
		t.Fatal("Local with Redis up")
	}
	limitertest.MustTake(t, l, "k", lim, now)
	if n := trips.Load(); n != 1 {
		t.Errorf("%d round trips heard after one Take, want 1", n)
	}
	var wg sync.WaitGroup
	for range 64 {
		wg.Go(func() { limitertest.MustTake(t, l, "k", lim, now) })
	}
	wg.Wait()
	if n := trips.Load(); n < 2 || n > 65 || n != l.rounds.Load() {
		t.Errorf("%d round trips heard, the limiter sent %d", n, l.rounds.Load())
	}
	if longest.Load() <= 0 {
		t.Error("no round trip took any time")
	}
}

// TestLocalWhenUnreachable needs no Redis: a closed port is an outage from
// the start, and Local says so.
func TestLocalWhenUnreachable(t *testing.T) {
	l := mustOpen(t, "redis://"+freePort(t)+"/0", memory.New(memory.Options{}), Options{Timeout: 50 * time.Millisecond})
	if !l.Local() {
		t.Error("Local = false with Redis unreachable")
	}
	if _, err := l.Take(context.Background(), "k", lim, now); err != nil {
		t.Fatal(err)
	}
	if !l.Local() {
		t.Error("Local = false after a Take during the outage")
	}
}
