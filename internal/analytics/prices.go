package analytics

import (
	"bytes"
	"strings"
	"sync"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/jsonw"
)

// The prices-by-set bodies are rendered from the snapshot's card records
// (catalog.CardPrices) with the renderers of the card detail's price
// elements (catalog.AppendTCGPriceBlock, AppendCMPriceBlock), so a row shows
// a price exactly as the card detail does, and the snapshot's prices are the
// only copy a version keeps.

// priceRow is one row of prices by set: one finish of one card, with the
// TCGplayer and the Cardmarket price that describe it (either may be nil).
type priceRow struct {
	variant string
	t       *catalog.TCGPrice
	c       *catalog.CMPrice
}

// cmIndex returns the first Cardmarket finish of that name
// (case-insensitive), or -1. CardPrices lists priced finishes only.
func cmIndex(ps []catalog.CMPrice, name string) int {
	for i := range ps {
		if strings.EqualFold(ps[i].Variant, name) {
			return i
		}
	}
	return -1
}

// joinFinishes lists a card's rows. Every priced TCGplayer finish is a row,
// in upstream order. Cardmarket normal joins the finish named Normal and
// Cardmarket foil the one named Foil (case-insensitively), or Holofoil when
// the card has no Foil. A priced Cardmarket finish that joins nothing is a
// row of its own after them, named in TCGplayer's spelling ("Normal",
// "Foil") so that one finish has one name in the variant column.
func joinFinishes(rows []priceRow, p *catalog.CardPrices) []priceRow {
	first := len(rows)
	for i := range p.TCG {
		if f := &p.TCG[i]; tcgPriced(f) {
			rows = append(rows, priceRow{variant: f.SubType, t: f})
		}
	}
	for _, v := range [...]string{catalog.CMNormal, catalog.CMFoil} {
		ci := cmIndex(p.CM, v)
		if ci < 0 {
			continue
		}
		i, name := tcgFinish(p.TCG, tcgNormal), tcgNormal
		if v == catalog.CMFoil {
			if i, name = tcgFinish(p.TCG, tcgFoil), tcgFoil; i < 0 {
				i = tcgFinish(p.TCG, tcgHolofoil)
			}
		}
		if i < 0 {
			rows = append(rows, priceRow{variant: name, c: &p.CM[ci]})
			continue
		}
		for r := first; r < len(rows); r++ {
			if rows[r].t == &p.TCG[i] {
				rows[r].c = &p.CM[ci]
				break
			}
		}
	}
	return rows
}

// renderPrices renders a set's prices for one source. Rows are in the set
// listing's order (sealed products last), every product included; a product
// without any price has no row. source=tcg keeps the rows with a TCGplayer
// price, source=cm those with a Cardmarket price, the other block null.
func renderPrices(gs *catalog.GameSnapshot, set *catalog.ListedSet, src int) []byte {
	sc := scratch.Get().(*pricesScratch)
	defer sc.release()
	b := append(sc.buf[:0], `{"success":true,"source":"`...)
	b = append(b, [...]string{SourceBoth, SourceTCG, SourceCM}[src]...)
	b = append(b, `","set_code":`...)
	b = appendNullableString(b, set.Code)
	b = append(b, `,"set_id":`...)
	b = jsonw.AppendString(b, set.ID)
	b = append(b, `,"data":[`...)
	card, rows, n := &sc.card, sc.rows[:0], 0
	first, end := set.Cards()
	for ref := first; ref < end; ref++ {
		gs.CardPrices(ref, card)
		rows = joinFinishes(rows[:0], card)
		for i := range rows {
			row := &rows[i]
			if src == srcTCG && row.t == nil || src == srcCM && row.c == nil {
				continue
			}
			if n > 0 {
				b = append(b, ',')
			}
			b = appendPriceRow(b, card, row, src)
			n++
		}
	}
	b = append(b, `],"total":`...)
	b = appendInt(b, n)
	b = append(b, '}')
	sc.rows = rows
	if cap(b) <= maxScratch {
		sc.buf = b
	}
	return bytes.Clone(b)
}

// pricesScratch is the reusable state of a prices rendering: the body is
// rendered into buf and kept as an exact-size copy.
type pricesScratch struct {
	buf  []byte
	card catalog.CardPrices
	rows []priceRow
}

// release returns the scratch to the pool holding no reference into the
// snapshot, so that a pooled scratch never keeps an old version's strings
// alive.
func (sc *pricesScratch) release() {
	clear(sc.card.TCG[:cap(sc.card.TCG)])
	clear(sc.card.CM[:cap(sc.card.CM)])
	clear(sc.rows[:cap(sc.rows)])
	sc.card = catalog.CardPrices{TCG: sc.card.TCG[:0], CM: sc.card.CM[:0]}
	scratch.Put(sc)
}

// maxScratch bounds the buffer a pricesScratch keeps between renderings.
const maxScratch = 4 << 20

var scratch = sync.Pool{New: func() any { return &pricesScratch{buf: make([]byte, 0, 64<<10)} }}

// appendPriceRow appends one row; a row's blocks carry exactly the spec's
// fields (market_t has no sub_type_name: that is the row's variant).
func appendPriceRow(b []byte, c *catalog.CardPrices, row *priceRow, src int) []byte {
	b = append(b, `{"id":`...)
	b = jsonw.AppendString(b, c.ID)
	b = append(b, `,"card_number":`...)
	b = appendNullableString(b, c.CardNumber)
	b = append(b, `,"name":`...)
	b = jsonw.AppendString(b, c.Name)
	b = append(b, `,"product_type":`...)
	b = appendNullableString(b, c.ProductType)
	b = append(b, `,"variant":`...)
	b = jsonw.AppendString(b, row.variant)
	b = append(b, `,"market_t":`...)
	if row.t == nil || src == srcCM {
		b = append(b, "null"...)
	} else {
		b = catalog.AppendTCGPriceBlock(b, row.t)
	}
	b = append(b, `,"market_c":`...)
	if row.c == nil || src == srcTCG {
		return append(b, "null}"...)
	}
	b = catalog.AppendCMPriceBlock(b, row.c)
	return append(b, '}')
}
