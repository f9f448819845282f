package analytics

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/store"
	"github.com/google/go-cmp/cmp"
)

// fixtureHistory is a TCGplayer history of the fixture covering days of the
// 30. Amounts in cents, avg7 then avg30. Only each card's base finish
// (tcgBase: Normal, else the cheapest priced finish) counts; the other
// entries are traps.
func fixtureHistory(days int) *store.TCGHistory {
	gc := fixture()
	id := func(name string) string {
		for _, c := range gc.Cards {
			if c.Name == name {
				return c.ID
			}
		}
		panic(name)
	}
	a := func(name, finish string, avg7, avg30 catalog.Money) store.TCGAverage {
		return store.TCGAverage{CardID: id(name), Finish: finish, Avg7: avg7, Avg30: avg30}
	}
	h := &store.TCGHistory{Game: "dbs", Day: "2025-06-01", Days: days, Averages: []store.TCGAverage{
		a("Son Goku", "Normal", m(150), m(120)),
		a("Son Goku", "Foil", m(999), m(100)), // not the base finish
		a("Vegeta", "Normal", m(90), m(99)),   // avg30 < 1 USD
		a("Krillin", "Normal", null, m(500)),  // no avg7
		a("Frieza", "Normal", m(300), m(200)), // the base finish although its market price is null today
		a("Piccolo", "Holofoil", m(1000), m(1100)),
		a("Piccolo", "Foil", m(5000), m(100)),                       // Foil is dearer today: Holofoil is the base finish
		a("Gohan (Alt Art)", "Normal", m(5000), m(100)),             // no TCGplayer price today: no base finish
		a("Unidentified Product", "Normal", m(5000), m(100)),        // not a card
		a("Galactic Battle Booster Box", "Normal", m(5000), m(100)), // sealed
		a("Trunks", "Normal", m(100), m(100)),
		a("Bulma", "normal", m(133), m(100)),                                             // the finish as the card's price names it
		a("Cell", "Normal", m(50), m(100)),                                               // avg30 exactly 1 USD counts
		{CardID: "dbs_ffffffffffffffff", Finish: "Normal", Avg7: m(5000), Avg30: m(100)}, // no such card
	}}
	slices.SortFunc(h.Averages, compareAverage)
	return h
}

type marketTMove struct {
	PriceChange       string
	Current, Previous float64
	Movers            []moverJSON
}

// trendingItemT is a trending item whose market_t may be either object.
type trendingItemT struct {
	SetName string          `json:"set_name"`
	SetCode *string         `json:"set_code"`
	SetID   string          `json:"set_id"`
	CardCnt int             `json:"card_count"`
	MarketC json.RawMessage `json:"market_c"`
	MarketT *struct {
		PriceChange      *string     `json:"price_change"`
		AvgPriceCurrent  *float64    `json:"avg_price_current"`
		AvgPricePrevious *float64    `json:"avg_price_previous"`
		TopMovers        []moverJSON `json:"top_movers"`
		Status           *string     `json:"status"`
		Message          *string     `json:"message"`
	} `json:"market_t"`
}

type trendingBodyT struct {
	Period       string          `json:"period"`
	TrendingSets []trendingItemT `json:"trending_sets"`
}

// trendingMarketT decodes a trending body's market_t of each set: a move
// (nil for null), or the status object's message; and the sets' order.
func trendingMarketT(t *testing.T, body []byte) (moves map[string]*marketTMove, status map[string]string, order []string) {
	t.Helper()
	moves, status = map[string]*marketTMove{}, map[string]string{}
	for _, it := range decode[trendingBodyT](t, body).TrendingSets {
		order = append(order, it.SetID)
		mt := it.MarketT
		switch {
		case mt == nil:
			moves[it.SetID] = nil
		case mt.Status != nil:
			if *mt.Status != "unavailable" || mt.Message == nil || mt.PriceChange != nil || mt.TopMovers != nil {
				t.Fatalf("set %s: market_t %+v", it.SetID, mt)
			}
			status[it.SetID] = *mt.Message
		default:
			if mt.PriceChange == nil || mt.AvgPriceCurrent == nil || mt.AvgPricePrevious == nil || mt.TopMovers == nil || mt.Message != nil {
				t.Fatalf("set %s: market_t %+v", it.SetID, mt)
			}
			moves[it.SetID] = &marketTMove{*mt.PriceChange, *mt.AvgPriceCurrent, *mt.AvgPricePrevious, mt.TopMovers}
		}
	}
	return moves, status, order
}

