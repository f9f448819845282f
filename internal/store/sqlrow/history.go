package sqlrow

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/store"
)

// PriceHistory reads the price points of one card with query, a dialect's
// SELECT market, finish, day ('YYYY-MM-DD'), v1, ..., v6 of the points of the
// card whose game and id are its first two parameters, extra the others; see
// store.Store.
func PriceHistory(ctx context.Context, r Reader, query, game, cardID string, extra ...any) ([]store.PricePoint, error) {
	var (
		market, finish, day string
		v                   [6]sql.NullInt64
	)
	dest := []any{&market, &finish, &day}
	for i := range v {
		dest = append(dest, r.NullInt64(&v[i]))
	}
	var points []store.PricePoint
	err := each(ctx, r, query, append([]any{game, cardID}, extra...), dest, func() error {
		// TCGplayer points carry 5 values, Cardmarket ones 6.
		n := 6
		if market == store.MarketTCG {
			n = 5
		}
		p := store.PricePoint{Game: game, CardID: cardID, Market: market, Finish: finish, Day: day,
			Values: make([]catalog.Money, n)}
		for i := range n {
			p.Values[i] = money(v[i])
		}
		points = append(points, p)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return points, nil
}

// TCGWindow is the days of store.TCGHistory: the UTC day D and the first
// days of its windows.
type TCGWindow struct {
	Day    time.Time // D, at 00:00 UTC
	From7  time.Time // D-6
	From30 time.Time // D-29
	Next   time.Time // D+1, the end of both windows
}

// NewTCGWindow returns the window of the UTC day of day.
func NewTCGWindow(day time.Time) TCGWindow {
	d := DayStart(day)
	return TCGWindow{
		Day:    d,
		From7:  d.AddDate(0, 0, 1-store.ShortWindowDays),
		From30: d.AddDate(0, 0, 1-store.LongWindowDays),
		Next:   d.AddDate(0, 0, 1),
	}
}

// PrunedWindows returns the first day of the UTC days whose TCGplayer
// windows (store.TCGHistory) a prune of the points before the UTC day of
// before reaches into: its day plus 29 days. A stored history of an earlier
// day lost points of its window.
func PrunedWindows(before time.Time) time.Time {
	return DayStart(before).AddDate(0, 0, store.LongWindowDays-1)
}

// Query is a dialect's query and its arguments.
type Query struct {
	SQL  string
	Args []any
}

// TCGHistory reads the TCGplayer history of game in w, see store.TCGHistory:
// days counts the days with a point, averages gives card_id, finish, avg7,
// avg30 in the order of store.TCGHistory.Averages. r must read one snapshot.
func TCGHistory(ctx context.Context, r Reader, game string, w TCGWindow, days, averages Query) (store.TCGHistory, error) {
	h := store.TCGHistory{Game: game, Day: Day(w.Day)}
	if _, err := scanOne(ctx, r, days.SQL, days.Args, &h.Days); err != nil {
		return h, fmt.Errorf("days: %w", err)
	}
	if h.Days == 0 {
		return h, nil
	}
	err := readTCGAverages(ctx, r, &h, averages)
	return h, err
}

// StoredTCGHistory reads the TCGplayer history of game in w as ingest
// stored it: stored gives the days of the game's stored history when it is
// of w's day and of the current version (no row otherwise: found is false,
// and the caller computes it with TCGHistory), averages its rows as
// TCGHistory's. r must read one snapshot.
func StoredTCGHistory(ctx context.Context, r Reader, game string, w TCGWindow, stored, averages Query) (h store.TCGHistory, found bool, err error) {
	h = store.TCGHistory{Game: game, Day: Day(w.Day)}
	found, err = scanOne(ctx, r, stored.SQL, stored.Args, &h.Days)
	if err != nil {
		return h, false, fmt.Errorf("stored days: %w", err)
	}
	if !found || h.Days == 0 {
		return h, found, nil
	}
	if err := readTCGAverages(ctx, r, &h, averages); err != nil {
		return h, false, fmt.Errorf("stored averages: %w", err)
	}
	return h, true, nil
}

func readTCGAverages(ctx context.Context, r Reader, h *store.TCGHistory, averages Query) error {
	var (
		card, finish []byte // the driver's, until the next row
		avg7, avg30  sql.NullInt64
		prevCard     string
		finishes     = map[string]string{} // a finish's name repeats on every card: one string each
	)
	dest := []any{r.RawBytes(&card), r.RawBytes(&finish), r.NullInt64(&avg7), r.NullInt64(&avg30)}
	return each(ctx, r, averages.SQL, averages.Args, dest, func() error {
		if string(card) != prevCard { // a card's finishes share one string
			prevCard = string(card)
		}
		f, ok := finishes[string(finish)]
		if !ok {
			f = string(finish)
			finishes[f] = f
		}
		h.Averages = append(h.Averages, store.TCGAverage{CardID: prevCard, Finish: f, Avg7: money(avg7), Avg30: money(avg30)})
		return nil
	})
}
