package storetest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/store"
	gocmp "github.com/google/go-cmp/cmp"
)

// historyPoint is a point of historyGame's card pid: TCGplayer low 1 and
// market m; Cardmarket (card 5) avg 1.
func historyPoint(pid int, market, finish string, k int, m catalog.Money) store.PricePoint {
	day := historyDay.AddDate(0, 0, -k).Format(time.DateOnly)
	if market == store.MarketCM {
		return cmPoint(catalog.TCGCardID("mtg", pid), finish, day, catalog.Cents(100), null(), null(), null(), null(), null())
	}
	return tcgPoint(catalog.TCGCardID("mtg", pid), finish, day, catalog.Cents(1), null(), null(), m, null())
}

func mustWindow(t *testing.T, s store.Store, pid int, market string, from, to time.Time) []store.PricePoint {
	t.Helper()
	got, err := s.PriceHistoryWindow(context.Background(), "mtg", catalog.TCGCardID("mtg", pid), market, from, to)
	if err != nil {
		t.Fatalf("PriceHistoryWindow(%d, %s, %v, %v): %v", pid, market, from, to, err)
	}
	return got
}

// testPriceHistoryWindow checks the window's edges (UTC days, both
// included), the order (day, then finish in byte order), the market and the
// days without a point.
func testPriceHistoryWindow(t *testing.T, s store.Store) {
	c := catalog.Cents
	writeDays(t, s, map[int]dayPrices{
		10: {1: {"Normal": c(10)}},
		5:  {1: {"Normal": c(50), "Foil": c(51)}},
		3:  {1: {"normal": c(30), "Normal": c(31), "Foil": null()}},
		0:  {1: {"Normal": c(1)}},
		-1: {1: {"Normal": c(99)}},
	})
	// From D-5 at 23:30 in UTC+2 (D-5 21:30 UTC) to D at 00:30 in UTC-2 (D 02:30 UTC).
	from := time.Date(2025, 3, 26, 23, 30, 0, 0, time.FixedZone("EET", 2*3600))
	to := time.Date(2025, 3, 31, 0, 30, 0, 0, time.FixedZone("BRT", -2*3600))
	tcg := func(k int, finish string, m catalog.Money) store.PricePoint {
		return historyPoint(1, store.MarketTCG, finish, k, m)
	}
	want := []store.PricePoint{
		tcg(5, "Foil", c(51)), tcg(5, "Normal", c(50)),
		tcg(3, "Foil", null()), tcg(3, "Normal", c(31)), tcg(3, "normal", c(30)),
		tcg(0, "Normal", c(1)),
	}
	if diff := gocmp.Diff(want, mustWindow(t, s, 1, store.MarketTCG, from, to), cmpOpts...); diff != "" {
		t.Errorf("PriceHistoryWindow(card 1, tcg, D-5..D) (-want +got):\n%s", diff)
	}
	// One day; a window with no point; the other market.
	if diff := gocmp.Diff(want[2:5], mustWindow(t, s, 1, store.MarketTCG, at(3), at(3)), cmpOpts...); diff != "" {
		t.Errorf("PriceHistoryWindow(card 1, tcg, D-3) (-want +got):\n%s", diff)
	}
	for _, tt := range []struct {
		pid      int
		market   string
		from, to int
	}{
		{1, store.MarketTCG, 9, 6}, // between points
		{1, store.MarketCM, 10, -1},
		{4, store.MarketTCG, 10, -1}, // a card without points
		{1, store.MarketTCG, 0, 5},   // from after to
	} {
		if got := mustWindow(t, s, tt.pid, tt.market, at(tt.from), at(tt.to)); len(got) != 0 {
			t.Errorf("PriceHistoryWindow(card %d, %s, D-%d..D-%d) = %v, want none", tt.pid, tt.market, tt.from, tt.to, got)
		}
	}
	cm := mustWindow(t, s, 5, store.MarketCM, at(5), at(-1))
	wantCM := []store.PricePoint{
		historyPoint(5, store.MarketCM, catalog.CMNormal, 5, null()), historyPoint(5, store.MarketCM, catalog.CMNormal, 3, null()),
		historyPoint(5, store.MarketCM, catalog.CMNormal, 0, null()), historyPoint(5, store.MarketCM, catalog.CMNormal, -1, null()),
	}
	if diff := gocmp.Diff(wantCM, cm, cmpOpts...); diff != "" {
		t.Errorf("PriceHistoryWindow(card 5, cm) (-want +got):\n%s", diff)
	}
}

