package alerts_test

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/alerts"
	"github.com/cardcat/cardcat/internal/store/sqlite"
)

// historyStore is a SQLite store with one event fired at created by an
// alert that sends nowhere (so finished at once); it returns the event's
// account.
func historyStore(t *testing.T, created time.Time) (*sqlite.DB, int64) {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "cardcat.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	acc := &account.Account{Email: "a@example.com", Plan: account.Pro}
	if err := st.CreateAccount(ctx, acc); err != nil {
		t.Fatal(err)
	}
	a := &alerts.Alert{AccountID: acc.ID, Game: "dbs", CardID: "dbs_0000000000000001", Source: alerts.TCG, Finish: "Normal",
		Rule: alerts.Rule{Kind: alerts.Above, Cents: 1}}
	if err := st.CreateAlert(ctx, a, 10); err != nil {
		t.Fatal(err)
	}
	e := alerts.NewTestEvent(acc.ID, 0, a, 1, created)
	e.ID, e.Version, e.Test = alerts.EventID(a.ID, 1), 1, false
	if _, err := st.RecordEvaluations(ctx, 1, []alerts.Evaluation{{AlertID: a.ID, Event: e}}, 0); err != nil {
		t.Fatal(err)
	}
	return st, acc.ID
}

// syncBuffer is a log destination the test reads while Run writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestRetentionRun: Run prunes First after its start, what finished Days
// days before its clock, under the store's lock, tells OnPruned and logs
// what it deleted; it stops with its context.
func TestRetentionRun(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	st, acc := historyStore(t, now.AddDate(0, 0, -31))
	var log syncBuffer
	pruned := make(chan alerts.Pruned, 1)
	r := &alerts.Retention{
		Store: st, Days: 30, Now: func() time.Time { return now },
		Lock: func(ctx context.Context) (func(), bool, error) { return st.TryLock(ctx, alerts.HistoryLockName) },
		Log:  slog.New(slog.NewTextHandler(&log, nil)), First: 10 * time.Millisecond, Every: time.Hour,
		OnPruned: func(p alerts.Pruned) { pruned <- p },
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { r.Run(ctx); close(stopped) }()
	select {
	case p := <-pruned:
		if p != (alerts.Pruned{Events: 1, Batches: 1}) {
			t.Errorf("OnPruned(%+v), want the event in one batch", p)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no prune within 10 s of a First of 10 ms")
	}
	if evs, err := st.Events(ctx, acc, 10); err != nil || len(evs) != 0 {
		t.Errorf("events after the prune: %+v, %v; want none", evs, err)
	}
	cancel()
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return once its context ended")
	}
	line := log.String()
	for _, want := range []string{`msg="alert history pruned"`, "before=2026-10-29T12:00:00Z", "events=1", "deliveries=0", "attempts=0", "emails=0", "batches=1"} {
		if !strings.Contains(line, want) {
			t.Errorf("the log lacks %s:\n%s", want, line)
		}
	}
}

// TestRetentionPruneLocked: a prune while another replica holds the lock
// deletes nothing and says it skipped; once the lock is free it deletes.
// Nothing younger than the cutoff goes.
func TestRetentionPruneLocked(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	st, acc := historyStore(t, now.AddDate(0, 0, -31))
	r := &alerts.Retention{Store: st, Days: 30, Log: slog.New(slog.DiscardHandler),
		Lock: func(ctx context.Context) (func(), bool, error) { return st.TryLock(ctx, alerts.HistoryLockName) }}
	unlock, ok, err := st.TryLock(ctx, alerts.HistoryLockName)
	if err != nil || !ok {
		t.Fatalf("TryLock = %v, %v", ok, err)
	}
	if p, skipped, err := r.Prune(ctx, now.AddDate(0, 0, -30)); err != nil || !skipped || p.Rows() != 0 {
		t.Errorf("Prune while another holds the lock = %+v, %v, %v; want skipped, nothing deleted", p, skipped, err)
	}
	unlock()
	if p, skipped, err := r.Prune(ctx, now.AddDate(0, 0, -32)); err != nil || skipped || p.Rows() != 0 {
		t.Errorf("Prune before the event = %+v, %v, %v; want nothing deleted", p, skipped, err)
	}
	if p, skipped, err := r.Prune(ctx, now.AddDate(0, 0, -30)); err != nil || skipped || p.Events != 1 {
		t.Errorf("Prune once the lock is free = %+v, %v, %v; want the event deleted", p, skipped, err)
	}
	if evs, err := st.Events(ctx, acc, 10); err != nil || len(evs) != 0 {
		t.Errorf("events after the prune: %+v, %v; want none", evs, err)
	}
}

// TestRetentionKeepsForever: with Days 0 Run returns at once, deleting
// nothing.
func TestRetentionKeepsForever(t *testing.T) {
	st, acc := historyStore(t, time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC))
	r := &alerts.Retention{Store: st, Days: 0, First: time.Nanosecond, Log: slog.New(slog.DiscardHandler)}
	done := make(chan struct{})
	go func() { r.Run(context.Background()); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run with Days 0 did not return")
	}
	if evs, err := st.Events(context.Background(), acc, 10); err != nil || len(evs) != 1 {
		t.Errorf("events: %+v, %v; want the one kept", evs, err)
	}
}
