package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/store"
	"github.com/cardcat/cardcat/internal/store/sqlrow"
	"github.com/jackc/pgx/v5"
)

// CatalogVersion returns the current catalogue version, 0 when none.
func (db *DB) CatalogVersion(ctx context.Context) (int64, error) {
	v, err := sqlrow.CatalogVersion(ctx, reader{db.pool})
	if err != nil {
		return 0, fmt.Errorf("postgres: catalog version: %w", err)
	}
	return v, nil
}

// LatestVersion returns the current version's information, store.ErrNotFound
// when no catalogue was written.
func (db *DB) LatestVersion(ctx context.Context) (store.VersionInfo, error) {
	vi, err := sqlrow.LatestVersion(ctx, reader{db.pool})
	if err != nil {
		return store.VersionInfo{}, fmt.Errorf("postgres: latest version: %w", err)
	}
	return vi, nil
}

// ReplaceCatalog replaces the catalogue of each game in games, in one
// transaction; see store.Store. Times are kept to the microsecond: pass times
// truncated to it for them to load back Equal.
func (db *DB) ReplaceCatalog(ctx context.Context, base int64, games []catalog.GameCatalog, report string, now time.Time) (int64, error) {
	if err := sqlrow.Validate(games); err != nil {
		return 0, fmt.Errorf("postgres: replace catalog: %w", err)
	}
	var version int64
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		// Writers queue on this lock; readers (ACCESS SHARE) pass. Holding it,
		// the version read below cannot change before the commit.
		if _, err := tx.Exec(ctx, `LOCK TABLE catalog_versions IN EXCLUSIVE MODE`); err != nil {
			return err
		}
		current, err := sqlrow.CatalogVersion(ctx, reader{tx})
		if err != nil {
			return err
		}
		if current != base {
			return fmt.Errorf("read version %d, current is %d: %w", base, current, store.ErrVersionConflict)
		}
		// Was a version, and so price points, written earlier on the day? See overwritePoints.
		var dayWritten bool
		day := sqlrow.DayStart(now)
		err = tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM catalog_versions WHERE created_at >= $1 AND created_at < $2)`,
			day, day.AddDate(0, 0, 1)).Scan(&dayWritten)
		if err != nil {
			return err
		}
		for i := range games {
			if err := replaceGame(ctx, tx, &games[i], day, dayWritten); err != nil {
				return fmt.Errorf("game %s: %w", games[i].Game, err)
			}
		}
		version = current + 1
		_, err = tx.Exec(ctx, `INSERT INTO catalog_versions (version, created_at, report) VALUES ($1, $2, $3)`,
			version, sqlrow.Time(now), report)
		if err != nil {
			return err
		}
		return writeTCGHistory(ctx, tx, version, now)
	})
	if err != nil {
		return 0, fmt.Errorf("postgres: replace catalog: %w", err)
	}
	return version, nil
}

// The day's price points are taken from the price rows just copied, so the
// prices cross the network once. The rows go in key order, so that they meet
// price_points' index (which grows by millions of entries a day at full size)
// page by page rather than at random.
//
// Only ReplaceCatalog writes price points, with its now. So when no version was
// created earlier on the same UTC day there is no point to overwrite, and a
// plain INSERT does, about twice as fast as an upsert at this size. Otherwise
// the upsert overwrites the day's points: the last replace of a day wins.
const (
	insertTCGPoints = `INSERT INTO price_points (game, card_id, market, finish, day, v1, v2, v3, v4, v5, v6)
SELECT game, card_id, 't', sub_type, $2, low, mid, high, market, direct_low, NULL FROM tcg_prices WHERE game = $1
ORDER BY card_id, sub_type`
	insertCMPoints = `INSERT INTO price_points (game, card_id, market, finish, day, v1, v2, v3, v4, v5, v6)
SELECT game, card_id, 'c', variant, $2, avg, low, trend, avg1, avg7, avg30 FROM cm_prices WHERE game = $1
ORDER BY card_id, variant`
	overwritePoints = `
ON CONFLICT (game, card_id, market, finish, day) DO UPDATE SET
	v1 = excluded.v1, v2 = excluded.v2, v3 = excluded.v3, v4 = excluded.v4, v5 = excluded.v5, v6 = excluded.v6`
)

// replaceGame replaces the rows of one game and writes its price points of
// day, overwriting those already there when dayWritten.
func replaceGame(ctx context.Context, tx pgx.Tx, g *catalog.GameCatalog, day time.Time, dayWritten bool) error {
	for _, t := range sqlrow.Tables {
		if _, err := tx.Exec(ctx, "DELETE FROM "+t.Name+" WHERE game = $1", g.Game); err != nil {
			return fmt.Errorf("delete from %s: %w", t.Name, err)
		}
	}
	rows := sqlrow.GameRows(g, func(t time.Time) any { return sqlrow.Time(t) })
	for i, t := range sqlrow.Tables {
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{t.Name}, t.Columns, rows[i]); err != nil {
			return fmt.Errorf("copy into %s: %w", t.Name, err)
		}
	}
	tcgPoints, cmPoints := insertTCGPoints, insertCMPoints
	if dayWritten {
		tcgPoints, cmPoints = tcgPoints+overwritePoints, cmPoints+overwritePoints
	}
	if _, err := tx.Exec(ctx, tcgPoints, g.Game, day); err != nil {
		return fmt.Errorf("TCGplayer price points: %w", err)
	}
	if _, err := tx.Exec(ctx, cmPoints, g.Game, day); err != nil {
		return fmt.Errorf("Cardmarket price points: %w", err)
	}
	return nil
}

// PriceHistory returns the price points of one card, oldest day first (then
// by market and finish).
func (db *DB) PriceHistory(ctx context.Context, game, cardID string) ([]store.PricePoint, error) {
	const q = `SELECT market, finish, to_char(day, 'YYYY-MM-DD'), v1, v2, v3, v4, v5, v6 FROM price_points
WHERE game = $1 AND card_id = $2 ORDER BY day, market, finish`
	points, err := sqlrow.PriceHistory(ctx, reader{db.pool}, q, game, cardID)
	if err != nil {
		return nil, fmt.Errorf("postgres: price history: %w", err)
	}
	return points, nil
}
