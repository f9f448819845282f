package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/cardcat/cardcat/internal/store"
	"github.com/cardcat/cardcat/internal/store/sqlrow"
)

// tcgAverages computes the averages of store.TCGHistory in one grouped
// pass.
//
// The finishes come from tcg_prices (the game's current TCGplayer prices),
// sorted once by (card_id, sub_type); each is then one primary-key range of
// price_points, (game, card_id, 't', finish, day BETWEEN ?2 AND ?4): only the
// window's TCGplayer points are read, however long the history and
// whatever the Cardmarket points, and the groups come out in the sorted
// order, so neither the GROUP BY nor the ORDER BYs sort anything more
// (TestTCGAveragesPlan). Means are rounded in the outer query, halves away
// from zero: integer division truncates toward zero, in SQLite and
// PostgreSQL alike.
const tcgAverages = `
SELECT card_id, finish,
	CASE WHEN n7 = 0 THEN NULL WHEN s7 >= 0 THEN (2 * s7 + n7) / (2 * n7) ELSE -((n7 - 2 * s7) / (2 * n7)) END,
	CASE WHEN n30 = 0 THEN NULL WHEN s30 >= 0 THEN (2 * s30 + n30) / (2 * n30) ELSE -((n30 - 2 * s30) / (2 * n30)) END
FROM (
	SELECT tp.card_id AS card_id, tp.sub_type AS finish,
		sum(pp.v4) FILTER (WHERE pp.day >= ?3) AS s7, count(pp.v4) FILTER (WHERE pp.day >= ?3) AS n7,
		sum(pp.v4) AS s30, count(pp.v4) AS n30
	FROM (SELECT card_id, sub_type FROM tcg_prices WHERE game = ?1 ORDER BY card_id, sub_type) AS tp
	JOIN price_points AS pp ON pp.game = ?1 AND pp.card_id = tp.card_id AND pp.market = 't'
		AND pp.finish = tp.sub_type AND pp.day BETWEEN ?2 AND ?4
	GROUP BY tp.card_id, tp.sub_type
	ORDER BY tp.card_id, tp.sub_type
)
ORDER BY card_id, finish`

// tcgDays counts the days of the window on which a finish of the game's
// current TCGplayer prices has a point. Points are written only by
// ReplaceCatalog, for the UTC day of the version it creates, so the
// candidates are the days of the versions created in the window (a few
// dozen rows); each is then a probe of the same finishes, in write order,
// which stops at the first point found: on a day the game was written its
// first finishes have one, so such a day costs an index seek or a few. (A
// day on which only other games were written probes every finish.)
const tcgDays = `
SELECT count(*) FROM (
	SELECT DISTINCT date(created_at / 1000000, 'unixepoch') AS day FROM catalog_versions
	WHERE created_at >= ?2 AND created_at < ?3
) AS v
WHERE EXISTS (
	SELECT 1 FROM tcg_prices AS tp
	JOIN price_points AS pp ON pp.game = tp.game AND pp.card_id = tp.card_id AND pp.market = 't'
		AND pp.finish = tp.sub_type AND pp.day = v.day
	WHERE tp.game = ?1
)`

// TCGMarketAverages returns the TCGplayer history of game at the UTC day of
// day; see store.Store.
func (db *DB) TCGMarketAverages(ctx context.Context, game string, day time.Time) (store.TCGHistory, error) {
	h, err := db.tcgMarketAverages(ctx, game, day)
	if err != nil {
		return store.TCGHistory{}, fmt.Errorf("sqlite: TCGplayer market averages: %w", err)
	}
	return h, nil
}

func (db *DB) tcgMarketAverages(ctx context.Context, game string, day time.Time) (store.TCGHistory, error) {
	// One read transaction: every query sees the same snapshot.
	tx, err := db.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return store.TCGHistory{}, err
	}
	defer tx.Rollback()
	w := sqlrow.NewTCGWindow(day)
	h, found, err := sqlrow.StoredTCGHistory(ctx, reader{tx}, game, w,
		sqlrow.Query{SQL: storedTCGHistory, Args: []any{game, sqlrow.Day(w.Day)}},
		sqlrow.Query{SQL: storedTCGAverages, Args: []any{game}})
	if err != nil || found {
		return h, err
	}
	days, averages := tcgHistoryQueries(game, w)
	return sqlrow.TCGHistory(ctx, reader{tx}, game, w, days, averages)
}

