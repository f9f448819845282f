package analytics

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Expected values below are computed by hand from the fixture (see
// fixture_test.go); the comment next to each shows the arithmetic in cents.
// Means and percentages round once, halves away from zero.

func TestTrendingArithmetic(t *testing.T) {
	g := mustBuildFixture(t)
	got := decode[trendingBody](t, g.Trending(TrendingDefaultLimit).Body)
	type item struct {
		SetID             string
		CardCount         int
		PriceChange       string
		Current, Previous float64
		Movers            []moverJSON
	}
	want := []item{
		// Goku 120/100, Piccolo (foil, no normal) 1100/1000, Gohan 600/500; Vegeta's normal avg30 50 < 1 EUR
		// (its foil is not borrowed), Frieza has no avg30, the sealed box is left out.
		// change (1820-1600)/1600 = 13.75% -> +13.8% (half away from zero);
		// means 1820/3 = 606.67 -> 607, 1600/3 = 533.33 -> 533.
		// Movers: Goku +20% and Gohan +20% tie (listing order), then Piccolo +10%.
		{"1001", 3, "+13.8%", 6.07, 5.33, []moverJSON{{"Son Goku", "+20.0%"}, {"Gohan (Alt Art)", "+20.0%"}, {"Piccolo", "+10.0%"}}},
		// Trunks 91/100, Bulma 100/100 (avg30 exactly 1 EUR counts); Cell avg30 99 < 1 EUR.
		// change (191-200)/200 = -4.5%; means 191/2 = 95.5 -> 96, 200/2 = 100.
		// |-4.5%| ties with the promos' +4.5%: Union Force (released 2018-04-01) before the undated set.
		{"1002", 2, "-4.5%", 0.96, 1, []moverJSON{{"Trunks", "-9.0%"}, {"Bulma", "+0.0%"}}},
		// Broly 1045/1000 = +4.5%; Beerus avg30 80 < 1 EUR; the display is sealed.
		{"-501", 1, "+4.5%", 10.45, 10, []moverJSON{{"Broly (Promo)", "+4.5%"}}},
		// Cross Worlds: no card at 1 EUR or more, left out.
	}
	if got.Period != "7d" {
		t.Errorf("period = %q", got.Period)
	}
	var items []item
	for _, it := range got.TrendingSets {
		if it.MarketC == nil || it.MarketT == nil || it.MarketT.Status != "unavailable" || it.MarketT.Message == "" {
			t.Fatalf("set %s: market_c or market_t missing: %+v", it.SetID, it)
		}
		items = append(items, item{it.SetID, it.CardCnt, it.MarketC.PriceChange,
			it.MarketC.AvgPriceCurrent, it.MarketC.AvgPricePrevious, it.MarketC.TopMovers})
	}
	if diff := cmp.Diff(want, items); diff != "" {
		t.Errorf("trending (-want +got):\n%s", diff)
	}
}
