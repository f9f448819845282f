package main

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/store"
	"github.com/cardcat/cardcat/internal/store/sqlite"
)

// TestIngestTakesRefreshLock: `cardcat ingest` takes the lock a scheduled
// refresh holds while it ingests, so that a cron ingest never writes the
// same store at once: with --lock-wait 0 it fails at once and writes
// nothing; otherwise it waits for the holder, then ingests.
func TestIngestTakesRefreshLock(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(dir, "cardcat.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	unlock, ok, err := st.TryLock(ctx, refreshLockName)
	if err != nil || !ok {
		t.Fatalf("TryLock: %v, %v", ok, err)
	}

	ingest := func(wait string) (string, error) {
		var out, errb bytes.Buffer
		err := run(ctx, []string{"ingest", "--from", "../../sample", "--data-dir", dir, "--lock-wait", wait}, testEnv(nil), &out, &errb)
		return errb.String(), err
	}
	if _, err := ingest("0s"); err == nil || !strings.Contains(err.Error(), "--lock-wait") {
		t.Fatalf("ingest while the lock is held, --lock-wait 0: %v, want the lock named", err)
	}
	if _, err := st.LatestVersion(ctx); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("after the refused ingest: latest version %v, want none written", err)
	}

	defer func(p time.Duration) { ingestLockPoll = p }(ingestLockPoll)
	ingestLockPoll = 20 * time.Millisecond
	const held = 300 * time.Millisecond
	released := make(chan time.Time, 1)
	go func() {
		time.Sleep(held)
		released <- time.Now()
		unlock()
	}()
	logs, err := ingest("1m")
	if err != nil {
		t.Fatalf("ingest waiting for the lock: %v\n%s", err, logs)
	}
	done := time.Now()
	if at := <-released; done.Before(at) {
		t.Errorf("ingest ended before the lock was released")
	}
	if !strings.Contains(logs, "waiting for it") {
		t.Errorf("the wait is not logged:\n%s", logs)
	}
	if _, err := st.LatestVersion(ctx); err != nil {
		t.Errorf("after the ingest: %v, want a version", err)
	}
	// Released after the ingest: a scheduled refresh can take it again.
	unlock2, ok, err := st.TryLock(ctx, refreshLockName)
	if err != nil || !ok {
		t.Fatalf("the lock after ingest: %v, %v, want free", ok, err)
	}
	unlock2()
}
