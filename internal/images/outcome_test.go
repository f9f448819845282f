package images_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/images"
)

// TestOutcomes: every Get is reported once, as it was answered: fetched
// from the source, stored (fresh, this process's or another's), stale
// (the source failing), not found, failed, canceled.
func TestOutcomes(t *testing.T) {
	e := newEnv(t, nil)
	var mu sync.Mutex
	got := map[images.Outcome]int{}
	svc, err := images.New(e.cfg, e.store, images.WithClock(e.clock.Now), images.WithOutcomes(func(o images.Outcome) {
		mu.Lock()
		defer mu.Unlock()
		got[o]++
	}))
	if err != nil {
		t.Fatal(err)
	}
	check := func(step string, want map[images.Outcome]int) {
		t.Helper()
		mu.Lock()
		defer mu.Unlock()
		for o, n := range want {
			if got[o] != n {
				t.Errorf("%s: outcome %d counted %d times, want %d (all: %v)", step, o, got[o], n, got)
			}
		}
	}
	ctx := context.Background()
	svc.Get(ctx, 1)
	check("first get", map[images.Outcome]int{images.Fetched: 1, images.Stored: 0})
	svc.Get(ctx, 1)
	e.mustGet(t, 2) // stored by another service (a replica)
	svc.Get(ctx, 2)
	check("stored copies", map[images.Outcome]int{images.Fetched: 1, images.Stored: 2})

	e.clock.Add(25 * time.Hour)
	e.cdn.set(serveStatus(http.StatusBadGateway))
	svc.Get(ctx, 1)
	check("source down, a copy stored", map[images.Outcome]int{images.Stale: 1})
	svc.Get(ctx, 3)
	check("source down, nothing stored", map[images.Outcome]int{images.Failed: 1})

	e.cdn.set(serveStatus(http.StatusNotFound))
	svc.Get(ctx, 4)
	svc.Get(ctx, -1)
	check("not found", map[images.Outcome]int{images.NotFound: 2})

	canceled, cancel := context.WithCancel(ctx)
	cancel()
	svc.Get(canceled, 5)
	check("caller gone", map[images.Outcome]int{images.Canceled: 1})
	check("in all", map[images.Outcome]int{images.Fetched: 1, images.Stored: 2, images.Stale: 1, images.Failed: 1, images.NotFound: 2, images.Canceled: 1})
}
