package analytics

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Expected values below are computed by hand from the fixture (see
// fixture_test.go); the comment next to each shows the arithmetic in cents.
// Means and percentages round once, halves away from zero.

func TestCompletionArithmetic(t *testing.T) {
	g := mustBuildFixture(t)
	tests := []struct {
		set    string
		info   setInfo
		tcg    tcgEstimate
		cm     cmEstimate
		rarity map[string]rarityCostJSON
	}{
		{
			set:  "1001",
			info: setInfo{Name: "Galactic Battle", SetCode: ptr("BT1"), SetID: "1001", TotalCards: 6},
			// base finishes: Goku Normal, Vegeta Normal, Krillin Normal, Frieza Normal (low only),
			// Piccolo Holofoil (no Normal; Holofoil 950 is cheaper than Foil 1000); Gohan none.
			// low 10+50+5+40+800 = 905, market 20+60+8+950 = 1038, high 100+200+30+1400 = 1730
			tcg: tcgEstimate{Currency: "USD", Low: ptr(9.05), Market: ptr(10.38), High: ptr(17.3)},
			// normal else foil: Goku normal, Vegeta normal, Frieza foil, Piccolo foil, Gohan normal; Krillin none.
			// low 80+40+90+1000+450 = 1660, avg 110+55+1200+500 = 1865 (Frieza has no avg),
			// trend 115+58+95+1300+520 = 2088
			cm: cmEstimate{Currency: "EUR", Low: ptr(16.6), Avg: ptr(18.65), Trend: ptr(20.88)},
			rarity: map[string]rarityCostJSON{
				"Common":     {Count: 2, TotalCost: 0.28}, // Goku 20 + Krillin 8
				"Rare":       {Count: 2, TotalCost: 0.6},  // Vegeta 60 + Frieza (no market) 0
				"Super Rare": {Count: 1, TotalCost: 9.5},  // Piccolo Holofoil 950
				"Unknown":    {Count: 1, TotalCost: 0},    // Gohan, Cardmarket only
			},
		},
		{
			set:  "1002",
			info: setInfo{Name: "Union Force", SetCode: ptr("BT2"), SetID: "1002", TotalCards: 3},
			// low 100+100+1 = 201, market 125+125+2 = 252, high 300+200+3 = 503
			tcg: tcgEstimate{Currency: "USD", Low: ptr(2.01), Market: ptr(2.52), High: ptr(5.03)},
			// low 120+90+95 = 305, avg 150+101+98 = 349, trend 160+100+97 = 357
			cm: cmEstimate{Currency: "EUR", Low: ptr(3.05), Avg: ptr(3.49), Trend: ptr(3.57)},
			rarity: map[string]rarityCostJSON{
				"Common": {Count: 2, TotalCost: 2.5},  // 125 + 125
				"Rare":   {Count: 1, TotalCost: 0.02}, // 2
			},
		},
		{
			set:  "-501",
			info: setInfo{Name: "Cardmarket Promos", SetID: "-501", TotalCards: 2},
			tcg:  tcgEstimate{Currency: "USD"}, // nothing on TCGplayer: null estimates
			// Broly normal + Beerus foil (the display is sealed): low 900+70 = 970, avg 1000+80 = 1080,
			// trend 1100 + (Beerus null) = 1100
			cm:     cmEstimate{Currency: "EUR", Low: ptr(9.7), Avg: ptr(10.8), Trend: ptr(11.0)},
			rarity: map[string]rarityCostJSON{"Unknown": {Count: 2, TotalCost: 0}},
		},
		{
			set:    "1003",
			info:   setInfo{Name: "Cross Worlds", SetCode: ptr("BT3"), SetID: "1003", TotalCards: 2},
			tcg:    tcgEstimate{Currency: "USD"},
			cm:     cmEstimate{Currency: "EUR"},
			rarity: map[string]rarityCostJSON{"Common": {Count: 1}, "Unknown": {Count: 1}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.set, func(t *testing.T) {
			got := decode[completionBody](t, g.CompletionValue(tt.set).Body)
			var want completionBody
			want.SetInfo = tt.info
			want.CompletionCost.MarketT = tt.tcg
			want.CompletionCost.MarketC = tt.cm
			want.CompletionCost.Note = completionNote
			want.BreakdownByRarity = tt.rarity
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("completion value (-want +got):\n%s", diff)
			}
		})
	}
}
