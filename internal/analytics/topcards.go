package analytics

import (
	"cmp"
	"github.com/cardcat/cardcat/internal/jsonw"
	"slices"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/game"
)

// topList names one precomputed top-cards list.
type topList int

const (
	topPriceTCG topList = iota
	topPriceCM
	topGrowthCM
	numTopLists
)

// topListOf maps a (metric, source) onto its list; "" is the default.
func topListOf(metric, source string) (topList, bool) {
	switch metric {
	case "", MetricPrice:
		switch source {
		case "", SourceTCG:
			return topPriceTCG, true
		case SourceCM:
			return topPriceCM, true
		}
	case MetricGrowth:
		if source == "" || source == SourceCM {
			return topGrowthCM, true
		}
	}
	return 0, false
}

// topEntry is a candidate of a top-cards list.
type topEntry struct {
	set   *catalog.Set // the card's set, for its card_info
	card  *catalog.Card
	price int64 // current_price in cents
	base  int64 // growth: avg30 in cents
}

// compareTop is a list's order: price lists by price, highest first; growth
// by the signed change (price-base)/base, largest rise first, compared
// exactly. Ties go to the smaller card id, which is stable across refreshes.
func compareTop(l topList, a, b *topEntry) int {
	var c int
	if l == topGrowthCM {
		c = -cmpRatio(a.price-a.base, a.base, b.price-b.base, b.base)
	} else {
		c = -cmp.Compare(a.price, b.price)
	}
	if c != 0 {
		return c
	}
	return cmp.Compare(a.card.ID, b.card.ID)
}

// topCollector keeps the best TopCardsMaxLimit candidates of each list while
// the cards stream by, so Build never sorts the whole catalogue.
type topCollector struct {
	minAvg30 int64
	lists    [numTopLists][]topEntry
}

func newTopCollector(minAvg30 int64) *topCollector {
	return &topCollector{minAvg30: minAvg30}
}

// add considers a card for every list. Only product_type card takes part.
// price/tcg: the highest market price over its finishes; price/cm: trend
// (avg when trend is null) of its Cardmarket values; growth: avg7 against
// avg30 of its Cardmarket values, when moving (avg30 >= the threshold).
func (t *topCollector) add(s *catalog.Set, c *catalog.Card) {
	if !isCard(c) {
		return
	}
	if m := tcgTopMarket(c); m.OK {
		t.offer(topPriceTCG, topEntry{set: s, card: c, price: m.Cents})
	}
	p := cmValues(c)
	if p == nil {
		return
	}
	if m := trendElseAvg(p); m.OK {
		t.offer(topPriceCM, topEntry{set: s, card: c, price: m.Cents})
	}
	if moving(p, t.minAvg30) {
		t.offer(topGrowthCM, topEntry{set: s, card: c, price: p.Avg7.Cents, base: p.Avg30.Cents})
	}
}

// offer inserts e in order when it is among the best TopCardsMaxLimit.
func (t *topCollector) offer(l topList, e topEntry) {
	list := t.lists[l]
	if len(list) == TopCardsMaxLimit && compareTop(l, &e, &list[len(list)-1]) >= 0 {
		return
	}
	at, _ := slices.BinarySearchFunc(list, e, func(x, y topEntry) int { return compareTop(l, &x, &y) })
	if len(list) == TopCardsMaxLimit {
		list = list[:len(list)-1]
	}
	t.lists[l] = slices.Insert(list, at, e)
}

// list renders a list's items; card_info is the free endpoints' (catalog.AppendCardInfo).
func (t *topCollector) list(l topList, g *game.Game) *itemList {
	metric, source := MetricPrice, SourceTCG
	switch l {
	case topPriceCM:
		source = SourceCM
	case topGrowthCM:
		metric, source = MetricGrowth, SourceCM
	}
	il := newItemList(`{"metric":"`+metric+`","source":"`+source+`","top_cards":[`, `]}`, TopCardsMaxLimit)
	var b []byte
	for i := range t.lists[l] {
		e := &t.lists[l][i]
		b = append(b[:0], `{"id":`...)
		b = jsonw.AppendString(b, e.card.ID)
		b = append(b, `,"card_info":`...)
		b = catalog.AppendCardInfo(b, g, e.set, e.card)
		b = append(b, `,"current_price":`...)
		b = appendMoney(b, catalog.Cents(e.price))
		if l == topGrowthCM {
			b = append(b, `,"change_7d":`...)
			b = appendPercent(b, changeTenths(e.price, e.base))
		}
		il.add(append(b, '}'))
	}
	return il.done()
}
