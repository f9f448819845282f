package analytics

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Expected values below are computed by hand from the fixture (see
// fixture_test.go); the comment next to each shows the arithmetic in cents.
// Means and percentages round once, halves away from zero.

func TestStatisticsArithmetic(t *testing.T) {
	g := mustBuildFixture(t)
	bt1 := setInfo{Name: "Galactic Battle", SetCode: ptr("BT1"), SetID: "1001", TotalCards: 6} // sealed and null-typed left out
	bt1Rarity := map[string]int{"Common": 2, "Rare": 2, "Super Rare": 1, "Unknown": 1}         // Goku+Krillin, Vegeta+Frieza, Piccolo, Gohan
	bt2 := setInfo{Name: "Union Force", SetCode: ptr("BT2"), SetID: "1002", TotalCards: 3}
	promos := setInfo{Name: "Cardmarket Promos", SetID: "-501", TotalCards: 2} // Broly, Beerus; the display is sealed
	noStats := tcgStats{}

	tests := []struct {
		set, variant string
		info         setInfo
		tcg          tcgStats
		cm           cmStats
		rarity       map[string]int
	}{
		{
			set: "1001", variant: VariantNormal, info: bt1, rarity: bt1Rarity,
			// Normal market: Goku 20, Vegeta 60, Krillin 8 (Frieza's Normal has no market, Piccolo no Normal)
			// mean 88/3 = 29.33 -> 29
			tcg: tcgStats{Avg: ptr("0.29"), Min: ptr(0.08), Max: ptr(0.6),
				MostExpensive: &mostExpensive{ID: "dbs_0000000000000002", Name: "Vegeta", Price: 0.6}},
			// normal avg: Goku 110, Vegeta 55, Gohan 500 (Frieza's normal entry is empty)
			// mean 665/3 = 221.67 -> 222; trend: avg7 120+60+600 = 780 vs avg30 100+50+500 = 650, +20% > +5%
			cm: cmStats{Avg: ptr("2.22"), Min: ptr(0.55), Max: ptr(5.0), TrendDirection: "up",
				MostExpensive: &mostExpensive{ID: idGohan, Name: "Gohan (Alt Art)", Price: 5}},
		},
		{
			set: "1001", variant: VariantFoil, info: bt1, rarity: bt1Rarity,
			// Foil else Holofoil market: Goku Foil 180, Vegeta Holofoil 350, Piccolo Foil 1000 (not its Holofoil 950);
			// Frieza's Foil row is unpriced. mean 1530/3 = 510
			tcg: tcgStats{Avg: ptr("5.10"), Min: ptr(1.8), Max: ptr(10.0),
				MostExpensive: &mostExpensive{ID: "dbs_0000000000000003", Name: "Piccolo", Price: 10}},
			// foil avg, trend when avg null: Goku 250, Vegeta 320, Frieza (trend) 95, Piccolo 1200
			// mean 1865/4 = 466.25 -> 466; trend: Vegeta 400/300 and Piccolo 1100/1000 -> 1500 vs 1300, +15.4%
			cm: cmStats{Avg: ptr("4.66"), Min: ptr(0.95), Max: ptr(12.0), TrendDirection: "up",
				MostExpensive: &mostExpensive{ID: "dbs_0000000000000003", Name: "Piccolo", Price: 12}},
		},
		{
			set: "1002", variant: VariantNormal, info: bt2, rarity: map[string]int{"Common": 2, "Rare": 1},
			// Trunks 125, Bulma 125 ("normal" matches Normal), Cell 2: mean 252/3 = 84; the tie at 125 goes
			// to Trunks, first in listing order
			tcg: tcgStats{Avg: ptr("0.84"), Min: ptr(0.02), Max: ptr(1.25),
				MostExpensive: &mostExpensive{ID: "dbs_0000000000000011", Name: "Trunks", Price: 1.25}},
			// Trunks 150, Bulma 101, Cell 98: mean 349/3 = 116.33 -> 116
			// trend over every card (no 1 EUR threshold here): avg7 91+100+90 = 281 vs avg30 100+100+99 = 299,
			// -6.0% < -5%
			cm: cmStats{Avg: ptr("1.16"), Min: ptr(0.98), Max: ptr(1.5), TrendDirection: "down",
				MostExpensive: &mostExpensive{ID: "dbs_0000000000000011", Name: "Trunks", Price: 1.5}},
		},
		{
			set: "1002", variant: VariantFoil, info: bt2, rarity: map[string]int{"Common": 2, "Rare": 1},
			tcg: noStats, cm: cmStats{TrendDirection: "stable"}, // no foil anywhere: nulls
		},
		{
			set: "-501", variant: VariantNormal, info: promos, rarity: map[string]int{"Unknown": 2},
			tcg: noStats, // a Cardmarket-only set
			// Broly 1000 only; trend 1045 vs 1000 = +4.5%: stable
			cm: cmStats{Avg: ptr("10.00"), Min: ptr(10.0), Max: ptr(10.0), TrendDirection: "stable",
				MostExpensive: &mostExpensive{ID: idBroly, Name: "Broly (Promo)", Price: 10}},
		},
		{
			set: "-501", variant: VariantFoil, info: promos, rarity: map[string]int{"Unknown": 2},
			tcg: noStats,
			// Beerus foil avg 80; trend 85 vs 80 = +6.25%: up (statistics have no 1 EUR threshold)
			cm: cmStats{Avg: ptr("0.80"), Min: ptr(0.8), Max: ptr(0.8), TrendDirection: "up",
				MostExpensive: &mostExpensive{ID: idBeerus, Name: "Beerus (Foil Promo)", Price: 0.8}},
		},
		{
			set: "1003", variant: VariantNormal, rarity: map[string]int{"Common": 1, "Unknown": 1},
			info: setInfo{Name: "Cross Worlds", SetCode: ptr("BT3"), SetID: "1003", TotalCards: 2},
			tcg:  noStats, cm: cmStats{TrendDirection: "stable"}, // nothing priced: nulls
		},
	}
	for _, tt := range tests {
		t.Run(tt.set+"/"+tt.variant, func(t *testing.T) {
			got := decode[statisticsBody](t, g.Statistics(tt.set, tt.variant).Body)
			var want statisticsBody
			want.SetInfo = tt.info
			want.PriceStatistics.MarketT = tt.tcg
			want.PriceStatistics.MarketC = tt.cm
			want.RarityBreakdown = tt.rarity
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("statistics (-want +got):\n%s", diff)
			}
		})
	}
	if got, want := string(g.Statistics("1001", "").Body), string(g.Statistics("1001", VariantNormal).Body); got != want {
		t.Error(`variant "" is not normal`)
	}
}