// TestTrendingTCGArithmetic: with 30 days of TCGplayer history, market_t is
// computed as market_c is, over the base finishes' 30-day and 7-day means.
func TestTrendingTCGArithmetic(t *testing.T) {
	g := mustBuild(t, fixture(), Options{TCGHistory: map[string]*store.TCGHistory{"dbs": fixtureHistory(30)}})
	body := g.Trending(TrendingDefaultLimit).Body
	moves, status, order := trendingMarketT(t, body)
	if len(status) != 0 {
		t.Errorf("status objects with 30 days of history: %v", status)
	}
	want := map[string]*marketTMove{
		// Goku 150/120, Frieza 300/200, Piccolo (Holofoil) 1000/1100; Vegeta's avg30 99 < 1 USD, Krillin has
		// no avg7, Gohan no TCGplayer price, the unidentified product and the box are not cards.
		// change (1450-1420)/1420 = 2.11% -> +2.1%; means 1450/3 = 483.33 -> 4.83, 1420/3 = 473.33 -> 4.73.
		// Movers: Frieza +50%, Goku +25%, Piccolo -100/1100 = -9.09% -> -9.1%.
		"1001": {"+2.1%", 4.83, 4.73, []moverJSON{{"Frieza", "+50.0%"}, {"Son Goku", "+25.0%"}, {"Piccolo", "-9.1%"}}},
		// Trunks 100/100, Bulma 133/100, Cell 50/100 (avg30 exactly 1 USD):
		// change (283-300)/300 = -5.67% -> -5.7%; means 283/3 = 94.33 -> 0.94, 300/3 = 1.
		"1002": {"-5.7%", 0.94, 1, []moverJSON{{"Cell", "-50.0%"}, {"Bulma", "+33.0%"}, {"Trunks", "+0.0%"}}},
		// Cardmarket only: null.
		"-501": nil,
	}
	if diff := cmp.Diff(want, moves); diff != "" {
		t.Errorf("market_t (-want +got):\n%s", diff)
	}
	// The Cardmarket side and the order are those without history.
	_, _, plainOrder := trendingMarketT(t, mustBuildFixture(t).Trending(TrendingDefaultLimit).Body)
	if !slices.Equal(order, plainOrder) {
		t.Errorf("order %v, without history %v", order, plainOrder)
	}
	plain := decode[trendingBodyT](t, mustBuildFixture(t).Trending(TrendingDefaultLimit).Body)
	for i, it := range decode[trendingBodyT](t, body).TrendingSets {
		if string(it.MarketC) != string(plain.TrendingSets[i].MarketC) || it.CardCnt != plain.TrendingSets[i].CardCnt {
			t.Errorf("set %s: market_c or card_count differ from those without history", it.SetID)
		}
	}
}

// TestTrendingTCGCoverage: until the history covers all 30 days, market_t is
// the status object, saying how many are covered; without a history, that it
// is not available.
func TestTrendingTCGCoverage(t *testing.T) {
	for _, tt := range []struct {
		name    string
		history *store.TCGHistory
		want    string
	}{
		{"29 days", fixtureHistory(29), "TCGplayer price history covers 29 of the 30 days"},
		{"0 days", &store.TCGHistory{Game: "dbs"}, "TCGplayer price history covers 0 of the 30 days"},
		{"unknown", nil, "TCGplayer price history is not yet available"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			opts := Options{TCGHistory: map[string]*store.TCGHistory{"dbs": tt.history}}
			if tt.history == nil {
				opts = Options{TCGHistory: map[string]*store.TCGHistory{"mtg": fixtureHistory(30)}} // another game's
			}
			moves, status, _ := trendingMarketT(t, mustBuild(t, fixture(), opts).Trending(TrendingMaxLimit).Body)
			if len(moves) != 0 || len(status) != 3 {
				t.Fatalf("moves %v, status %v; want a status object on each of the 3 sets", moves, status)
			}
			for set, msg := range status {
				if !strings.Contains(msg, tt.want) {
					t.Errorf("set %s: message %q, want it to contain %q", set, msg, tt.want)
				}
			}
		})
	}
}

// TestTrendingTCGHistoryUnsorted: averages out of order give the same
// answers (Build sorts a copy) and are left as they were.
func TestTrendingTCGHistoryUnsorted(t *testing.T) {
	h := fixtureHistory(30)
	want := string(mustBuild(t, fixture(), Options{TCGHistory: map[string]*store.TCGHistory{"dbs": h}}).Trending(50).Body)
	slices.Reverse(h.Averages)
	before := slices.Clone(h.Averages)
	got := string(mustBuild(t, fixture(), Options{TCGHistory: map[string]*store.TCGHistory{"dbs": h}}).Trending(50).Body)
	if got != want {
		t.Errorf("unsorted averages: %s\nwant %s", got, want)
	}
	if !slices.Equal(before, h.Averages) {
		t.Error("Build reordered the caller's averages")
	}
}

// TestTrendingTCGHistoryNotKept: changing the history after Build changes
// no answer.
func TestTrendingTCGHistoryNotKept(t *testing.T) {
	h := fixtureHistory(30)
	g := mustBuild(t, fixture(), Options{TCGHistory: map[string]*store.TCGHistory{"dbs": h}})
	want := string(g.Trending(50).Body)
	for i := range h.Averages {
		h.Averages[i].Avg7 = m(1)
	}
	h.Averages = nil
	if got := string(g.Trending(50).Body); got != want {
		t.Errorf("answer changed with the history: %s", got)
	}
}
