package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestTCGAveragesPlan pins down the plan the history queries are written
// for (see tcgAverages): the finishes sorted once, one index range of
// price_points per finish, a GroupAggregate over that order, and no hash
// and no sort of the points; each day of tcgDays one index probe.
func TestTCGAveragesPlan(t *testing.T) {
	ctx := context.Background()
	db := openInNewSchema(t)

	plan := func(query string, args ...any) string {
		t.Helper()
		rows, err := db.pool.Query(ctx, "EXPLAIN (COSTS OFF) "+query, args...)
		if err != nil {
			t.Fatal(err)
		}
		lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(lines, "\n")
	}
	d := time.Date(2025, 1, 30, 0, 0, 0, 0, time.UTC)
	// As TCGMarketAverages reads them, and as ReplaceCatalog stores them.
	for _, query := range []string{tcgAverages, writeTCGAverages} {
		averages := plan(query, "dbs", d.AddDate(0, 0, -29), d.AddDate(0, 0, -6), d)
		for _, want := range []string{"GroupAggregate", "Nested Loop", "Index Scan using price_points_pkey on price_points"} {
			if !strings.Contains(averages, want) {
				t.Errorf("averages plan lacks %q:\n%s", want, averages)
			}
		}
		for _, refused := range []string{"Hash", "Seq Scan on price_points", "Bitmap Heap Scan on price_points"} {
			if strings.Contains(averages, refused) {
				t.Errorf("averages plan has %q:\n%s", refused, averages)
			}
		}
		// The one sort is tcg_prices' (the finishes, not their points).
		if n := strings.Count(averages, "Sort Key"); n != 1 {
			t.Errorf("averages plan sorts %d times, want once (the finishes):\n%s", n, averages)
		}
	}

	days := plan(tcgDays, "dbs", d.AddDate(0, 0, -29), d.AddDate(0, 0, 1))
	if want := "Index Only Scan using price_points_pkey on price_points"; !strings.Contains(days, want) && !strings.Contains(days, "Index Scan using price_points_pkey") {
		t.Errorf("days plan lacks an index probe of price_points:\n%s", days)
	}
}

// openInNewSchema opens the store in a schema of its own on
// CARDCAT_TEST_POSTGRES_URL (skipping without it), dropped after the test:
// for the tests inside the package, which read its query plans.
func openInNewSchema(t *testing.T) *DB {
	base := os.Getenv("CARDCAT_TEST_POSTGRES_URL")
	if base == "" {
		t.Skip("PostgreSQL tests need CARDCAT_TEST_POSTGRES_URL, e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable")
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	b := make([]byte, 8)
	rand.Read(b)
	schema := "cardcat_test_" + hex.EncodeToString(b)
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE") })
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	db, err := Open(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
