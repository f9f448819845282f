package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/store"
	"github.com/cardcat/cardcat/internal/store/sqlrow"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
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
		return err
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
	for _, table := range []string{"sets", "cards", "tcg_prices", "cm_prices"} {
		if _, err := tx.Exec(ctx, "DELETE FROM "+table+" WHERE game = $1", g.Game); err != nil {
			return fmt.Errorf("delete from %s: %w", table, err)
		}
	}
	copies := []struct {
		table string
		cols  []string
		rows  pgx.CopyFromSource
	}{
		{"sets", []string{"game", "set_id", "code", "name", "language", "release_date",
			"tcg_category_id", "tcg_group_id", "cm_expansion_id"}, setRows(g)},
		{"cards", []string{"game", "id", "ordinal", "cm_id", "set_id", "tcg_product_id", "cm_product_id",
			"name", "clean_name", "card_number", "rarity", "card_type", "product_type", "card_text",
			"extra", "variants", "image_count", "tcg_url", "cm_product_name", "cm_product_url"}, cardRows(g)},
		{"tcg_prices", []string{"game", "ordinal", "card_id", "sub_type",
			"low", "mid", "high", "market", "direct_low", "updated_at"}, tcgPriceRows(g)},
		{"cm_prices", []string{"game", "ordinal", "card_id", "variant",
			"avg", "low", "trend", "avg1", "avg7", "avg30", "updated_at"}, cmPriceRows(g)},
	}
	for _, c := range copies {
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{c.table}, c.cols, c.rows); err != nil {
			return fmt.Errorf("copy into %s: %w", c.table, err)
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

// The row sources below reuse one values slice: CopyFrom encodes a row before
// it asks for the next.

func setRows(g *catalog.GameCatalog) pgx.CopyFromSource {
	vals := make([]any, 9)
	i := 0
	return pgx.CopyFromFunc(func() ([]any, error) {
		if i == len(g.Sets) {
			return nil, nil
		}
		s := &g.Sets[i]
		i++
		vals[0], vals[1], vals[2], vals[3], vals[4] = g.Game, s.ID, sqlrow.String(s.Code), sqlrow.String(s.Name), sqlrow.String(s.Language)
		vals[5], vals[6], vals[7], vals[8] = sqlrow.String(s.ReleaseDate), sqlrow.Int(s.TCGCategoryID), sqlrow.Int(s.TCGGroupID), sqlrow.Int(s.CMExpansionID)
		return vals, nil
	})
}

func cardRows(g *catalog.GameCatalog) pgx.CopyFromSource {
	vals := make([]any, 20)
	var buf []byte
	i := 0
	return pgx.CopyFromFunc(func() ([]any, error) {
		if i == len(g.Cards) {
			return nil, nil
		}
		c := &g.Cards[i]
		buf = sqlrow.AppendExtra(buf[:0], c.Extra)
		extra := string(buf)
		buf = sqlrow.AppendStrings(buf[:0], c.Variants)
		variants := string(buf)
		vals[0], vals[1], vals[2], vals[3], vals[4] = g.Game, c.ID, int64(i), sqlrow.String(c.CMID), sqlrow.String(c.SetID)
		vals[5], vals[6], vals[7], vals[8] = sqlrow.Int(c.TCGProductID), sqlrow.Int(c.CMProductID), sqlrow.String(c.Name), sqlrow.String(c.CleanName)
		vals[9], vals[10], vals[11], vals[12] = sqlrow.String(c.CardNumber), sqlrow.String(c.Rarity), sqlrow.String(c.CardType), sqlrow.String(c.ProductType)
		vals[13], vals[14], vals[15], vals[16] = sqlrow.String(c.CardText), extra, variants, int64(c.ImageCount)
		vals[17], vals[18], vals[19] = sqlrow.String(c.TCGURL), sqlrow.String(c.CMProductName), sqlrow.String(c.CMProductURL)
		i++
		return vals, nil
	})
}

func tcgPriceRows(g *catalog.GameCatalog) pgx.CopyFromSource {
	vals := make([]any, 10)
	card, price, ordinal := 0, 0, int64(0)
	return pgx.CopyFromFunc(func() ([]any, error) {
		for card < len(g.Cards) && price == len(g.Cards[card].TCGPrices) {
			card, price = card+1, 0
		}
		if card == len(g.Cards) {
			return nil, nil
		}
		c := &g.Cards[card]
		p := &c.TCGPrices[price]
		vals[0], vals[1], vals[2], vals[3] = g.Game, ordinal, c.ID, p.SubType
		vals[4], vals[5], vals[6], vals[7], vals[8] = sqlrow.Money(p.Low), sqlrow.Money(p.Mid), sqlrow.Money(p.High), sqlrow.Money(p.Market), sqlrow.Money(p.DirectLow)
		vals[9] = nullTime(p.UpdatedAt)
		price, ordinal = price+1, ordinal+1
		return vals, nil
	})
}

func cmPriceRows(g *catalog.GameCatalog) pgx.CopyFromSource {
	vals := make([]any, 11)
	card, price, ordinal := 0, 0, int64(0)
	return pgx.CopyFromFunc(func() ([]any, error) {
		for card < len(g.Cards) && price == len(g.Cards[card].CMPrices) {
			card, price = card+1, 0
		}
		if card == len(g.Cards) {
			return nil, nil
		}
		c := &g.Cards[card]
		p := &c.CMPrices[price]
		vals[0], vals[1], vals[2], vals[3] = g.Game, ordinal, c.ID, p.Variant
		vals[4], vals[5], vals[6], vals[7], vals[8], vals[9] = sqlrow.Money(p.Avg), sqlrow.Money(p.Low), sqlrow.Money(p.Trend), sqlrow.Money(p.Avg1), sqlrow.Money(p.Avg7), sqlrow.Money(p.Avg30)
		vals[10] = nullTime(p.UpdatedAt)
		price, ordinal = price+1, ordinal+1
		return vals, nil
	})
}

// nullTime stores the zero time (never set) as NULL.
func nullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return sqlrow.Time(t)
}

// PriceHistory returns the price points of one card, oldest day first (then
// by market and finish). TCGplayer points carry 5 values, Cardmarket ones 6.
func (db *DB) PriceHistory(ctx context.Context, game, cardID string) ([]store.PricePoint, error) {
	rows, err := db.pool.Query(ctx, `SELECT market, finish, day, v1, v2, v3, v4, v5, v6 FROM price_points
WHERE game = $1 AND card_id = $2 ORDER BY day, market, finish`, game, cardID)
	if err != nil {
		return nil, fmt.Errorf("postgres: price history: %w", err)
	}
	defer rows.Close()
	var points []store.PricePoint
	for rows.Next() {
		p := store.PricePoint{Game: game, CardID: cardID}
		var (
			day time.Time
			v   [6]pgtype.Int8
		)
		if err := rows.Scan(&p.Market, &p.Finish, &day, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]); err != nil {
			return nil, fmt.Errorf("postgres: price history: %w", err)
		}
		p.Day = day.Format(time.DateOnly)
		n := 6
		if p.Market == store.MarketTCG {
			n = 5
		}
		p.Values = make([]catalog.Money, n)
		for i := range n {
			p.Values[i] = money(v[i])
		}
		points = append(points, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres: price history: %w", err)
	}
	return points, nil
}

func money(n pgtype.Int8) catalog.Money { return catalog.Money{Cents: n.Int64, OK: n.Valid} }
