package analytics

import (
	"github.com/cardcat/cardcat/internal/catalog"
)

// priceRow is one row of prices by set: one finish of one card, with the
// TCGplayer and the Cardmarket price that describe it (either may be nil).
type priceRow struct {
	variant string
	t       *catalog.TCGPrice
	c       *catalog.CMPrice
}

// joinFinishes lists a card's rows. Every priced TCGplayer finish is a row,
// in upstream order. Cardmarket normal joins the finish named Normal and
// Cardmarket foil the one named Foil (case-insensitively), or Holofoil when
// the card has no Foil. A priced Cardmarket finish that joins nothing is a
// row of its own after them, named in TCGplayer's spelling ("Normal",
// "Foil") so that one finish has one name in the variant column.
func joinFinishes(rows []priceRow, c *catalog.Card) []priceRow {
	first := len(rows)
	for i := range c.TCGPrices {
		if p := &c.TCGPrices[i]; tcgPriced(p) {
			rows = append(rows, priceRow{variant: p.SubType, t: p})
		}
	}
	for _, v := range [...]string{catalog.CMNormal, catalog.CMFoil} {
		cp := cmFinish(c, v)
		if cp == nil {
			continue
		}
		var i int
		name := tcgNormal
		if v == catalog.CMNormal {
			i = tcgFinish(c, tcgNormal)
		} else {
			i, name = tcgFoilFinish(c), tcgFoil
		}
		if i < 0 {
			rows = append(rows, priceRow{variant: name, c: cp})
			continue
		}
		for r := first; r < len(rows); r++ {
			if rows[r].t == &c.TCGPrices[i] {
				rows[r].c = cp
				break
			}
		}
	}
	return rows
}

// pricesBySet renders the three bodies (both, tcg, cm) of a set's prices.
// Rows are in the set listing's order (sealed products last), every product
// included; a product without any price has no row. source=tcg keeps the
// rows with a TCGplayer price, source=cm those with a Cardmarket price, the
// other block null.
func (r *renderer) pricesBySet(s *catalog.Set, cards []*catalog.Card) [numSources][]byte {
	var counts [numSources]int
	for src := range r.rows {
		r.rows[src] = r.rows[src][:0]
	}
	var rows []priceRow
	for _, c := range cards {
		rows = joinFinishes(rows[:0], c)
		for _, row := range rows {
			// Render the row once into the both-list, then copy its parts
			// into the other two.
			both := r.rows[srcBoth]
			if counts[srcBoth] > 0 {
				both = append(both, ',')
			}
			start := len(both)
			both = appendRowHead(both, c, row.variant)
			head := len(both)
			both = append(both, `,"market_t":`...)
			both = appendTCGBlock(both, row.t)
			tEnd := len(both)
			both = append(both, `,"market_c":`...)
			both = appendCMBlock(both, row.c)
			both = append(both, '}')
			r.rows[srcBoth] = both
			counts[srcBoth]++
			if row.t != nil {
				r.rows[srcTCG] = appendRow(r.rows[srcTCG], counts[srcTCG], both[start:tEnd])
				r.rows[srcTCG] = append(r.rows[srcTCG], `,"market_c":null}`...)
				counts[srcTCG]++
			}
			if row.c != nil {
				r.rows[srcCM] = appendRow(r.rows[srcCM], counts[srcCM], both[start:head])
				r.rows[srcCM] = append(r.rows[srcCM], `,"market_t":null`...)
				r.rows[srcCM] = append(r.rows[srcCM], both[tEnd:]...)
				counts[srcCM]++
			}
		}
	}
	var out [numSources][]byte
	for src, name := range [...]string{SourceBoth, SourceTCG, SourceCM} {
		head := append(r.buf[:0], `{"success":true,"source":`...)
		head = catalog.AppendJSONString(head, name)
		head = append(head, `,"set_code":`...)
		head = appendNullableString(head, s.Code)
		head = append(head, `,"set_id":`...)
		head = catalog.AppendJSONString(head, s.ID)
		head = append(head, `,"data":[`...)
		r.buf = head
		tail := appendInt([]byte(`],"total":`), counts[src])
		b := make([]byte, 0, len(head)+len(r.rows[src])+len(tail)+1)
		b = append(b, head...)
		b = append(b, r.rows[src]...)
		b = append(b, tail...)
		out[src] = append(b, '}')
	}
	return out
}

func appendRow(b []byte, n int, row []byte) []byte {
	if n > 0 {
		b = append(b, ',')
	}
	return append(b, row...)
}

// appendRowHead appends a row up to and without its price blocks.
func appendRowHead(b []byte, c *catalog.Card, variant string) []byte {
	b = append(b, `{"id":`...)
	b = catalog.AppendJSONString(b, c.ID)
	b = append(b, `,"card_number":`...)
	b = appendNullableString(b, c.CardNumber)
	b = append(b, `,"name":`...)
	b = catalog.AppendJSONString(b, c.Name)
	b = append(b, `,"product_type":`...)
	b = appendNullableString(b, c.ProductType)
	b = append(b, `,"variant":`...)
	return catalog.AppendJSONString(b, variant)
}

func appendTCGBlock(b []byte, p *catalog.TCGPrice) []byte {
	if p == nil {
		return append(b, "null"...)
	}
	b = append(b, `{"low_price":`...)
	b = appendMoney(b, p.Low)
	b = append(b, `,"mid_price":`...)
	b = appendMoney(b, p.Mid)
	b = append(b, `,"high_price":`...)
	b = appendMoney(b, p.High)
	b = append(b, `,"market_price":`...)
	b = appendMoney(b, p.Market)
	b = append(b, `,"direct_low_price":`...)
	b = appendMoney(b, p.DirectLow)
	b = append(b, `,"updated_at":`...)
	b = appendTime(b, p.UpdatedAt)
	return append(b, '}')
}

func appendCMBlock(b []byte, p *catalog.CMPrice) []byte {
	if p == nil {
		return append(b, "null"...)
	}
	b = append(b, `{"avg":`...)
	b = appendMoney(b, p.Avg)
	b = append(b, `,"low":`...)
	b = appendMoney(b, p.Low)
	b = append(b, `,"trend":`...)
	b = appendMoney(b, p.Trend)
	b = append(b, `,"avg1":`...)
	b = appendMoney(b, p.Avg1)
	b = append(b, `,"avg7":`...)
	b = appendMoney(b, p.Avg7)
	b = append(b, `,"avg30":`...)
	b = appendMoney(b, p.Avg30)
	b = append(b, `,"updated_at":`...)
	b = appendTime(b, p.UpdatedAt)
	return append(b, '}')
}
