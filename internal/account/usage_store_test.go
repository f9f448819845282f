package account_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/store/postgres"
	"github.com/cardcat/cardcat/internal/store/sqlite"
)

// TestMetersAddUp: two replicas' meters flushing the same account's hour add
// up in a real store, and a key's last use only moves forward.
func TestMetersAddUp(t *testing.T) {
	backends := []struct {
		name string
		open func(t *testing.T) account.Store
	}{
		{"sqlite", func(t *testing.T) account.Store {
			db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "cardcat.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			return db
		}},
		{"postgres", openPostgres},
	}
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			st := b.open(t)
			ctx := context.Background()
			acc := &account.Account{Email: "meter@example.com", Plan: account.Free}
			if err := st.CreateAccount(ctx, acc); err != nil {
				t.Fatal(err)
			}
			k := &account.Key{AccountID: acc.ID, Hash: account.HashKey("pk_test_meter"), Prefix: "pk_test_mete"}
			if err := st.CreateKey(ctx, k); err != nil {
				t.Fatal(err)
			}
			a, b := account.NewMeter(st, nil), account.NewMeter(st, nil)
			later := h10.Add(45 * time.Minute)
			for range 3 {
				a.Record(acc.ID, k.ID, false, later)
			}
			a.Record(acc.ID, k.ID, true, h11)
			b.Record(acc.ID, k.ID, false, h10.Add(5*time.Minute))
			b.Record(acc.ID, k.ID, true, h10.Add(6*time.Minute))
			mustFlush(t, a)
			mustFlush(t, b) // an older last use than a's
			b.Record(acc.ID, k.ID, false, h10)
			mustFlush(t, b)

			got, err := st.UsageBetween(ctx, acc.ID, h10, h11.Add(time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			want := []account.Usage{
				{AccountID: acc.ID, Hour: h10, Requests: 6, Refused: 1},
				{AccountID: acc.ID, Hour: h11, Requests: 1, Refused: 1},
			}
			if diff := cmp.Diff(want, got, cmp.Comparer(time.Time.Equal)); diff != "" {
				t.Errorf("UsageBetween (-want +got):\n%s", diff)
			}
			keys, err := st.Keys(ctx, acc.ID)
			if err != nil || len(keys) != 1 {
				t.Fatalf("Keys = %+v, %v", keys, err)
			}
			if !keys[0].LastUsedAt.Equal(h11) {
				t.Errorf("key last used %v, want %v (the latest of both meters)", keys[0].LastUsedAt, h11)
			}
		})
	}
}

// openPostgres opens a store in a schema of its own at
// $CARDCAT_TEST_POSTGRES_URL, dropped at the test's end; it skips without
// the variable.
func openPostgres(t *testing.T) account.Store {
	base := os.Getenv("CARDCAT_TEST_POSTGRES_URL")
	if base == "" {
		t.Skip("PostgreSQL tests need CARDCAT_TEST_POSTGRES_URL, e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable")
	}
	ctx := context.Background()
	var b [8]byte
	rand.Read(b[:])
	schema := "cardcat_test_" + hex.EncodeToString(b[:])
	exec := func(q string) error {
		conn, err := pgx.Connect(ctx, base)
		if err != nil {
			return err
		}
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, q)
		return err
	}
	if err := exec("CREATE SCHEMA " + schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := exec("DROP SCHEMA " + schema + " CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	db, err := postgres.Open(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
