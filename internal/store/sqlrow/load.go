package sqlrow

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/store"
)

// The queries of this file are the same in every dialect.

// CatalogVersion returns the current catalogue version, 0 when none.
func CatalogVersion(ctx context.Context, r Reader) (int64, error) {
	var v int64
	_, err := scanOne(ctx, r, `SELECT coalesce(max(version), 0) FROM catalog_versions`, nil, &v)
	return v, err
}

// LatestVersion returns the current version's information, store.ErrNotFound
// when no catalogue was written.
func LatestVersion(ctx context.Context, r Reader) (store.VersionInfo, error) {
	var (
		vi      store.VersionInfo
		created sql.NullTime
	)
	found, err := scanOne(ctx, r, `SELECT version, created_at, report FROM catalog_versions ORDER BY version DESC LIMIT 1`, nil,
		&vi.Version, r.NullTime(&created), &vi.Report)
	if err != nil {
		return store.VersionInfo{}, err
	}
	if !found {
		return store.VersionInfo{}, store.ErrNotFound
	}
	vi.CreatedAt = created.Time
	return vi, nil
}

// LoadCatalog returns the current catalogue of every game: games by code,
// sets by id, cards and their prices in the order ReplaceCatalog was given
// them. An empty store gives an empty catalogue of version 0. r must read
// one snapshot, whatever an ingest commits meanwhile.
func LoadCatalog(ctx context.Context, r Reader) (*catalog.Catalog, error) {
	cat := &catalog.Catalog{}
	var created sql.NullTime
	found, err := scanOne(ctx, r, `SELECT version, created_at FROM catalog_versions ORDER BY version DESC LIMIT 1`, nil,
		&cat.Version, r.NullTime(&created))
	if err != nil {
		return nil, err
	}
	if !found {
		return cat, nil
	}
	cat.CreatedAt = created.Time

	l := loader{r: r}
	for _, step := range []func(context.Context) error{l.reserve, l.sets, l.cards} {
		if err := step(ctx); err != nil {
			return nil, err
		}
	}
	cat.Games = l.games.List()
	if err := l.tcgPrices(ctx, NewCursor(cat.Games)); err != nil {
		return nil, err
	}
	if err := l.cmPrices(ctx, NewCursor(cat.Games)); err != nil {
		return nil, err
	}
	return cat, nil
}

type loader struct {
	r     Reader
	games Games
	in    Interner
}

