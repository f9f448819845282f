package sqlrow

import (
	"fmt"
	"time"

	"github.com/cardcat/cardcat/internal/catalog"
)

// Table is a catalogue table that a replace writes game by game, with the
// columns of its rows.
type Table struct {
	Name    string
	Columns []string
}

// Tables are the catalogue tables, in the order a replace writes them;
// GameRows gives their rows in the same order.
var Tables = []Table{
	{"sets", []string{"game", "set_id", "code", "name", "language", "release_date",
		"tcg_category_id", "tcg_group_id", "cm_expansion_id"}},
	{"cards", []string{"game", "id", "ordinal", "cm_id", "set_id", "tcg_product_id", "cm_product_id",
		"name", "clean_name", "card_number", "rarity", "card_type", "product_type", "card_text",
		"extra", "variants", "image_count", "tcg_url", "cm_product_name", "cm_product_url", "cm_match"}},
	{"tcg_prices", []string{"game", "ordinal", "card_id", "sub_type",
		"low", "mid", "high", "market", "direct_low", "updated_at"}},
	{"cm_prices", []string{"game", "ordinal", "card_id", "variant",
		"avg", "low", "trend", "avg1", "avg7", "avg30", "updated_at"}},
}

// GameRows returns the rows of game g in each of Tables, as column values
// (String, Int, Money, ...). timeValue is the dialect's value of a time
// column; a zero time is NULL without asking it.
func GameRows(g *catalog.GameCatalog, timeValue func(time.Time) any) []*TableRows {
	nullTime := func(t time.Time) any {
		if t.IsZero() {
			return nil
		}
		return timeValue(t)
	}
	return []*TableRows{
		newRows(Tables[0], setRows(g)),
		newRows(Tables[1], cardRows(g)),
		newRows(Tables[2], tcgPriceRows(g, nullTime)),
		newRows(Tables[3], cmPriceRows(g, nullTime)),
	}
}

// TableRows are the rows of one game in one table, in write order. They are a
// pgx.CopyFromSource, and a database/sql store reads them the same way:
//
//	for rows.Next() {
//		values, _ := rows.Values()
//		...
//	}
//
// Values returns the same slice for every row: a row must be written before
// the next is read.
type TableRows struct {
	table Table
	vals  []any
	next  appendRow
}

// appendRow appends the values of the next row to vals, and returns nil
// after the last row.
type appendRow func(vals []any) []any

func newRows(t Table, next appendRow) *TableRows {
	return &TableRows{table: t, vals: make([]any, 0, len(t.Columns)), next: next}
}

// Next moves to the next row, and reports whether there is one.
func (r *TableRows) Next() bool {
	vals := r.next(r.vals[:0])
	if vals == nil {
		return false
	}
	if len(vals) != len(r.table.Columns) {
		panic(fmt.Sprintf("sqlrow: %s: %d values for %d columns", r.table.Name, len(vals), len(r.table.Columns)))
	}
	r.vals = vals
	return true
}

// Values returns the values of the current row, in the order of the table's
// columns.
func (r *TableRows) Values() ([]any, error) { return r.vals, nil }

// Err is nil: the rows come from memory.
func (r *TableRows) Err() error { return nil }

func setRows(g *catalog.GameCatalog) appendRow {
	i := 0
	return func(vals []any) []any {
		if i == len(g.Sets) {
			return nil
		}
		s := &g.Sets[i]
		i++
		return append(vals, g.Game, s.ID, String(s.Code), String(s.Name), String(s.Language), String(s.ReleaseDate),
			Int(s.TCGCategoryID), Int(s.TCGGroupID), Int(s.CMExpansionID))
	}
}

func cardRows(g *catalog.GameCatalog) appendRow {
	var buf []byte // scratch for extra and variants
	i := 0
	return func(vals []any) []any {
		if i == len(g.Cards) {
			return nil
		}
		c := &g.Cards[i]
		buf = AppendExtra(buf[:0], c.Extra)
		extra := string(buf)
		buf = AppendStrings(buf[:0], c.Variants)
		variants := string(buf)
		vals = append(vals, g.Game, c.ID, int64(i), String(c.CMID), String(c.SetID),
			Int(c.TCGProductID), Int(c.CMProductID), String(c.Name), String(c.CleanName),
			String(c.CardNumber), String(c.Rarity), String(c.CardType), String(c.ProductType),
			String(c.CardText), extra, variants, int64(c.ImageCount), String(c.TCGURL),
			String(c.CMProductName), String(c.CMProductURL), String(c.CMMatch))
		i++
		return vals
	}
}

func tcgPriceRows(g *catalog.GameCatalog, nullTime func(time.Time) any) appendRow {
	return priceRows(g, func(c *catalog.Card) int { return len(c.TCGPrices) },
		func(vals []any, c *catalog.Card, j int) []any {
			p := &c.TCGPrices[j]
			return append(vals, p.SubType, Money(p.Low), Money(p.Mid), Money(p.High), Money(p.Market),
				Money(p.DirectLow), nullTime(p.UpdatedAt))
		})
}

func cmPriceRows(g *catalog.GameCatalog, nullTime func(time.Time) any) appendRow {
	return priceRows(g, func(c *catalog.Card) int { return len(c.CMPrices) },
		func(vals []any, c *catalog.Card, j int) []any {
			p := &c.CMPrices[j]
			return append(vals, p.Variant, Money(p.Avg), Money(p.Low), Money(p.Trend), Money(p.Avg1),
				Money(p.Avg7), Money(p.Avg30), nullTime(p.UpdatedAt))
		})
}

// priceRows walks the prices of g's cards, card by card, finish by finish,
// numbering them in that order (the ordinal column): count says how many a
// card has, and appendPrice appends the values of its price j after the
// game, the ordinal and the card's id.
func priceRows(g *catalog.GameCatalog, count func(*catalog.Card) int, appendPrice func(vals []any, c *catalog.Card, j int) []any) appendRow {
	card, j, ordinal := 0, 0, int64(0)
	return func(vals []any) []any {
		for card < len(g.Cards) && j == count(&g.Cards[card]) {
			card, j = card+1, 0
		}
		if card == len(g.Cards) {
			return nil
		}
		c := &g.Cards[card]
		vals = appendPrice(append(vals, g.Game, ordinal, c.ID), c, j)
		j, ordinal = j+1, ordinal+1
		return vals
	}
}
