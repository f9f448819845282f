package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/store/sqlrow"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// LoadCatalog returns the current catalogue of every game, read from one
// snapshot: games by code, sets by id, cards and their prices in the order
// ReplaceCatalog was given them. An empty store gives an empty catalogue of
// version 0.
func (db *DB) LoadCatalog(ctx context.Context) (*catalog.Catalog, error) {
	var cat *catalog.Catalog
	// REPEATABLE READ: every query of the load sees the same snapshot, whatever
	// an ingest commits meanwhile.
	opts := pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}
	err := pgx.BeginTxFunc(ctx, db.pool, opts, func(tx pgx.Tx) error {
		var err error
		cat, err = load(ctx, tx)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: load catalog: %w", err)
	}
	return cat, nil
}

func load(ctx context.Context, tx pgx.Tx) (*catalog.Catalog, error) {
	cat := &catalog.Catalog{}
	err := tx.QueryRow(ctx, `SELECT version, created_at FROM catalog_versions ORDER BY version DESC LIMIT 1`).
		Scan(&cat.Version, &cat.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return cat, nil
	}
	if err != nil {
		return nil, err
	}
	cat.CreatedAt = cat.CreatedAt.UTC()

	l := loader{tx: tx}
	for _, step := range []func(context.Context) error{l.reserve, l.sets, l.cards} {
		if err := step(ctx); err != nil {
			return nil, err
		}
	}
	cat.Games = l.games.List()
	if err := l.tcgPrices(ctx, sqlrow.NewCursor(cat.Games)); err != nil {
		return nil, err
	}
	if err := l.cmPrices(ctx, sqlrow.NewCursor(cat.Games)); err != nil {
		return nil, err
	}
	return cat, nil
}

type loader struct {
	tx    pgx.Tx
	games sqlrow.Games
	in    sqlrow.Interner
}

