package webhooks

import (
	"context"
	"fmt"
	"log/slog"
	"regexp"
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
// poll. Three workers: a failure returned just before the first success and
// reported just after it is not a second outage (poll.Attempt).
func TestRunLogsAnOutageOnce(t *testing.T) {
	st := &busyStore{fails: 20}
	var logs testkit.SyncBuffer
	w := &Worker{Store: st, Workers: 3, Poll: time.Millisecond, Log: slog.New(slog.NewTextHandler(&logs, nil))}
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
	// Up to two failures, of the other workers, may be told after the
	// recovery, and are then not counted in it.
	if n := strings.Count(out, `msg="webhook queue recovered"`); n != 1 || !regexp.MustCompile(`failures=(18|19|20)\b`).MatchString(out) {
		t.Errorf("%d recoveries logged, want one after 18-20 failures:\n%s", n, out)
	}
	if strings.Contains(out, "level=ERROR") {
		t.Errorf("an ERROR line for a busy store:\n%s", out)
	}
}