// tcgHistoryQueries are tcgDays and tcgAverages with their arguments for
// game in w.
func tcgHistoryQueries(game string, w sqlrow.TCGWindow) (days, averages sqlrow.Query) {
	return sqlrow.Query{SQL: tcgDays, Args: []any{game, w.From30.UnixMicro(), w.Next.UnixMicro()}},
		sqlrow.Query{SQL: tcgAverages, Args: []any{game, sqlrow.Day(w.From30), sqlrow.Day(w.From7), sqlrow.Day(w.Day)}}
}

// priceHistoryWindow reads one primary-key range per finish of the card's
// market, (game, card_id, market, finish, day BETWEEN ?4 AND ?5); the sort
// is of that window's points only.
const priceHistoryWindow = `SELECT market, finish, day, v1, v2, v3, v4, v5, v6 FROM price_points
WHERE game = ?1 AND card_id = ?2 AND market = ?3 AND day BETWEEN ?4 AND ?5 ORDER BY day, finish`

// PriceHistoryWindow returns the card's points of market from the UTC day of
// from to that of to; see store.Store.
func (db *DB) PriceHistoryWindow(ctx context.Context, game, cardID, market string, from, to time.Time) ([]store.PricePoint, error) {
	points, err := sqlrow.PriceHistory(ctx, reader{db.read}, priceHistoryWindow, game, cardID, market, sqlrow.Day(from), sqlrow.Day(to))
	if err != nil {
		return nil, fmt.Errorf("sqlite: price history window: %w", err)
	}
	return points, nil
}

// prunePoints deletes the game's points before ?2, of every finish the
// history holds: those of the current catalogue and those of cards and
// finishes gone from it. The table has no index by day (one would cost about
// as much room as the points' own keys), so the finishes are walked on the
// primary key by a recursive skip scan whose every step is one seek: the
// next finish of a card's market (finish > f), else the card's next market
// (market > m), else the next card (card_id > c), each the min() of a range
// after an equality prefix, which SQLite seeks past the current value's
// points. (A row-value comparison would do it in one step, but SQLite seeks
// on its first column only when the values come from the walk, and would
// read every point.) ” starts a level: no card, market or finish is
// empty. Each finish's points before ?2 are then one primary-key range
// (TestPrunePlan, TestPruneSeeksPastFinish): the delete reads about what it
// deletes plus a few seeks per card, whatever the length of the history.
const prunePoints = `WITH RECURSIVE f(card_id, market, finish) AS (
	SELECT (SELECT min(card_id) FROM price_points WHERE game = ?1), '', NULL
	UNION ALL
	SELECT
		CASE WHEN f.market IS NULL THEN (SELECT min(card_id) FROM price_points WHERE game = ?1 AND card_id > f.card_id)
			ELSE f.card_id END,
		CASE WHEN f.market IS NULL THEN ''
			WHEN f.finish IS NULL THEN (SELECT min(market) FROM price_points WHERE game = ?1 AND card_id = f.card_id AND market > f.market)
			ELSE f.market END,
		CASE WHEN f.market IS NULL THEN NULL
			WHEN f.finish IS NULL THEN ''
			ELSE (SELECT min(finish) FROM price_points WHERE game = ?1 AND card_id = f.card_id AND market = f.market AND finish > f.finish) END
	FROM f WHERE f.card_id IS NOT NULL
)
DELETE FROM price_points WHERE (game, card_id, market, finish, day) IN (
	SELECT pp.game, pp.card_id, pp.market, pp.finish, pp.day FROM f
	CROSS JOIN price_points AS pp WHERE f.finish <> '' AND pp.game = ?1 AND pp.card_id = f.card_id AND pp.market = f.market
		AND pp.finish = f.finish AND pp.day < ?2)`

// pruneTCGHistory forgets the game's stored TCGplayer history when the
// prune reached into its 30-day window (days before ?2, the prune's day plus
// 29): TCGMarketAverages then computes it from the points left. A prune
// by ingest (at least 400 days kept) never does.
const pruneTCGHistory = `DELETE FROM tcg_history WHERE game = ?1 AND day < ?2`

// PrunePriceHistory deletes the game's points before the UTC day of before,
// in one transaction; see store.Store.
func (db *DB) PrunePriceHistory(ctx context.Context, game string, before time.Time) (int64, error) {
	n, err := db.prune(ctx, game, before)
	if err != nil {
		return 0, fmt.Errorf("sqlite: prune price history: %w", err)
	}
	return n, nil
}

func (db *DB) prune(ctx context.Context, game string, before time.Time) (int64, error) {
	tx, err := db.catWrite.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, prunePoints, game, sqlrow.Day(before))
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, err
	}
	if _, err := tx.ExecContext(ctx, pruneTCGHistory, game, sqlrow.Day(sqlrow.PrunedWindows(before))); err != nil {
		return 0, err
	}
	return n, tx.Commit()
}
