package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/cardcat/cardcat/internal/store"
	"github.com/cardcat/cardcat/internal/store/sqlrow"
	"github.com/jackc/pgx/v5"
)

// tcgAverages and tcgDays are SQLite's queries (see the sqlite package)
// in this dialect, with the same plan: the game's current finishes sorted
// by (card_id, sub_type), then, for each, one primary-key range of
// price_points read by an index scan (the LATERAL subquery; OFFSET 0 keeps
// the planner from flattening it into a hash join, which would read every
// point of the table, any day, either marketplace, and hash them), and a
// GroupAggregate over that order: no hash, no sort of the points, and a cost
// that grows with the window, not with the history (TestTCGAveragesPlan).
// The sums are cast back to bigint (sum of bigint is numeric) so that the
// division is integer division, which truncates toward zero.
const tcgAverages = `
SELECT card_id, finish,
	CASE WHEN n7 = 0 THEN NULL WHEN s7 >= 0 THEN (2 * s7 + n7) / (2 * n7) ELSE -((n7 - 2 * s7) / (2 * n7)) END,
	CASE WHEN n30 = 0 THEN NULL WHEN s30 >= 0 THEN (2 * s30 + n30) / (2 * n30) ELSE -((n30 - 2 * s30) / (2 * n30)) END
FROM (
	SELECT tp.card_id AS card_id, tp.sub_type AS finish,
		(sum(pp.v4) FILTER (WHERE pp.day >= $3))::bigint AS s7, count(pp.v4) FILTER (WHERE pp.day >= $3) AS n7,
		sum(pp.v4)::bigint AS s30, count(pp.v4) AS n30
	FROM (SELECT card_id, sub_type FROM tcg_prices WHERE game = $1 ORDER BY card_id, sub_type) AS tp
	CROSS JOIN LATERAL (
		SELECT v4, day FROM price_points
		WHERE game = $1 AND card_id = tp.card_id AND market = 't' AND finish = tp.sub_type AND day BETWEEN $2 AND $4
		OFFSET 0
	) AS pp
	GROUP BY tp.card_id, tp.sub_type
	ORDER BY tp.card_id, tp.sub_type
) AS g
ORDER BY card_id, finish`

// LIMIT 1 makes each day's probe a nested loop that stops at the first
// point, whatever the planner thinks of a semi-join.
const tcgDays = `
SELECT count(*) FROM (
	SELECT DISTINCT (created_at AT TIME ZONE 'UTC')::date AS day FROM catalog_versions
	WHERE created_at >= $2 AND created_at < $3
) AS v
CROSS JOIN LATERAL (
	SELECT 1 FROM tcg_prices AS tp
	JOIN price_points AS pp ON pp.game = tp.game AND pp.card_id = tp.card_id AND pp.market = 't'
		AND pp.finish = tp.sub_type AND pp.day = v.day
	WHERE tp.game = $1
	LIMIT 1
) AS hit`

// TCGMarketAverages returns the TCGplayer history of game at the UTC day of
// day; see store.Store.
func (db *DB) TCGMarketAverages(ctx context.Context, game string, day time.Time) (store.TCGHistory, error) {
	h, err := db.tcgMarketAverages(ctx, game, day)
	if err != nil {
		return store.TCGHistory{}, fmt.Errorf("postgres: TCGplayer market averages: %w", err)
	}
	return h, nil
}

func (db *DB) tcgMarketAverages(ctx context.Context, game string, day time.Time) (store.TCGHistory, error) {
	var h store.TCGHistory
	// REPEATABLE READ: every query sees the same snapshot.
	opts := pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}
	err := pgx.BeginTxFunc(ctx, db.pool, opts, func(tx pgx.Tx) error {
		w := sqlrow.NewTCGWindow(day)
		var (
			found bool
			err   error
		)
		h, found, err = sqlrow.StoredTCGHistory(ctx, reader{tx}, game, w,
			sqlrow.Query{SQL: storedTCGHistory, Args: []any{game, w.Day}},
			sqlrow.Query{SQL: storedTCGAverages, Args: []any{game}})
		if err != nil || found {
			return err
		}
		days, averages := tcgHistoryQueries(game, w)
		h, err = sqlrow.TCGHistory(ctx, reader{tx}, game, w, days, averages)
		return err
	})
	return h, err
}

