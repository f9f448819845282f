package analytics

import (
	"strings"

	"github.com/cardcat/cardcat/internal/catalog"
)

// The rules that pick which price of a card an answer uses. Each is used by
// several endpoints, so that they agree with one another.

// TCGplayer finish names the paid endpoints look for, compared case-insensitively.
const (
	tcgNormal   = "Normal"
	tcgFoil     = "Foil"
	tcgHolofoil = "Holofoil"
)

// isCard reports whether a product counts in statistics, completion value,
// trending and top cards: product_type card (not sealed, not undetermined).
func isCard(c *catalog.Card) bool { return c.ProductType == catalog.ProductCard }

// tcgPriced reports whether a TCGplayer row carries any value. Ingest drops
// rows that do not; this guards against a catalogue that keeps them.
func tcgPriced(p *catalog.TCGPrice) bool {
	return p.Low.OK || p.Mid.OK || p.High.OK || p.Market.OK || p.DirectLow.OK
}

// tcgFinish returns the first priced TCGplayer finish of that name
// (case-insensitive) of a card's prices, or -1.
func tcgFinish(ps []catalog.TCGPrice, name string) int {
	for i := range ps {
		if tcgPriced(&ps[i]) && strings.EqualFold(ps[i].SubType, name) {
			return i
		}
	}
	return -1
}

// tcgFoilFinish is the finish that stands for "foil": Foil, or Holofoil when
// the card has no Foil; -1 when neither.
func tcgFoilFinish(c *catalog.Card) int {
	if i := tcgFinish(c.TCGPrices, tcgFoil); i >= 0 {
		return i
	}
	return tcgFinish(c.TCGPrices, tcgHolofoil)
}

// tcgVariant is the card's TCGplayer price of a statistics variant, or nil.
func tcgVariant(c *catalog.Card, variant string) *catalog.TCGPrice {
	i := -1
	switch variant {
	case VariantNormal:
		i = tcgFinish(c.TCGPrices, tcgNormal)
	case VariantFoil:
		i = tcgFoilFinish(c)
	}
	if i < 0 {
		return nil
	}
	return &c.TCGPrices[i]
}

// tcgBase is the card's base finish for completion value: Normal; else the
// cheapest priced finish by market price; when no finish has a market price,
// the one with the lowest low price; ties keep upstream order. Nil when the
// card has no priced TCGplayer finish.
func tcgBase(c *catalog.Card) *catalog.TCGPrice {
	if i := tcgFinish(c.TCGPrices, tcgNormal); i >= 0 {
		return &c.TCGPrices[i]
	}
	var best *catalog.TCGPrice
	for i := range c.TCGPrices {
		p := &c.TCGPrices[i]
		if !tcgPriced(p) {
			continue
		}
		if best == nil || cheaper(p, best) {
			best = p
		}
	}
	return best
}

// cheaper reports whether p is strictly cheaper than q (see tcgBase).
func cheaper(p, q *catalog.TCGPrice) bool {
	if p.Market.OK != q.Market.OK {
		return p.Market.OK
	}
	if p.Market.OK {
		return p.Market.Cents < q.Market.Cents
	}
	if p.Low.OK != q.Low.OK {
		return p.Low.OK
	}
	return p.Low.OK && p.Low.Cents < q.Low.Cents
}

// tcgTopMarket is the highest market price over the card's finishes.
func tcgTopMarket(c *catalog.Card) catalog.Money {
	var top catalog.Money
	for i := range c.TCGPrices {
		m := c.TCGPrices[i].Market
		if m.OK && (!top.OK || m.Cents > top.Cents) {
			top = m
		}
	}
	return top
}

// cmFinish returns the card's priced Cardmarket entry of a finish
// (catalog.CMNormal or catalog.CMFoil), or nil.
func cmFinish(c *catalog.Card, variant string) *catalog.CMPrice {
	for i := range c.CMPrices {
		if p := &c.CMPrices[i]; p.Variant == variant && !p.Empty() {
			return p
		}
	}
	return nil
}

// cmValues are the Cardmarket values of a card where no finish is asked
// for: its normal prices, or its foil prices when it has no normal price.
// The choice is by entry, not by field: a normal entry without avg30 does
// not borrow the foil's.
func cmValues(c *catalog.Card) *catalog.CMPrice {
	if p := cmFinish(c, catalog.CMNormal); p != nil {
		return p
	}
	return cmFinish(c, catalog.CMFoil)
}

// avgElseTrend is the Cardmarket value statistics use: avg, or trend when
// avg is null.
func avgElseTrend(p *catalog.CMPrice) catalog.Money {
	if p.Avg.OK {
		return p.Avg
	}
	return p.Trend
}

// trendElseAvg is the Cardmarket value top cards by price use: trend, or avg
// when trend is null.
func trendElseAvg(p *catalog.CMPrice) catalog.Money {
	if p.Trend.OK {
		return p.Trend
	}
	return p.Avg
}

// moving reports whether a card's Cardmarket values take part in growth and
// trending: avg30 at the threshold or above, and an avg7 to compare with.
func moving(p *catalog.CMPrice, minAvg30 int64) bool {
	return p != nil && p.Avg30.OK && p.Avg30.Cents >= minAvg30 && p.Avg7.OK
}

// rarityLabel is the rarity a card counts under in the breakdowns.
func rarityLabel(c *catalog.Card) string {
	if c.Rarity == "" {
		return "Unknown"
	}
	return c.Rarity
}
