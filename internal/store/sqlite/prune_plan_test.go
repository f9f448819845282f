package sqlite

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestPrunePlan pins down the plans of the history window and of the
// prune: primary-key ranges of price_points, the prune's walk of the
// finishes by seeks, never a scan of the table (which has no index by day).
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
		{"prune", prunePoints, []any{"dbs", "2025-01-01"},
			[]string{"RECURSIVE STEP",
				"SEARCH price_points USING PRIMARY KEY (game=? AND card_id>?)",
				"SEARCH price_points USING PRIMARY KEY (game=? AND card_id=? AND market>?)",
				"SEARCH price_points USING PRIMARY KEY (game=? AND card_id=? AND market=? AND finish>?)",
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

// TestPruneSeeksPastFinish: the prune's walk of the finishes seeks past each
// finish's points rather than reading them (what its plan does not show).
// Game a has 40 finishes of one point, game b 40 finishes of 2,000 points;
// a prune that deletes nothing reads b's 80,000 points if it steps through
// them, and costs about what a's does if it seeks.
func TestPruneSeeksPastFinish(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "cardcat.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const fill = `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ?2 * 40)
INSERT INTO price_points (game, card_id, market, finish, day, v4)
SELECT ?1, printf('c%03d', i / ?2), 't', 'Normal', date('2000-01-01', printf('+%d days', i % ?2)), i FROM n`
	for _, g := range []struct {
		game string
		days int
	}{{"a", 1}, {"b", 2000}} {
		if _, err := db.catWrite.ExecContext(ctx, fill, g.game, g.days); err != nil {
			t.Fatal(err)
		}
	}
	prune := func(game string) time.Duration {
		best := time.Hour
		for range 5 {
			start := time.Now()
			n, err := db.PrunePriceHistory(ctx, game, time.Date(1999, 1, 1, 0, 0, 0, 0, time.UTC))
			if err != nil || n != 0 {
				t.Fatalf("PrunePriceHistory(%s) = %d, %v; want 0, nil", game, n, err)
			}
			best = min(best, time.Since(start))
		}
		return best
	}
	short, long := prune("a"), prune("b")
	if long > 10*short+2*time.Millisecond {
		t.Errorf("prune of 40 finishes of 2,000 points took %v, of 40 finishes of one point %v: it reads the points it skips", long, short)
	}
}