// tcgHistoryQueries are tcgDays and tcgAverages with their arguments for
// game in w.
func tcgHistoryQueries(game string, w sqlrow.TCGWindow) (days, averages sqlrow.Query) {
	return sqlrow.Query{SQL: tcgDays, Args: []any{game, w.From30, w.Next}},
		sqlrow.Query{SQL: tcgAverages, Args: []any{game, w.From30, w.From7, w.Day}}
}

// priceHistoryWindow reads one primary-key range per finish of the card's
// market; the sort is of that window's points only.
const priceHistoryWindow = `SELECT market, finish, to_char(day, 'YYYY-MM-DD'), v1, v2, v3, v4, v5, v6 FROM price_points
WHERE game = $1 AND card_id = $2 AND market = $3 AND day BETWEEN $4 AND $5 ORDER BY day, finish`

// PriceHistoryWindow returns the card's points of market from the UTC day of
// from to that of to; see store.Store.
func (db *DB) PriceHistoryWindow(ctx context.Context, game, cardID, market string, from, to time.Time) ([]store.PricePoint, error) {
	points, err := sqlrow.PriceHistory(ctx, reader{db.pool}, priceHistoryWindow, game, cardID, market,
		sqlrow.DayStart(from), sqlrow.DayStart(to))
	if err != nil {
		return nil, fmt.Errorf("postgres: price history window: %w", err)
	}
	return points, nil
}

// prunePoints deletes the game's points before $2, of every finish the
// history holds: those of the current catalogue and those of cards and
// finishes gone from it. The table has no index by day, so the finishes are
// walked on the primary key, one index descent each: a recursive "loose
// index scan", the first point after the previous finish found by a row
// comparison the index starts from. (Written (game, card_id, ...) > (...)
// beside game = $1, the index would start at the game's first point at every
// step: the walk would read the table once per finish.) Each finish's
// points before $2 are then one index range (the LATERAL subquery; OFFSET 0
// keeps it from becoming a hash join over the whole table), and the rows
// found are deleted by their ctid (a TID scan): a daily prune reads about
// what it deletes plus a descent per finish, whatever the length of the
// history (TestPrunePlan). On a small or freshly analysed table the planner
// may still prefer a sequential scan for the ctids; pruneSettings rules that
// out for the prune's transaction, whatever the statistics.
const (
	pruneSettings = `SET LOCAL enable_seqscan = off`
	prunePoints   = `WITH RECURSIVE f AS (
	(SELECT card_id, market, finish FROM price_points WHERE game = $1 ORDER BY card_id, market, finish, day LIMIT 1)
	UNION ALL
	SELECT n.card_id, n.market, n.finish FROM f CROSS JOIN LATERAL (
		SELECT card_id, market, finish FROM price_points
		WHERE game = $1 AND (card_id, market, finish) > (f.card_id, f.market, f.finish)
		ORDER BY card_id, market, finish, day LIMIT 1
	) AS n
)
DELETE FROM price_points WHERE ctid = ANY (ARRAY (
	SELECT pp.ctid FROM f CROSS JOIN LATERAL (
		SELECT ctid FROM price_points
		WHERE game = $1 AND card_id = f.card_id AND market = f.market AND finish = f.finish AND day < $2
		OFFSET 0
	) AS pp))`
	// pruneTCGHistory forgets the game's stored TCGplayer history when the
	// prune reached into its 30-day window (sqlrow.PrunedWindows):
	// TCGMarketAverages then computes it from the points left. A prune by
	// ingest (at least 400 days kept) never does.
	pruneTCGHistory = `DELETE FROM tcg_history WHERE game = $1 AND day < $2`
)

// PrunePriceHistory deletes the game's points before the UTC day of before,
// in one transaction; see store.Store.
func (db *DB) PrunePriceHistory(ctx context.Context, game string, before time.Time) (int64, error) {
	var n int64
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, pruneSettings); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, prunePoints, game, sqlrow.DayStart(before))
		if err != nil {
			return err
		}
		n = tag.RowsAffected()
		_, err = tx.Exec(ctx, pruneTCGHistory, game, sqlrow.PrunedWindows(before))
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("postgres: prune price history: %w", err)
	}
	return n, nil
}
