package sqlite

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestPrunePlan pins down the plans of the history window and of the
// prune: primary-key ranges of price_points, never a scan of the table
// (which has no index by day).
func TestPrunePlan(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "cardcat.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, tt := range []struct {
		name, query string
		args        []any
		want        []string
	}{
		{"window", priceHistoryWindow, []any{"dbs", "dbs_0000000000000001", "t", "2025-01-01", "2025-01-30"},
			[]string{"SEARCH price_points USING PRIMARY KEY (game=? AND card_id=? AND market=?)"}},
		{"prune TCGplayer", pruneTCGPoints, []any{"dbs", "2025-01-01"},
			[]string{"SEARCH tcg_prices USING PRIMARY KEY (game=?)",
				"SEARCH pp USING PRIMARY KEY (game=? AND card_id=? AND market=? AND finish=? AND day<?)",
				"SEARCH price_points USING PRIMARY KEY (game=? AND card_id=? AND market=? AND finish=? AND day=?)"}},
		{"prune Cardmarket", pruneCMPoints, []any{"dbs", "2025-01-01"},
			[]string{"SEARCH cm_prices USING PRIMARY KEY (game=?)",
				"SEARCH pp USING PRIMARY KEY (game=? AND card_id=? AND market=? AND finish=? AND day<?)"}},
	} {
		p := explain(t, db, tt.query, tt.args...)
		for _, want := range tt.want {
			if !strings.Contains(p, want) {
				t.Errorf("%s plan lacks %q:\n%s", tt.name, want, p)
			}
		}
		if strings.Contains(p, "SCAN price_points") || strings.Contains(p, "SCAN pp") {
			t.Errorf("%s plan scans price_points:\n%s", tt.name, p)
		}
	}
}

func explain(t *testing.T, db *DB, query string, args ...any) string {
	t.Helper()
	rows, err := db.read.QueryContext(context.Background(), "EXPLAIN QUERY PLAN "+query, args...)
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