// each runs query and calls scan for every row.
func (l *loader) each(ctx context.Context, query string, scan func(pgx.Rows) error) error {
	rows, err := l.tx.Query(ctx, query)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// reserve sizes each game's card slice, so that a million cards are not
// copied over and over while they arrive.
func (l *loader) reserve(ctx context.Context) error {
	return l.each(ctx, `SELECT game, count(*) FROM cards GROUP BY game`, func(rows pgx.Rows) error {
		var (
			game string
			n    int
		)
		if err := rows.Scan(&game, &n); err != nil {
			return fmt.Errorf("count cards: %w", err)
		}
		l.games.Game(l.in.String(game)).Cards = make([]catalog.Card, 0, n)
		return nil
	})
}

func (l *loader) sets(ctx context.Context) error {
	const q = `SELECT game, set_id, code, name, language, release_date, tcg_category_id, tcg_group_id, cm_expansion_id
FROM sets ORDER BY game, set_id`
	return l.each(ctx, q, func(rows pgx.Rows) error {
		var (
			s                         catalog.Set
			code, name, lang, release pgtype.Text
			category, group, exp      pgtype.Int4
		)
		if err := rows.Scan(&s.Game, &s.ID, &code, &name, &lang, &release, &category, &group, &exp); err != nil {
			return fmt.Errorf("sets: %w", err)
		}
		s.Game = l.in.String(s.Game)
		s.Code, s.Name, s.Language, s.ReleaseDate = code.String, name.String, l.in.String(lang.String), release.String
		s.TCGCategoryID, s.TCGGroupID, s.CMExpansionID = int(category.Int32), int(group.Int32), int(exp.Int32)
		g := l.games.Game(s.Game)
		g.Sets = append(g.Sets, s)
		return nil
	})
}

func (l *loader) cards(ctx context.Context) error {
	const q = `SELECT game, id, cm_id, set_id, tcg_product_id, cm_product_id, name, clean_name, card_number, rarity,
	card_type, product_type, card_text, extra, variants, image_count, tcg_url, cm_product_name, cm_product_url
FROM cards ORDER BY game, ordinal`
	return l.each(ctx, q, func(rows pgx.Rows) error {
		var (
			game, id, extra, variants                    string
			cmID, setID, name, cleanName, number, rarity pgtype.Text
			cardType, productType, text, tcgURL, cmName  pgtype.Text
			cmURL                                        pgtype.Text
			tcgProduct, cmProduct                        pgtype.Int4
			images                                       int32
		)
		err := rows.Scan(&game, &id, &cmID, &setID, &tcgProduct, &cmProduct, &name, &cleanName, &number, &rarity,
			&cardType, &productType, &text, &extra, &variants, &images, &tcgURL, &cmName, &cmURL)
		if err != nil {
			return fmt.Errorf("cards: %w", err)
		}
		c := catalog.Card{
			Game: l.in.String(game), ID: id, CMID: cmID.String, SetID: l.in.String(setID.String),
			TCGProductID: int(tcgProduct.Int32), CMProductID: int(cmProduct.Int32),
			Name: name.String, CleanName: cleanName.String, CardNumber: number.String,
			Rarity: l.in.String(rarity.String), CardType: l.in.String(cardType.String),
			ProductType: l.in.String(productType.String), CardText: text.String, ImageCount: int(images),
			TCGURL: tcgURL.String, CMProductName: cmName.String, CMProductURL: cmURL.String,
		}
		if c.Extra, err = sqlrow.ParseExtra(extra); err != nil {
			return fmt.Errorf("card %s: %w", id, err)
		}
		if c.Variants, err = sqlrow.ParseStrings(variants); err != nil {
			return fmt.Errorf("card %s: %w", id, err)
		}
		for i, v := range c.Variants {
			c.Variants[i] = l.in.String(v)
		}
		g := l.games.Game(c.Game)
		g.Cards = append(g.Cards, c)
		return nil
	})
}

func (l *loader) tcgPrices(ctx context.Context, cur *sqlrow.Cursor) error {
	const q = `SELECT game, card_id, sub_type, low, mid, high, market, direct_low, updated_at
FROM tcg_prices ORDER BY game, ordinal`
	return l.each(ctx, q, func(rows pgx.Rows) error {
		var (
			game, cardID, subType          string
			low, mid, high, market, direct pgtype.Int8
			updated                        pgtype.Timestamptz
		)
		if err := rows.Scan(&game, &cardID, &subType, &low, &mid, &high, &market, &direct, &updated); err != nil {
			return fmt.Errorf("TCGplayer prices: %w", err)
		}
		c, err := cur.Card(game, cardID)
		if err != nil {
			return err
		}
		c.TCGPrices = append(c.TCGPrices, catalog.TCGPrice{
			SubType: l.in.String(subType), Low: money(low), Mid: money(mid), High: money(high),
			Market: money(market), DirectLow: money(direct), UpdatedAt: timeOf(updated),
		})
		return nil
	})
}

func (l *loader) cmPrices(ctx context.Context, cur *sqlrow.Cursor) error {
	const q = `SELECT game, card_id, variant, avg, low, trend, avg1, avg7, avg30, updated_at
FROM cm_prices ORDER BY game, ordinal`
	return l.each(ctx, q, func(rows pgx.Rows) error {
		var (
			game, cardID, variant              string
			avg, low, trend, avg1, avg7, avg30 pgtype.Int8
			updated                            pgtype.Timestamptz
		)
		if err := rows.Scan(&game, &cardID, &variant, &avg, &low, &trend, &avg1, &avg7, &avg30, &updated); err != nil {
			return fmt.Errorf("Cardmarket prices: %w", err)
		}
		c, err := cur.Card(game, cardID)
		if err != nil {
			return err
		}
		c.CMPrices = append(c.CMPrices, catalog.CMPrice{
			Variant: l.in.String(variant), Avg: money(avg), Low: money(low), Trend: money(trend),
			Avg1: money(avg1), Avg7: money(avg7), Avg30: money(avg30), UpdatedAt: timeOf(updated),
		})
		return nil
	})
}

func timeOf(t pgtype.Timestamptz) time.Time {
	if !t.Valid {
		return time.Time{}
	}
	return t.Time.UTC()
}
