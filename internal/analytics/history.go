package analytics

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/cardcat/cardcat/internal/store"
)

// tcgHistory is a game's TCGplayer history as trending uses it: nil
// averages until the points cover the whole 30-day window.
type tcgHistory struct {
	// status is the market_t of every trending item while the history does
	// not cover the window; "" once it does.
	status   string
	averages []store.TCGAverage // by card id, then finish
}

// trendingMarketTUnknown is the market_t of every trending item when the
// game's TCGplayer history is not known (none was given to Build, e.g.
// because the store could not be read).
const trendingMarketTUnknown = `{"status":"unavailable","message":"TCGplayer price history is not yet available; trends are computed from Cardmarket 7- and 30-day averages."}`

// newTCGHistory reads h (nil: unknown). The averages must be ordered by card
// id, then finish, as the store returns them; they are sorted (in a copy)
// when they are not, so that a lookup cannot silently miss.
func newTCGHistory(h *store.TCGHistory) tcgHistory {
	if h == nil {
		return tcgHistory{status: trendingMarketTUnknown}
	}
	if h.Days < store.LongWindowDays {
		return tcgHistory{status: coverageStatus(h.Days)}
	}
	avgs := h.Averages
	if !slices.IsSortedFunc(avgs, compareAverage) {
		avgs = slices.Clone(avgs)
		slices.SortFunc(avgs, compareAverage)
	}
	return tcgHistory{averages: avgs}
}

// coverageStatus is the market_t while the TCGplayer points cover days of
// the 30 days: trending needs all of them.
func coverageStatus(days int) string {
	days = max(days, 0)
	var b strings.Builder
	b.WriteString(`{"status":"unavailable","message":"TCGplayer price history covers `)
	b.WriteString(strconv.Itoa(days))
	b.WriteString(` of the `)
	b.WriteString(strconv.Itoa(store.LongWindowDays))
	b.WriteString(` days it needs (one daily price point per ingest); until it covers all `)
	b.WriteString(strconv.Itoa(store.LongWindowDays))
	b.WriteString(`, trends are computed from Cardmarket 7- and 30-day averages only."}`)
	return b.String()
}

func compareAverage(a, b store.TCGAverage) int {
	if c := cmp.Compare(a.CardID, b.CardID); c != 0 {
		return c
	}
	return cmp.Compare(a.Finish, b.Finish)
}

// find returns the averages of a card finish (finish as the card's price
// names it), or nil.
func (h *tcgHistory) find(cardID, finish string) *store.TCGAverage {
	i, ok := slices.BinarySearchFunc(h.averages, store.TCGAverage{CardID: cardID, Finish: finish}, compareAverage)
	if !ok {
		return nil
	}
	return &h.averages[i]
}
