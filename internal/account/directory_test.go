package account_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cardcat/cardcat/internal/account"
)

// partitionedStore gets no answer to any call while cut, like a black-holed
// database: each call waits until its context ends.
type partitionedStore struct {
	*memStore
	cut atomic.Bool
}

func (s *partitionedStore) AccountsVersion(ctx context.Context) (int64, error) {
	if s.cut.Load() {
		<-ctx.Done()
		return 0, ctx.Err()
	}
	return s.memStore.AccountsVersion(ctx)
}

func (s *partitionedStore) ActiveKeys(ctx context.Context) ([]account.KeyAccount, error) {
	if s.cut.Load() {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return s.memStore.ActiveKeys(ctx)
}

// TestDirectoryRefreshDeadline: with the database black-holed a refresh ends
// at its deadline instead of waiting for TCP, the keys loaded last keep
// answering, LastSuccess stays at the last good refresh, the outage is logged
// once, and the first refresh after it loads the keys made meanwhile.
func TestDirectoryRefreshDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		st := &partitionedStore{memStore: newMemStore()}
		var logs bytes.Buffer
		_, old, _ := mustAccount(t, st.memStore, account.Account{Plan: account.Free})
		d, err := account.NewDirectory(ctx, st, slog.New(slog.NewTextHandler(&logs, nil)))
		if err != nil {
			t.Fatal(err)
		}
		loaded := d.LastSuccess()
		if loaded.IsZero() {
			t.Fatal("no LastSuccess after the first load")
		}

		st.cut.Store(true)
		_, late, _ := mustAccount(t, st.memStore, account.Account{Plan: account.Free}) // while the directory cannot read
		for range 3 {
			start := time.Now()
			err := d.Refresh(ctx)
			if took := time.Since(start); took != 5*time.Second || err == nil || !strings.Contains(err.Error(), "accounts version check: no answer within 5s") {
				t.Fatalf("refresh with the database cut: %v after %v", err, took)
			}
		}
		if _, ok := d.Lookup(old); !ok {
			t.Error("a key loaded before the outage is unknown during it")
		}
		if !d.LastSuccess().Equal(loaded) || d.FailingSince().IsZero() {
			t.Errorf("during the outage: last success %v (want %v), failing since %v", d.LastSuccess(), loaded, d.FailingSince())
		}

		st.cut.Store(false)
		if err := d.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
		if _, ok := d.Lookup(late); !ok || !d.FailingSince().IsZero() || !d.LastSuccess().After(loaded) {
			t.Errorf("after the outage: the key made meanwhile known %v, failing since %v, last success %v", ok, d.FailingSince(), d.LastSuccess())
		}
		out := logs.String()
		if strings.Count(out, `level=WARN msg="key directory refresh failing`) != 1 || strings.Count(out, `level=INFO msg="key directory refresh recovered" outage=10s failures=3`) != 1 {
			t.Errorf("want one WARN and one INFO for the outage:\n%s", out)
		}
	})
}
