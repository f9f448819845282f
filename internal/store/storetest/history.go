package storetest

import (
	"cmp"
	"context"
	"slices"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/store"
	gocmp "github.com/google/go-cmp/cmp"
)

// historyDay is the day D the history tests ask about; at(k) is noon UTC of
// day D-k.
var historyDay = time.Date(2025, 3, 31, 0, 0, 0, 0, time.UTC)

func at(k int) time.Time { return historyDay.AddDate(0, 0, -k).Add(12 * time.Hour) }

// dayPrices are one day's TCGplayer market prices by card product id, then
// finish; a card or finish that is not there has no point that day. null
// (catalog.Money{}) is a point without a market price.
type dayPrices map[int]map[string]catalog.Money

// historyGame is the mtg catalogue of a day: cards 1..5, each with the
// TCGplayer prices of that day (low 1 on every finish, so that a finish
// without a market price is still priced), and card 5 with a Cardmarket
// price every day.
func historyGame(prices dayPrices) catalog.GameCatalog {
	g := catalog.GameCatalog{Game: "mtg", Sets: []catalog.Set{{Game: "mtg", ID: "1", Name: "Set"}}}
	for pid := 1; pid <= 5; pid++ {
		c := catalog.Card{Game: "mtg", ID: catalog.TCGCardID("mtg", pid), SetID: "1", TCGProductID: pid, Name: "Card"}
		for _, finish := range []string{"Normal", "Foil", "normal", "Holofoil"} { // not in byte order
			if m, ok := prices[pid][finish]; ok {
				c.TCGPrices = append(c.TCGPrices, catalog.TCGPrice{SubType: finish, Low: catalog.Cents(1), Market: m})
			}
		}
		if pid == 5 {
			c.CMPrices = []catalog.CMPrice{{Variant: catalog.CMNormal, Avg: catalog.Cents(100)}}
		}
		g.Cards = append(g.Cards, c)
	}
	return g
}

