package sqlite

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestTCGAveragesPlan pins down the plan the history queries are written
// for (see tcgAverages): the finishes sorted once, one primary-key range of
// price_points per finish, and no sort of the points for the GROUP BY or
// the ORDER BYs; each day of tcgDays one primary-key probe.
func TestTCGAveragesPlan(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "cardcat.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	plan := func(query string, args ...any) string {
		t.Helper()
		rows, err := db.read.QueryContext(ctx, "EXPLAIN QUERY PLAN "+query, args...)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var lines []string
		for rows.Next() {
			var id, parent, notUsed int
			var detail string
			if err := rows.Scan(&id, &parent, &notUsed, &detail); err != nil {
				t.Fatal(err)
			}
			lines = append(lines, detail)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return strings.Join(lines, "\n")
	}

	// As TCGMarketAverages reads them, and as ReplaceCatalog stores them.
	for _, query := range []string{tcgAverages, writeTCGAverages} {
		averages := plan(query, "dbs", "2025-01-01", "2025-01-24", "2025-01-30")
		for _, want := range []string{
			"SEARCH tcg_prices USING PRIMARY KEY (game=?)",
			"SEARCH pp USING PRIMARY KEY (game=? AND card_id=? AND market=? AND finish=? AND day>? AND day<?)",
		} {
			if !strings.Contains(averages, want) {
				t.Errorf("averages plan lacks %q:\n%s", want, averages)
			}
		}
		// The one sort is tcg_prices' (the finishes, not their points).
		if n := strings.Count(averages, "USE TEMP B-TREE"); n != 1 {
			t.Errorf("averages plan sorts %d times, want once (the finishes):\n%s", n, averages)
		}
	}

	days := plan(tcgDays, "dbs", int64(0), int64(1))
	if want := "SEARCH pp USING PRIMARY KEY (game=? AND card_id=? AND market=? AND finish=? AND day=?)"; !strings.Contains(days, want) {
		t.Errorf("days plan lacks %q:\n%s", want, days)
	}
}
