package analytics

import (
	"github.com/cardcat/cardcat/internal/jsonw"
	"slices"

	"github.com/cardcat/cardcat/internal/catalog"
)

// trendingMarketT is the market_t object of every trending item: TCGplayer
// price history does not cover 30 days yet.
const trendingMarketT = `{"status":"unavailable","message":"TCGplayer price history is not yet available; trends are computed from Cardmarket 7- and 30-day averages."}`

const topMovers = 3

// trendingSet is one set's 7-day move over its moving cards (see moving):
// (mean avg7 - mean avg30) / mean avg30, which over the same cards is
// (sum7 - sum30) / sum30.
type trendingSet struct {
	set         *catalog.SetInfo
	n           int
	sum7, sum30 int64
	movers      []mover // up to topMovers, largest move first
}

// mover is a card and its own move (avg7 - avg30) / avg30.
type mover struct {
	name        string
	avg7, avg30 int64
}

// compareMove orders moves by size, largest first, ignoring the sign.
func compareMove(d1, base1, d2, base2 int64) int {
	return -cmpRatio(abs(d1), base1, abs(d2), base2)
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// trendOfSet computes a set's move over its cards (product_type card) whose
// Cardmarket values (cmValues) have avg30 >= minAvg30 and an avg7; false when
// it has none. cards are in listing order, which breaks ties between movers.
func trendOfSet(s *catalog.SetInfo, cards []*catalog.Card, minAvg30 int64) (trendingSet, bool) {
	t := trendingSet{set: s}
	for _, c := range cards {
		if !isCard(c) {
			continue
		}
		p := cmValues(c)
		if !moving(p, minAvg30) {
			continue
		}
		t.n++
		t.sum7 += p.Avg7.Cents
		t.sum30 += p.Avg30.Cents
		m := mover{name: c.Name, avg7: p.Avg7.Cents, avg30: p.Avg30.Cents}
		// Insert after every mover at least as large: a tie keeps listing order.
		at := len(t.movers)
		for at > 0 && compareMove(m.avg7-m.avg30, m.avg30, t.movers[at-1].avg7-t.movers[at-1].avg30, t.movers[at-1].avg30) < 0 {
			at--
		}
		if at < topMovers {
			t.movers = slices.Insert(t.movers, at, m)
			if len(t.movers) > topMovers {
				t.movers = t.movers[:topMovers]
			}
		}
	}
	return t, t.n > 0
}

// trendingList orders the sets by the size of their move, largest first
// (exactly, not by the rounded percentage); equal moves keep the set list's
// order (newest release first, then name, then set_id).
func trendingList(sets []trendingSet) *itemList {
	slices.SortFunc(sets, func(a, b trendingSet) int {
		if c := compareMove(a.sum7-a.sum30, a.sum30, b.sum7-b.sum30, b.sum30); c != 0 {
			return c
		}
		return catalog.CompareSetList(a.set, b.set)
	})
	l := newItemList(`{"period":"7d","trending_sets":[`, `]}`, TrendingMaxLimit)
	var b []byte
	for i := range sets {
		if i == TrendingMaxLimit {
			break
		}
		b = appendTrendingItem(b[:0], &sets[i])
		l.add(b)
	}
	return l.done()
}

// appendTrendingItem appends one item. card_count is the number of cards the
// move is computed over; the two prices are the means, each rounded once to
// cents; price_change is computed from the exact sums.
func appendTrendingItem(b []byte, t *trendingSet) []byte {
	b = append(b, `{"set_name":`...)
	b = jsonw.AppendString(b, t.set.Name)
	b = append(b, `,"set_code":`...)
	b = appendNullableString(b, t.set.Code)
	b = append(b, `,"set_id":`...)
	b = jsonw.AppendString(b, t.set.ID)
	b = append(b, `,"card_count":`...)
	b = appendInt(b, t.n)
	b = append(b, `,"market_c":{"price_change":`...)
	b = appendPercent(b, changeTenths(t.sum7, t.sum30))
	b = append(b, `,"avg_price_current":`...)
	b = appendMoney(b, meanCents(t.sum7, t.n))
	b = append(b, `,"avg_price_previous":`...)
	b = appendMoney(b, meanCents(t.sum30, t.n))
	b = append(b, `,"top_movers":[`...)
	for i, m := range t.movers {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = jsonw.AppendString(b, m.name)
		b = append(b, `,"change":`...)
		b = appendPercent(b, changeTenths(m.avg7, m.avg30))
		b = append(b, '}')
	}
	b = append(b, `]},"market_t":`...)
	b = append(b, trendingMarketT...)
	return append(b, '}')
}
