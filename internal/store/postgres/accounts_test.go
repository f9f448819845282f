package postgres_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/account/accounttest"
)

func TestAccounts(t *testing.T) {
	baseURL(t)
	accounttest.Run(t, func(t *testing.T) account.Store { return mustOpen(t, newSchema(t)) })
}

// TestPortalMigrationKeepsAccounts opens a schema made before the portal
// (migrations 1 and 2 only): its accounts and keys survive migration 3, with
// the new fields empty.
func TestPortalMigrationKeepsAccounts(t *testing.T) {
	ctx := context.Background()
	url := newSchema(t)
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	created := time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC)
	steps := []struct {
		query string
		args  []any
	}{
		{query: `CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`},
		{query: mustReadFile(t, "migrations/0001_catalog.sql")},
		{query: mustReadFile(t, "migrations/0002_accounts.sql")},
		{query: `INSERT INTO schema_migrations (version, name) VALUES (1, '0001_catalog.sql'), (2, '0002_accounts.sql')`},
		{`INSERT INTO accounts (email, plan, created_at) VALUES ('old@example.com', 'pro', $1)`, []any{created}},
		{`INSERT INTO api_keys (account_id, hash, prefix, test, created_at) VALUES (1, 'h1', 'pk_live_old1', false, $1)`, []any{created}},
	}
	for _, s := range steps {
		if _, err := conn.Exec(ctx, s.query, s.args...); err != nil {
			t.Fatalf("%.60s: %v", s.query, err)
		}
	}

	db := mustOpen(t, url)
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
