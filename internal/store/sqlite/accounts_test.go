package sqlite_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/account/accounttest"
)

func TestAccounts(t *testing.T) {
	accounttest.Run(t, func(t *testing.T) account.Store {
		return mustOpen(t, filepath.Join(t.TempDir(), "cardcat.db"))
	})
}

// TestPortalMigrationKeepsAccounts opens a database made before the portal
// (migrations 1 and 2 only): its accounts and keys survive migration 3, with
// the new fields empty.
func TestPortalMigrationKeepsAccounts(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "cardcat.db")
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	created := time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC)
	steps := []string{
		`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL DEFAULT 0)`,
		mustReadFile(t, "migrations/0001_catalog.sql"),
		mustReadFile(t, "migrations/0002_accounts.sql"),
		`INSERT INTO schema_migrations (version, name) VALUES (1, '0001_catalog.sql'), (2, '0002_accounts.sql')`,
		`INSERT INTO accounts (id, email, plan, created_at) VALUES (1, 'old@example.com', 'pro', ` + micro(created) + `)`,
		`INSERT INTO api_keys (id, account_id, hash, prefix, test, created_at) VALUES (1, 1, 'h1', 'pk_live_old1', 0, ` + micro(created) + `)`,
	}
	for _, q := range steps {
		if _, err := raw.ExecContext(ctx, q); err != nil {
			t.Fatalf("%.60s: %v", q, err)
		}
	}
	if err := raw.Close(); err != nil {
		t.Fatal(err)
	}

	db := mustOpen(t, path)
	wantAccount := account.Account{ID: 1, Email: "old@example.com", Plan: account.Pro, CreatedAt: created}
	accounts, err := db.Accounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]account.Account{wantAccount}, accounts); diff != "" {
		t.Errorf("Accounts (-want +got):\n%s", diff)
	}
	keys, err := db.Keys(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	wantKeys := []account.Key{{ID: 1, AccountID: 1, Hash: "h1", Prefix: "pk_live_old1", CreatedAt: created}}
	if diff := cmp.Diff(wantKeys, keys); diff != "" {
		t.Errorf("Keys (-want +got):\n%s", diff)
	}
}

func mustReadFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func micro(t time.Time) string { return strconv.FormatInt(t.UnixMicro(), 10) }
