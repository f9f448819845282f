package analytics

import (
	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/jsonw"
)

// completionNote is the note of every completion value.
const completionNote = "Estimated cost of one copy of every card of the set (sealed products excluded), " +
	"each in its base finish: TCGplayer Normal, else the card's cheapest priced finish; Cardmarket normal, " +
	"else foil. Cards without a price add nothing. The USD and EUR estimates come from different " +
	"marketplaces and are not comparable."

// moneySum is an exact sum of cents; null while nothing was added.
type moneySum catalog.Money

func (s *moneySum) add(m catalog.Money) {
	if m.OK {
		s.Cents += m.Cents
		s.OK = true
	}
}

// rarityCost is a line of breakdown_by_rarity.
type rarityCost struct {
	count int
	cost  int64 // USD cents, base-finish market prices
}

// completion renders the completion-value body of one set: product_type
// card only, one copy each. TCGplayer sums the base finish's (tcgBase) low,
// market and high prices; Cardmarket sums low, avg and trend of the card's
// Cardmarket values (cmValues). An estimate is null when no card has that
// value; breakdown_by_rarity counts every card and adds the base finish's
// market price (0 when none is priced).
func (r *renderer) completion(s *catalog.SetInfo, cards []*catalog.Card) []byte {
	var (
		tLow, tMarket, tHigh moneySum
		cLow, cAvg, cTrend   moneySum
		total                int
		rarities             = map[string]*rarityCost{}
	)
	for _, c := range cards {
		if !isCard(c) {
			continue
		}
		total++
		rc := rarities[rarityLabel(c)]
		if rc == nil {
			rc = &rarityCost{}
			rarities[rarityLabel(c)] = rc
		}
		rc.count++
		if p := tcgBase(c); p != nil {
			tLow.add(p.Low)
			tMarket.add(p.Market)
			tHigh.add(p.High)
			if p.Market.OK {
				rc.cost += p.Market.Cents
			}
		}
		if p := cmValues(c); p != nil {
			cLow.add(p.Low)
			cAvg.add(p.Avg)
			cTrend.add(p.Trend)
		}
	}

	b := appendSetInfo(r.buf[:0], s, total)
	b = append(b, `,"completion_cost":{"market_t":{"currency":"USD","low_estimate":`...)
	b = appendMoney(b, catalog.Money(tLow))
	b = append(b, `,"market_estimate":`...)
	b = appendMoney(b, catalog.Money(tMarket))
	b = append(b, `,"high_estimate":`...)
	b = appendMoney(b, catalog.Money(tHigh))
	b = append(b, `},"market_c":{"currency":"EUR","low_estimate":`...)
	b = appendMoney(b, catalog.Money(cLow))
	b = append(b, `,"avg_estimate":`...)
	b = appendMoney(b, catalog.Money(cAvg))
	b = append(b, `,"trend_estimate":`...)
	b = appendMoney(b, catalog.Money(cTrend))
	b = append(b, `},"note":`...)
	b = jsonw.AppendString(b, completionNote)
	b = append(b, `},"breakdown_by_rarity":{`...)
	for i, label := range sortedKeys(rarities) {
		if i > 0 {
			b = append(b, ',')
		}
		rc := rarities[label]
		b = jsonw.AppendString(b, label)
		b = append(b, `:{"count":`...)
		b = appendInt(b, rc.count)
		b = append(b, `,"total_cost":`...)
		b = appendMoney(b, catalog.Cents(rc.cost))
		b = append(b, '}')
	}
	r.buf = append(b, "}}"...)
	return r.keep(r.buf)
}
