package alerts_test

import (
	"context"
	"log/slog"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
	"weak"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/alerts"
	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/store/sqlite"
	"github.com/cardcat/cardcat/internal/store/storetest"
)

// openOneCard opens a SQLite store holding one Dragon Ball Super card,
// written on day.
func openOneCard(t *testing.T) (st *sqlite.DB, day time.Time) {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "cardcat.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	day = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	storetest.MustReplace(t, st, 0, []catalog.GameCatalog{storetest.Generate("dbs", 1, day)}, "{}", day)
	return st, day
}

// TestRunRetriesASkippedVersion: a version skipped because another replica
// held the lock (and may have died holding it) is evaluated again later.
func TestRunRetriesASkippedVersion(t *testing.T) {
	ctx := context.Background()
	st, day := openOneCard(t)
	snap, err := catalog.NewSnapshot(storetest.MustLoad(t, st), game.Default())
	if err != nil {
		t.Fatal(err)
	}
	acc := &account.Account{Email: "a@example.com", Plan: account.Pro}
	if err := st.CreateAccount(ctx, acc); err != nil {
		t.Fatal(err)
	}
	a := &alerts.Alert{AccountID: acc.ID, CardID: storetest.Generate("dbs", 1, day).Cards[0].ID, Source: alerts.TCG, Finish: "Normal",
		Rule: alerts.Rule{Kind: alerts.Above, Cents: 1}}
	if err := alerts.Check(a, snap); err != nil {
		t.Fatal(err)
	}
	if err := st.CreateAlert(ctx, a, 3); err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int32
	ev := &alerts.Evaluator{Alerts: st, Catalog: st, Log: slog.New(slog.DiscardHandler), RetryAfter: 10 * time.Millisecond,
		Lock: func(ctx context.Context) (func(), bool, error) {
			if calls.Add(1) == 1 {
				return nil, false, nil // another replica's
			}
			return st.TryLock(ctx, alerts.LockName)
		}}
	runEvaluator(t, ev)
	ev.Notify(snap)
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		got, err := st.Alerts(ctx, acc.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got[0].LastVersion == snap.Version {
			if got[0].Armed || calls.Load() < 2 {
				t.Fatalf("alert %+v after %d lock attempts", got[0], calls.Load())
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the skipped version was never evaluated (%d lock attempts)", calls.Load())
		}
	}
	evs, err := st.Events(ctx, acc.ID, 10)
	if err != nil || len(evs) != 1 {
		t.Fatalf("Events = %d, %v; want the one firing", len(evs), err)
	}
}

// TestReplaceLetsTheSnapshotGo: once serve's holder swaps a version built
// in memory for the same version mapped from its artifact, the evaluator
// holds the built one no longer, not even in a retry it has pending, so
// its memory (gigabytes at a million cards) is freed.
func TestReplaceLetsTheSnapshotGo(t *testing.T) {
	st, _ := openOneCard(t)
	load := func() *catalog.Snapshot {
		snap, err := catalog.NewSnapshot(storetest.MustLoad(t, st), game.Default())
		if err != nil {
			t.Fatal(err)
		}
		return snap
	}
	built, mapped := load(), load()
	var calls atomic.Int32
	ev := &alerts.Evaluator{Alerts: st, Catalog: st, Log: slog.New(slog.DiscardHandler), RetryAfter: time.Hour,
		Lock: func(context.Context) (func(), bool, error) {
			calls.Add(1)
			return nil, false, nil // another replica's: a retry is pending
		}}
	runEvaluator(t, ev)
	ev.Notify(built)
	for deadline := time.Now().Add(5 * time.Second); calls.Load() == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the version was never evaluated")
		}
	}
	time.Sleep(10 * time.Millisecond) // Run schedules its retry after the lock's answer
	ev.Replace(built, mapped)
	w := weak.Make(built)
	built = nil
	for range 3 {
		runtime.GC()
	}
	if w.Value() != nil {
		t.Fatal("the replaced snapshot is still held")
	}
	runtime.KeepAlive(mapped)
}

// runEvaluator starts ev and runs it until the test ends.
func runEvaluator(t *testing.T, ev *alerts.Evaluator) {
	t.Helper()
	ev.Start()
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { ev.Run(ctx); close(done) }()
	t.Cleanup(func() { stop(); <-done })
}
