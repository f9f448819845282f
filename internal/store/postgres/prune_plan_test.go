package postgres

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestPrunePlan pins down the plans of the history window and of the
// prune: index ranges of price_points, the prune's walk of the finishes
// by index descents from a row comparison, and its delete by ctid, never a
// scan of the table (which has no index by day).
func TestPrunePlan(t *testing.T) {
	ctx := context.Background()
	db := openInNewSchema(t)

	d := time.Date(2025, 1, 30, 0, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name, query string
		args        []any
		want        []string
	}{
		{"window", priceHistoryWindow, []any{"dbs", "dbs_0000000000000001", "t", d.AddDate(0, 0, -29), d},
			[]string{"Index Scan using price_points_pkey on price_points"}},
		{"prune", prunePoints, []any{"dbs", d},
			[]string{"Recursive Union", "Tid Scan on price_points", "Index Scan using price_points_pkey on price_points",
				"Index Only Scan using price_points_pkey",
				"AND (ROW(card_id, market, finish) > ROW(f.card_id, f.market, f.finish))"}},
	} {
		// In a transaction with the prune's settings, as PrunePriceHistory runs it.
		tx, err := db.pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, pruneSettings); err != nil {
			t.Fatal(err)
		}
		rows, err := tx.Query(ctx, "EXPLAIN (COSTS OFF) "+tt.query, tt.args...)
		if err != nil {
			t.Fatal(err)
		}
		lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
		tx.Rollback(ctx)
		if err != nil {
			t.Fatal(err)
		}
		p := strings.Join(lines, "\n")
		for _, want := range tt.want {
			if !strings.Contains(p, want) {
				t.Errorf("%s plan lacks %q:\n%s", tt.name, want, p)
			}
		}
		for _, refused := range []string{"Seq Scan on price_points", "Hash"} {
			if strings.Contains(p, refused) {
				t.Errorf("%s plan has %q:\n%s", tt.name, refused, p)
			}
		}
	}
}
