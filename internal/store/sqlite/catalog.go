package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/store"
	"github.com/cardcat/cardcat/internal/store/sqlrow"
)

// CatalogVersion returns the current catalogue version, 0 when none.
func (db *DB) CatalogVersion(ctx context.Context) (int64, error) {
	v, err := sqlrow.CatalogVersion(ctx, reader{db.read})
	if err != nil {
		return 0, fmt.Errorf("sqlite: catalog version: %w", err)
	}
	return v, nil
}

// LatestVersion returns the current version's information, store.ErrNotFound
// when no catalogue was written.
func (db *DB) LatestVersion(ctx context.Context) (store.VersionInfo, error) {
	vi, err := sqlrow.LatestVersion(ctx, reader{db.read})
	if err != nil {
		return store.VersionInfo{}, fmt.Errorf("sqlite: latest version: %w", err)
	}
	return vi, nil
}

// ReplaceCatalog replaces the catalogue of each game in games, in one
// transaction; see store.Store. Times are kept to the microsecond: pass times
// truncated to it for them to load back Equal.
func (db *DB) ReplaceCatalog(ctx context.Context, base int64, games []catalog.GameCatalog, report string, now time.Time) (int64, error) {
	if err := sqlrow.Validate(games); err != nil {
		return 0, fmt.Errorf("sqlite: replace catalog: %w", err)
	}
	v, err := db.replace(ctx, base, games, report, now)
	if err != nil {
		return 0, fmt.Errorf("sqlite: replace catalog: %w", err)
	}
	return v, nil
}

func (db *DB) replace(ctx context.Context, base int64, games []catalog.GameCatalog, report string, now time.Time) (int64, error) {
	tx, err := db.catWrite.BeginTx(ctx, nil) // BEGIN IMMEDIATE: the write lock is ours from here
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()

	current, err := sqlrow.CatalogVersion(ctx, reader{tx})
	if err != nil {
		return 0, err
	}
	if current != base {
		return 0, fmt.Errorf("read version %d, current is %d: %w", base, current, store.ErrVersionConflict)
	}

	// Was a version, and so price points, written earlier on the day? See overwritePoints.
	var dayWritten bool
	dayStart := sqlrow.DayStart(now)
	err = tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM catalog_versions WHERE created_at >= ? AND created_at < ?)`,
		dayStart.UnixMicro(), dayStart.AddDate(0, 0, 1).UnixMicro()).Scan(&dayWritten)
	if err != nil {
		return 0, err
	}

	w := newCatalogWriter(tx)
	defer w.close()
	day := sqlrow.Day(now)
	for i := range games {
		if err := w.replaceGame(ctx, &games[i], day, dayWritten); err != nil {
			return 0, fmt.Errorf("game %s: %w", games[i].Game, err)
		}
	}

	version := current + 1
	if _, err := tx.ExecContext(ctx, `INSERT INTO catalog_versions (version, created_at, report) VALUES (?, ?, ?)`,
		version, micros(now), report); err != nil {
		return 0, err
	}
	if err := writeTCGHistory(ctx, tx, version, now); err != nil {
		return 0, err
	}
	if err := tx.Commit(); err != nil {
		return 0, err
	}
	return version, nil
}

// catalogWriter writes game catalogues inside one transaction, its statements
// prepared once for all games.
type catalogWriter struct {
	tx      *sql.Tx
	batches []*batch // one per table of sqlrow.Tables
}

func newCatalogWriter(tx *sql.Tx) *catalogWriter {
	w := &catalogWriter{tx: tx}
	for _, t := range sqlrow.Tables {
		w.batches = append(w.batches, newBatch(tx, t.Name, t.Columns...))
	}
	return w
}

func (w *catalogWriter) close() {
	for _, b := range w.batches {
		b.close()
	}
}

// The day's price points are taken from the price rows just written, so the
// prices cross from Go to SQLite once. The rows go in key order, so that they
// meet price_points' index (which grows by millions of entries a day at full
// size) page by page rather than at random.
//
// Only ReplaceCatalog writes price points, with its now. So when no version was
// created earlier on the same UTC day there is no point to overwrite, and a
// plain INSERT does. Otherwise the upsert overwrites the day's points: the last
// replace of a day wins. OR ROLLBACK: see batch.
const (
	insertTCGPoints = `INSERT OR ROLLBACK INTO price_points (game, card_id, market, finish, day, v1, v2, v3, v4, v5, v6)
SELECT game, card_id, 't', sub_type, ?, low, mid, high, market, direct_low, NULL FROM tcg_prices WHERE game = ?
ORDER BY card_id, sub_type`
	insertCMPoints = `INSERT OR ROLLBACK INTO price_points (game, card_id, market, finish, day, v1, v2, v3, v4, v5, v6)
SELECT game, card_id, 'c', variant, ?, avg, low, trend, avg1, avg7, avg30 FROM cm_prices WHERE game = ?
ORDER BY card_id, variant`
	overwritePoints = `
ON CONFLICT (game, card_id, market, finish, day) DO UPDATE SET
	v1 = excluded.v1, v2 = excluded.v2, v3 = excluded.v3, v4 = excluded.v4, v5 = excluded.v5, v6 = excluded.v6`
)

// replaceGame replaces the rows of one game and writes its price points of
// day, overwriting those already there when dayWritten.
func (w *catalogWriter) replaceGame(ctx context.Context, g *catalog.GameCatalog, day string, dayWritten bool) error {
	for _, t := range sqlrow.Tables {
		if _, err := w.tx.ExecContext(ctx, "DELETE FROM "+t.Name+" WHERE game = ?", g.Game); err != nil {
			return fmt.Errorf("delete from %s: %w", t.Name, err)
		}
	}
	for i, rows := range sqlrow.GameRows(g, func(t time.Time) any { return micros(t) }) {
		b := w.batches[i]
		for rows.Next() {
			values, _ := rows.Values()
			if err := b.add(ctx, values...); err != nil {
				return err
			}
		}
		if err := b.flush(ctx); err != nil {
			return err
		}
	}
	tcgPoints, cmPoints := insertTCGPoints, insertCMPoints
	if dayWritten {
		tcgPoints, cmPoints = tcgPoints+overwritePoints, cmPoints+overwritePoints
	}
	if _, err := w.tx.ExecContext(ctx, tcgPoints, day, g.Game); err != nil {
		return fmt.Errorf("TCGplayer price points: %w", err)
	}
	if _, err := w.tx.ExecContext(ctx, cmPoints, day, g.Game); err != nil {
		return fmt.Errorf("Cardmarket price points: %w", err)
	}
	return nil
}

// PriceHistory returns the price points of one card, oldest day first (then
// by market and finish).
func (db *DB) PriceHistory(ctx context.Context, game, cardID string) ([]store.PricePoint, error) {
	const q = `SELECT market, finish, day, v1, v2, v3, v4, v5, v6 FROM price_points
WHERE game = ? AND card_id = ? ORDER BY day, market, finish`
	points, err := sqlrow.PriceHistory(ctx, reader{db.read}, q, game, cardID)
	if err != nil {
		return nil, fmt.Errorf("sqlite: price history: %w", err)
	}
	return points, nil
}