// writeDays replaces the mtg catalogue once per day, oldest first (days by
// k, D-k; k may be negative: after D), and returns the last version.
func writeDays(t *testing.T, s store.Store, days map[int]dayPrices) int64 {
	t.Helper()
	var ks []int
	for k := range days {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	slices.Reverse(ks)
	base, err := s.CatalogVersion(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range ks {
		base = MustReplace(t, s, base, []catalog.GameCatalog{historyGame(days[k])}, "{}", at(k))
	}
	return base
}

func mustAverages(t *testing.T, s store.Store, game string, day time.Time) store.TCGHistory {
	t.Helper()
	h, err := s.TCGMarketAverages(context.Background(), game, day)
	if err != nil {
		t.Fatalf("TCGMarketAverages(%s, %v): %v", game, day, err)
	}
	return h
}

func avg(id int, finish string, avg7, avg30 catalog.Money) store.TCGAverage {
	return store.TCGAverage{CardID: catalog.TCGCardID("mtg", id), Finish: finish, Avg7: avg7, Avg30: avg30}
}

// sortedAverages orders averages as the store must: card id, then finish,
// in byte order ("Foil" < "Normal" < "normal").
func sortedAverages(as ...store.TCGAverage) []store.TCGAverage {
	slices.SortFunc(as, func(a, b store.TCGAverage) int {
		if c := cmp.Compare(a.CardID, b.CardID); c != 0 {
			return c
		}
		return cmp.Compare(a.Finish, b.Finish)
	})
	return as
}

// testTCGMarketAverages checks the windows' boundaries, days without a
// point or without a market price, the rounding, the order, and which
// finishes and days count.
func testTCGMarketAverages(t *testing.T, s store.Store) {
	c := catalog.Cents
	var null catalog.Money
	// Another game's points, on a day mtg has none, do not count.
	dbs := sampleDBS()
	MustReplace(t, s, 0, []catalog.GameCatalog{dbs}, "{}", at(8))
	writeDays(t, s, map[int]dayPrices{
		31: {1: {"Normal": c(9999)}},            // before the 30-day window
		30: {1: {"Normal": c(9999)}},            // D-30: still before it
		29: {1: {"Normal": c(100)}},             // D-29: first day of the 30-day window
		20: {1: {"Foil": c(50)}},                //
		15: {1: {"Foil": c(51)}},                //
		12: {2: {"Normal": c(777)}},             // card 2 has no TCGplayer price in the current catalogue
		10: {1: {"Normal": c(200)}},             //
		9:  {},                                  // Cardmarket points only: not a TCGplayer day
		7:  {1: {"Normal": c(300)}},             // D-7: before the 7-day window
		6:  {1: {"Normal": c(400)}},             // D-6: first day of the 7-day window
		3:  {1: {"Normal": null, "Foil": null}}, // points without a market price
		2:  {3: {"Normal": c(-6)}},              // negative: rounds away from zero too
		1:  {3: {"Normal": c(-5)}},              //
		0:  {1: {"Normal": c(501), "normal": c(7)}, 3: {"Holofoil": c(10)}},
		// After D, and the current catalogue: card 4 has no point before it.
		-1: {1: {"Normal": c(9999), "normal": c(9999), "Foil": c(9999)}, 3: {"Normal": c(9999), "Holofoil": c(9999)}, 4: {"Normal": c(9999)}},
	})

	want := store.TCGHistory{
		Game: "mtg",
		Day:  "2025-03-31",
		// D-29, 20, 15, 10, 7, 6, 3, 2, 1 and D; not D-12 (only card 2's point, whose finish is not priced
		// now), D-9 (Cardmarket only), D-8 (another game's).
		Days: 10,
		Averages: sortedAverages(
			// 7 days: 400, (D-3: null), 501 -> 901/2 = 450.5 -> 451;
			// 30 days: 100, 200, 300, 400, 501 -> 1501/5 = 300.2 -> 300.
			avg(1, "Normal", c(451), c(300)),
			// 7 days: only D-3's point, without a market price: null. 30 days: 101/2 = 50.5 -> 51.
			avg(1, "Foil", null, c(51)),
			avg(1, "normal", c(7), c(7)),
			avg(3, "Normal", c(-6), c(-6)), // -11/2 = -5.5 -> -6
			avg(3, "Holofoil", c(10), c(10)),
			// Card 4's Normal has no point in the window.
		),
	}
	for _, day := range []time.Time{
		historyDay,
		historyDay.Add(24*time.Hour - time.Microsecond),
		time.Date(2025, 4, 1, 1, 30, 0, 0, time.FixedZone("CEST", 2*3600)), // 2025-03-31 23:30 UTC
	} {
		if diff := gocmp.Diff(want, mustAverages(t, s, "mtg", day), cmpOpts...); diff != "" {
			t.Errorf("TCGMarketAverages(mtg, %v) (-want +got):\n%s", day, diff)
		}
	}

	// A day later the windows start at D-28 and D-5: D-29 and D-6 leave them, D+1 enters.
	next := store.TCGHistory{
		Game: "mtg", Day: "2025-04-01", Days: 10,
		Averages: sortedAverages(
			avg(1, "Normal", c(5250), c(2280)),   // 7: (501+9999)/2; 30: (200+300+400+501+9999)/5
			avg(1, "Foil", c(9999), c(3367)),     // 30: (50+51+9999)/3 = 3366.67
			avg(1, "normal", c(5003), c(5003)),   // (7+9999)/2
			avg(3, "Normal", c(3329), c(3329)),   // (-6-5+9999)/3 = 3329.33
			avg(3, "Holofoil", c(5005), c(5005)), // (10+9999)/2 = 5004.5
			avg(4, "Normal", c(9999), c(9999)),
		),
	}
	if diff := gocmp.Diff(next, mustAverages(t, s, "mtg", historyDay.AddDate(0, 0, 1)), cmpOpts...); diff != "" {
		t.Errorf("TCGMarketAverages(mtg, D+1) (-want +got):\n%s", diff)
	}

	for _, tt := range []struct {
		game string
		day  time.Time
		want store.TCGHistory
	}{
		// dbs's one point, on D-8: in the 30 days only.
		{"dbs", historyDay, store.TCGHistory{Game: "dbs", Day: "2025-03-31", Days: 1,
			Averages: []store.TCGAverage{{CardID: dbs.Cards[0].ID, Finish: "Foil", Avg30: c(250)}}}},
		{"nope", historyDay, store.TCGHistory{Game: "nope", Day: "2025-03-31"}},
		{"mtg", at(40), store.TCGHistory{Game: "mtg", Day: "2025-02-19"}}, // before any point
	} {
		if diff := gocmp.Diff(tt.want, mustAverages(t, s, tt.game, tt.day), cmpOpts...); diff != "" {
			t.Errorf("TCGMarketAverages(%s, %v) (-want +got):\n%s", tt.game, tt.day, diff)
		}
	}
}

// testTCGMarketAveragesCoverage: 31 consecutive days of points; a window
// covers 30 of them, or fewer when it reaches past them.
func testTCGMarketAveragesCoverage(t *testing.T, s store.Store) {
	c := catalog.Cents
	days := map[int]dayPrices{}
	for k := 0; k <= 30; k++ {
		days[k] = dayPrices{1: {"Normal": c(100 + int64(k))}}
	}
	writeDays(t, s, days)
	for _, tt := range []struct {
		day         time.Time
		days        int
		avg7, avg30 catalog.Money
	}{
		// 7 days: 100..106 -> 721/7 = 103; 30 days: 100..129 -> 3435/30 = 114.5 -> 115.
		{historyDay, 30, c(103), c(115)},
		// 101..107 -> 104; 101..130 -> 3465/30 = 115.5 -> 116.
		{historyDay.AddDate(0, 0, -1), 30, c(104), c(116)},
		// 100..105 -> 615/6 = 102.5 -> 103; 100..128 -> 3306/29 = 114
		{historyDay.AddDate(0, 0, 1), 29, c(103), c(114)},
		{historyDay.AddDate(0, 0, 29), 1, null(), c(100)},
		{historyDay.AddDate(0, 0, 30), 0, null(), null()},
	} {
		want := store.TCGHistory{Game: "mtg", Day: tt.day.Format(time.DateOnly), Days: tt.days}
		if tt.avg30.OK {
			want.Averages = []store.TCGAverage{avg(1, "Normal", tt.avg7, tt.avg30)}
		}
		if diff := gocmp.Diff(want, mustAverages(t, s, "mtg", tt.day), cmpOpts...); diff != "" {
			t.Errorf("TCGMarketAverages(mtg, %s) (-want +got):\n%s", tt.day.Format(time.DateOnly), diff)
		}
	}
}

func null() catalog.Money { return catalog.Money{} }
