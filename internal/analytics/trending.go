package analytics

import (
	"github.com/cardcat/cardcat/internal/jsonw"
	"slices"

	"github.com/cardcat/cardcat/internal/catalog"
)

const topMovers = 3

// move is a 7-day move over a set's moving cards: (mean avg7 - mean avg30) /
// mean avg30, which over the same cards is (sum7 - sum30) / sum30.
type move struct {
	n           int
	sum7, sum30 int64
	movers      []mover // up to topMovers, largest move first
}

// trendingSet is one set's move on each marketplace. The set is listed when
// its Cardmarket move has cards; tcg is computed only when the game's
// TCGplayer history covers the window (see Build).
type trendingSet struct {
	set *catalog.SetInfo
	cm  move
	tcg move
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

// add counts a card in the move. Cards come in listing order, which breaks
// ties between movers.
func (mv *move) add(name string, avg7, avg30 int64) {
	mv.n++
	mv.sum7 += avg7
	mv.sum30 += avg30
	m := mover{name: name, avg7: avg7, avg30: avg30}
	// Insert after every mover at least as large: a tie keeps listing order.
	at := len(mv.movers)
	for at > 0 && compareMove(m.avg7-m.avg30, m.avg30, mv.movers[at-1].avg7-mv.movers[at-1].avg30, mv.movers[at-1].avg30) < 0 {
		at--
	}
	if at < topMovers {
		mv.movers = slices.Insert(mv.movers, at, m)
		if len(mv.movers) > topMovers {
			mv.movers = mv.movers[:topMovers]
		}
	}
}

// trendOfSet computes a set's moves over its cards (product_type card).
// Cardmarket: the cards whose Cardmarket values (cmValues) have avg30 >=
// minAvg30 and an avg7. TCGplayer, when th has averages: the cards whose
// base finish (tcgBase, the finish completion value counts) has, in the
// history, a mean market price over 30 days >= minAvg30 and one over 7
// days. False when the Cardmarket move has no card: the set is not listed.
// cards are in listing order.
func trendOfSet(s *catalog.SetInfo, cards []*catalog.Card, minAvg30 int64, th *tcgHistory) (trendingSet, bool) {
	t := trendingSet{set: s}
	for _, c := range cards {
		if !isCard(c) {
			continue
		}
		if p := cmValues(c); moving(p, minAvg30) {
			t.cm.add(c.Name, p.Avg7.Cents, p.Avg30.Cents)
		}
		if th.averages == nil {
			continue
		}
		if p := tcgBase(c); p != nil {
			if a := th.find(c.ID, p.SubType); a != nil && a.Avg30.OK && a.Avg30.Cents >= minAvg30 && a.Avg7.OK {
				t.tcg.add(c.Name, a.Avg7.Cents, a.Avg30.Cents)
			}
		}
	}
	return t, t.cm.n > 0
}

// trendingList orders the sets by the size of their move, largest first
// (exactly, not by the rounded percentage); equal moves keep the set list's
// order (newest release first, then name, then set_id).
func trendingList(sets []trendingSet, th *tcgHistory) *itemList {
	slices.SortFunc(sets, func(a, b trendingSet) int {
		if c := compareMove(a.cm.sum7-a.cm.sum30, a.cm.sum30, b.cm.sum7-b.cm.sum30, b.cm.sum30); c != 0 {
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
		b = appendTrendingItem(b[:0], &sets[i], th)
		l.add(b)
	}
	return l.done()
}

// appendTrendingItem appends one item. card_count is the number of cards
// the Cardmarket move is computed over. market_t is th's status object
// while the TCGplayer history does not cover the window; then the TCGplayer
// move, or null when the set has no TCGplayer card that moves.
func appendTrendingItem(b []byte, t *trendingSet, th *tcgHistory) []byte {
	b = append(b, `{"set_name":`...)
	b = jsonw.AppendString(b, t.set.Name)
	b = append(b, `,"set_code":`...)
	b = appendNullableString(b, t.set.Code)
	b = append(b, `,"set_id":`...)
	b = jsonw.AppendString(b, t.set.ID)
	b = append(b, `,"card_count":`...)
	b = appendInt(b, t.cm.n)
	b = append(b, `,"market_c":`...)
	b = appendMove(b, &t.cm)
	b = append(b, `,"market_t":`...)
	switch {
	case th.status != "":
		b = append(b, th.status...)
	case t.tcg.n == 0:
		b = append(b, "null"...)
	default:
		b = appendMove(b, &t.tcg)
	}
	return append(b, '}')
}

// appendMove appends a move: the two prices are the means, each rounded
// once to cents; price_change is computed from the exact sums.
func appendMove(b []byte, mv *move) []byte {
	b = append(b, `{"price_change":`...)
	b = appendPercent(b, changeTenths(mv.sum7, mv.sum30))
	b = append(b, `,"avg_price_current":`...)
	b = appendMoney(b, meanCents(mv.sum7, mv.n))
	b = append(b, `,"avg_price_previous":`...)
	b = appendMoney(b, meanCents(mv.sum30, mv.n))
	b = append(b, `,"top_movers":[`...)
	for i, m := range mv.movers {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = jsonw.AppendString(b, m.name)
		b = append(b, `,"change":`...)
		b = appendPercent(b, changeTenths(m.avg7, m.avg30))
		b = append(b, '}')
	}
	return append(b, "]}"...)
}