// each runs query and, for each row, scans it into dest and calls use; what
// names the rows in errors.
func (l *loader) each(ctx context.Context, what, query string, dest []any, use func() error) error {
	if err := each(ctx, l.r, query, nil, dest, use); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// reserve sizes each game's card slice, so that a million cards are not
// copied over and over while they arrive.
func (l *loader) reserve(ctx context.Context) error {
	var (
		game string
		n    int
	)
	return l.each(ctx, "count cards", `SELECT game, count(*) FROM cards GROUP BY game`, []any{&game, &n}, func() error {
		l.games.Game(l.in.String(game)).Cards = make([]catalog.Card, 0, n)
		return nil
	})
}

func (l *loader) sets(ctx context.Context) error {
	const q = `SELECT game, set_id, code, name, language, release_date, tcg_category_id, tcg_group_id, cm_expansion_id
FROM sets ORDER BY game, set_id`
	var (
		game, id                  string
		code, name, lang, release sql.NullString
		category, group, exp      sql.NullInt64
	)
	str, num := l.r.NullString, l.r.NullInt64
	dest := []any{&game, &id, str(&code), str(&name), str(&lang), str(&release), num(&category), num(&group), num(&exp)}
	return l.each(ctx, "sets", q, dest, func() error {
		s := catalog.Set{
			Game: l.in.String(game), ID: id, Code: code.String, Name: name.String,
			Language: l.in.String(lang.String), ReleaseDate: release.String,
			TCGCategoryID: int(category.Int64), TCGGroupID: int(group.Int64), CMExpansionID: int(exp.Int64),
		}
		g := l.games.Game(s.Game)
		g.Sets = append(g.Sets, s)
		return nil
	})
}

func (l *loader) cards(ctx context.Context) error {
	const q = `SELECT game, id, cm_id, set_id, tcg_product_id, cm_product_id, name, clean_name, card_number, rarity,
	card_type, product_type, card_text, extra, variants, image_count, tcg_url, cm_product_name, cm_product_url, cm_match
FROM cards ORDER BY game, ordinal`
	var (
		game, id, extra, variants                    string
		cmID, setID, name, cleanName, number, rarity sql.NullString
		cardType, productType, text, tcgURL, cmName  sql.NullString
		cmURL, cmMatch                               sql.NullString
		tcgProduct, cmProduct                        sql.NullInt64
		images                                       int
	)
	str, num := l.r.NullString, l.r.NullInt64
	dest := []any{&game, &id, str(&cmID), str(&setID), num(&tcgProduct), num(&cmProduct), str(&name), str(&cleanName),
		str(&number), str(&rarity), str(&cardType), str(&productType), str(&text), &extra, &variants, &images,
		str(&tcgURL), str(&cmName), str(&cmURL), str(&cmMatch)}
	return l.each(ctx, "cards", q, dest, func() error {
		c := catalog.Card{
			Game: l.in.String(game), ID: id, CMID: cmID.String, SetID: l.in.String(setID.String),
			TCGProductID: int(tcgProduct.Int64), CMProductID: int(cmProduct.Int64),
			Name: name.String, CleanName: cleanName.String, CardNumber: number.String,
			Rarity: l.in.String(rarity.String), CardType: l.in.String(cardType.String),
			ProductType: l.in.String(productType.String), CardText: text.String, ImageCount: images,
			TCGURL: tcgURL.String, CMProductName: cmName.String, CMProductURL: cmURL.String,
			CMMatch: l.in.String(cmMatch.String),
		}
		var err error
		if c.Extra, err = ParseExtra(extra); err != nil {
			return fmt.Errorf("card %s: %w", id, err)
		}
		if c.Variants, err = ParseStrings(variants); err != nil {
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

func (l *loader) tcgPrices(ctx context.Context, cur *Cursor) error {
	const q = `SELECT game, card_id, sub_type, low, mid, high, market, direct_low, updated_at
FROM tcg_prices ORDER BY game, ordinal`
	var (
		game, cardID, subType          string
		low, mid, high, market, direct sql.NullInt64
		updated                        sql.NullTime
	)
	num := l.r.NullInt64
	dest := []any{&game, &cardID, &subType, num(&low), num(&mid), num(&high), num(&market), num(&direct), l.r.NullTime(&updated)}
	return l.each(ctx, "TCGplayer prices", q, dest, func() error {
		c, err := cur.Card(game, cardID)
		if err != nil {
			return err
		}
		c.TCGPrices = append(c.TCGPrices, catalog.TCGPrice{
			SubType: l.in.String(subType), Low: money(low), Mid: money(mid), High: money(high),
			Market: money(market), DirectLow: money(direct), UpdatedAt: updated.Time,
		})
		return nil
	})
}

func (l *loader) cmPrices(ctx context.Context, cur *Cursor) error {
	const q = `SELECT game, card_id, variant, avg, low, trend, avg1, avg7, avg30, updated_at
FROM cm_prices ORDER BY game, ordinal`
	var (
		game, cardID, variant              string
		avg, low, trend, avg1, avg7, avg30 sql.NullInt64
		updated                            sql.NullTime
	)
	num := l.r.NullInt64
	dest := []any{&game, &cardID, &variant, num(&avg), num(&low), num(&trend), num(&avg1), num(&avg7), num(&avg30),
		l.r.NullTime(&updated)}
	return l.each(ctx, "Cardmarket prices", q, dest, func() error {
		c, err := cur.Card(game, cardID)
		if err != nil {
			return err
		}
		c.CMPrices = append(c.CMPrices, catalog.CMPrice{
			Variant: l.in.String(variant), Avg: money(avg), Low: money(low), Trend: money(trend),
			Avg1: money(avg1), Avg7: money(avg7), Avg30: money(avg30), UpdatedAt: updated.Time,
		})
		return nil
	})
}

func money(n sql.NullInt64) catalog.Money { return catalog.Money{Cents: n.Int64, OK: n.Valid} }