// testPrunePriceHistory: the game's points before the day are deleted,
// those of its current finishes and those of finishes and cards no longer
// in the catalogue alike; that day's, later ones and other games' are kept;
// a second prune deletes nothing; a prune into the 30-day window of the
// stored TCGplayer history makes TCGMarketAverages read what is left.
func testPrunePriceHistory(t *testing.T, s store.Store) {
	ctx := context.Background()
	c := catalog.Cents
	dbs := sampleDBS()
	base := MustReplace(t, s, 0, []catalog.GameCatalog{dbs}, "{}", at(8))
	// Card 4 is in the catalogue on D-5 and D-2 only (priced on both marketplaces), card 1's "normal"
	// on D-4 and D-2; card 2 is never priced after D-5.
	for _, d := range []struct {
		k      int
		prices dayPrices
	}{
		{5, dayPrices{1: {"Normal": c(5)}, 2: {"Normal": c(5)}, 4: {"Normal": c(5)}}},
		{4, dayPrices{1: {"Normal": c(4), "Foil": c(4), "normal": c(4)}}},
		{3, dayPrices{1: {"Normal": c(3)}}},
		{2, dayPrices{1: {"Normal": c(2), "normal": c(2)}, 4: {"Normal": c(2)}}},
		{0, dayPrices{1: {"Normal": c(0), "Foil": c(0)}}},
	} {
		g := historyGame(d.prices)
		if _, ok := d.prices[4]; ok {
			g.Cards[3].CMPrices = []catalog.CMPrice{{Variant: catalog.CMFoil, Avg: c(100)}}
		} else {
			g.Cards = slices.Delete(g.Cards, 3, 4)
		}
		base = MustReplace(t, s, base, []catalog.GameCatalog{g}, "{}", at(d.k))
	}
	stored := mustAverages(t, s, "mtg", at(0))
	if len(stored.Averages) == 0 || stored.Averages[1].Avg7 != c(3) { // card 1's Normal: (5+4+3+2+0)/5
		t.Fatalf("TCGplayer history before the prune: %+v, want card 1's Normal at 3", stored)
	}

	// Before D-2 (any time of that UTC day): card 1's Normal on D-5, D-4, D-3, its Foil and normal on D-4,
	// card 2's Normal on D-5, card 4's two points of D-5, card 5's Cardmarket normal on D-5, D-4, D-3.
	n, err := s.PrunePriceHistory(ctx, "mtg", at(2).Add(11*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if n != 11 {
		t.Errorf("PrunePriceHistory deleted %d points, want 11", n)
	}
	tcg := func(pid, k int, finish string, m catalog.Money) store.PricePoint {
		return historyPoint(pid, store.MarketTCG, finish, k, m)
	}
	for _, tt := range []struct {
		pid    int
		market string
		want   []store.PricePoint
	}{
		{1, store.MarketTCG, []store.PricePoint{tcg(1, 2, "Normal", c(2)), tcg(1, 2, "normal", c(2)), tcg(1, 0, "Foil", c(0)), tcg(1, 0, "Normal", c(0))}},
		{2, store.MarketTCG, nil},
		{4, store.MarketTCG, []store.PricePoint{tcg(4, 2, "Normal", c(2))}},
		{4, store.MarketCM, []store.PricePoint{cmPoint(catalog.TCGCardID("mtg", 4), catalog.CMFoil, at(2).Format(time.DateOnly),
			c(100), null(), null(), null(), null(), null())}},
		{5, store.MarketCM, []store.PricePoint{historyPoint(5, store.MarketCM, catalog.CMNormal, 2, null()),
			historyPoint(5, store.MarketCM, catalog.CMNormal, 0, null())}},
	} {
		if diff := gocmp.Diff(tt.want, mustWindow(t, s, tt.pid, tt.market, at(30), at(0)), cmpOpts...); diff != "" {
			t.Errorf("card %d's %s points after the prune (-want +got):\n%s", tt.pid, tt.market, diff)
		}
	}
	if h, err := s.PriceHistory(ctx, "dbs", dbs.Cards[0].ID); err != nil || len(h) == 0 {
		t.Errorf("dbs's history after pruning mtg: %v, %v; want it kept", h, err)
	}
	// The prune reached into the windows of D's stored history: it is computed from the points left.
	want := store.TCGHistory{Game: "mtg", Day: at(0).Format(time.DateOnly), Days: 2,
		Averages: sortedAverages(avg(1, "Normal", c(1), c(1)), avg(1, "Foil", c(0), c(0)))}
	if diff := gocmp.Diff(want, mustAverages(t, s, "mtg", at(0)), cmpOpts...); diff != "" {
		t.Errorf("TCGMarketAverages after a prune into its window (-want +got):\n%s", diff)
	}
	if n, err := s.PrunePriceHistory(ctx, "mtg", at(2)); err != nil || n != 0 {
		t.Errorf("a second prune: %d, %v; want 0, nil", n, err)
	}
	if n, err := s.PrunePriceHistory(ctx, "nope", at(-10)); err != nil || n != 0 {
		t.Errorf("prune of an unknown game: %d, %v; want 0, nil", n, err)
	}
}
