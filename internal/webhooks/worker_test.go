package webhooks

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/testkit"
)

// busyStore's claims fail until fails calls were made (SQLite's write lock
// held by an ingest), then find nothing due.
type busyStore struct {
	Store
	fails int32
	calls atomic.Int32
}

func (s *busyStore) ClaimDelivery(context.Context, time.Time, time.Duration) (Delivery, error) {
	if s.calls.Add(1) <= s.fails {
		return Delivery{}, fmt.Errorf("sqlite: claim webhook delivery: %w", context.DeadlineExceeded)
	}
	return Delivery{}, ErrNoDelivery
}

// TestRunLogsAnOutageOnce: a store that stays busy is one WARN for all the
// failed claims, and one INFO when it answers again, not an ERROR per
// poll. One worker: with several, a failure returned just before the first
// success can be reported just after it, which logs a second outage of a
// millisecond: a benign second pair of lines that poll.Tracker, which
// does not know when each claim started, cannot tell from a new outage.
func TestRunLogsAnOutageOnce(t *testing.T) {
	st := &busyStore{fails: 20}
	var logs testkit.SyncBuffer
	w := &Worker{Store: st, Workers: 1, Poll: time.Millisecond, Log: slog.New(slog.NewTextHandler(&logs, nil))}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { w.Run(ctx); close(done) }()
	for deadline := time.Now().Add(5 * time.Second); st.calls.Load() < st.fails+10; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d claims in 5 s", st.calls.Load())
		}
	}
	cancel()
	<-done
	out := logs.String()
	if n := strings.Count(out, "level=WARN"); n != 1 || !strings.Contains(out, `msg="webhook queue failing; deliveries wait in the queue (logged once per outage)"`) {
		t.Errorf("%d WARN lines, want the one of the outage:\n%s", n, out)
	}
	if n := strings.Count(out, `msg="webhook queue recovered"`); n != 1 || !strings.Contains(out, "failures=20") {
		t.Errorf("%d recoveries logged, want one after 20 failures:\n%s", n, out)
	}
	if strings.Contains(out, "level=ERROR") {
		t.Errorf("an ERROR line for a busy store:\n%s", out)
	}
}
