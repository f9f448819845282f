package analytics

import (
	"github.com/cardcat/cardcat/internal/jsonw"
	"slices"

	"github.com/cardcat/cardcat/internal/catalog"
)

// priceStats are min, max, mean and most expensive card of one marketplace
// over the cards priced in one finish.
type priceStats struct {
	n        int
	sum      int64
	min, max int64
	top      *catalog.Card // the first card, in listing order, at max
}

func (p *priceStats) add(c *catalog.Card, m catalog.Money) {
	if !m.OK {
		return
	}
	if p.n == 0 || m.Cents < p.min {
		p.min = m.Cents
	}
	if p.n == 0 || m.Cents > p.max {
		p.max, p.top = m.Cents, c
	}
	p.n++
	p.sum += m.Cents
}

// appendFields opens a marketplace's block with the fields both share (the
// object is left open); all four are null when no card is priced.
func (p *priceStats) appendFields(b []byte, avgKey string) []byte {
	b = append(b, `{"`...)
	b = append(b, avgKey...)
	b = append(b, `":`...)
	b = appendDecimalString(b, meanCents(p.sum, p.n))
	if p.n == 0 {
		return append(b, `,"min_price":null,"max_price":null,"most_expensive":null`...)
	}
	b = append(b, `,"min_price":`...)
	b = appendMoney(b, catalog.Cents(p.min))
	b = append(b, `,"max_price":`...)
	b = appendMoney(b, catalog.Cents(p.max))
	b = append(b, `,"most_expensive":{"id":`...)
	b = jsonw.AppendString(b, p.top.ID)
	b = append(b, `,"name":`...)
	b = jsonw.AppendString(b, p.top.Name)
	b = append(b, `,"price":`...)
	b = appendMoney(b, catalog.Cents(p.max))
	return append(b, '}')
}

// Trend directions of statistics.
const (
	trendUp     = "up"
	trendDown   = "down"
	trendStable = "stable"
)

// trendDirection compares the mean avg7 with the mean avg30 of the same
// cards, so the ratio of the means is the ratio of the sums: up when the
// change is above +5%, down below -5%, else (and with no data) stable.
// 20*(sum7-sum30) > sum30 is (sum7-sum30)/sum30 > 5% without a division.
func trendDirection(sum7, sum30 int64) string {
	d := sum7 - sum30
	switch {
	case sum30 <= 0:
		return trendStable
	case 20*d > sum30:
		return trendUp
	case 20*d < -sum30:
		return trendDown
	}
	return trendStable
}

// statistics renders the statistics body of one set for a variant. Only
// product_type card counts. TCGplayer: market_price of the variant's finish
// (normal: Normal; foil: Foil, else Holofoil). Cardmarket: the variant's
// entry, avg (trend when avg is null); trend_direction over the cards of that
// entry that have both avg7 and avg30.
func (r *renderer) statistics(s *catalog.SetInfo, cards []*catalog.Card, variant string) []byte {
	cmVariant := catalog.CMNormal
	if variant == VariantFoil {
		cmVariant = catalog.CMFoil
	}
	var (
		t, c        priceStats
		sum7, sum30 int64
		total       int
		rarities    = map[string]int{}
	)
	for _, card := range cards {
		if !isCard(card) {
			continue
		}
		total++
		rarities[rarityLabel(card)]++
		if p := tcgVariant(card, variant); p != nil {
			t.add(card, p.Market)
		}
		if p := cmFinish(card, cmVariant); p != nil {
			c.add(card, avgElseTrend(p))
			if p.Avg7.OK && p.Avg30.OK {
				sum7 += p.Avg7.Cents
				sum30 += p.Avg30.Cents
			}
		}
	}

	b := appendSetInfo(r.buf[:0], s, total)
	b = append(b, `,"price_statistics":{"market_t":`...)
	b = t.appendFields(b, "avg_market_price")
	b = append(b, `},"market_c":`...)
	b = c.appendFields(b, "avg_price")
	b = append(b, `,"trend_direction":`...)
	b = jsonw.AppendString(b, trendDirection(sum7, sum30))
	b = append(b, `}},"rarity_breakdown":{`...)
	for i, label := range sortedKeys(rarities) {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonw.AppendString(b, label)
		b = append(b, ':')
		b = appendInt(b, rarities[label])
	}
	r.buf = append(b, "}}"...)
	return r.keep(r.buf)
}

// appendSetInfo appends `{"set_info":{...}` (the body's object left open).
// total_cards counts the set's products of type card.
func appendSetInfo(b []byte, s *catalog.SetInfo, total int) []byte {
	b = append(b, `{"set_info":{"name":`...)
	b = jsonw.AppendString(b, s.Name)
	b = append(b, `,"set_code":`...)
	b = appendNullableString(b, s.Code)
	b = append(b, `,"set_id":`...)
	b = jsonw.AppendString(b, s.ID)
	b = append(b, `,"total_cards":`...)
	b = appendInt(b, total)
	return append(b, '}')
}

// sortedKeys returns a breakdown's labels in byte order, the order
// encoding/json gives a map's keys.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
