package analytics

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Expected values below are computed by hand from the fixture (see
// fixture_test.go); the comment next to each shows the arithmetic in cents.
// Means and percentages round once, halves away from zero.

func TestPricesBySetRows(t *testing.T) {
	g := mustBuildFixture(t)
	type row struct {
		Name, Variant string
		T, C          bool // market_t, market_c present
	}
	want := []row{
		// listing order: natural card number, then unnumbered by name, sealed last; finishes in upstream order
		{"Son Goku", "Normal", true, true}, // Cardmarket normal joins Normal
		{"Son Goku", "Foil", true, true},   // Cardmarket foil joins Foil
		{"Vegeta", "Normal", true, true},
		{"Vegeta", "Holofoil", true, true}, // no Foil: Cardmarket foil joins Holofoil
		{"Krillin", "Normal", true, false}, // TCGplayer only
		{"Frieza", "Normal", true, false},  // a low price only; the empty Cardmarket normal is no price
		{"Frieza", "Foil", false, true},    // the TCGplayer Foil row is unpriced: Cardmarket foil stands alone
		{"Piccolo", "Foil", true, true},    // Foil takes Cardmarket foil ...
		{"Piccolo", "Holofoil", true, false},
		{"Gohan (Alt Art)", "Normal", false, true}, // Cardmarket only
		{"Unidentified Product", "Normal", true, false},
		{"Galactic Battle Booster Box", "Normal", true, true}, // sealed products are listed, last
	}
	body := decode[pricesBody](t, g.PricesBySet("1001", SourceBoth).Body)
	var got []row
	for _, r := range body.Data {
		got = append(got, row{r.Name, r.Variant, r.MarketT != nil, r.MarketC != nil})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	if !body.Success || body.Source != "both" || body.SetID != "1001" || *body.SetCode != "BT1" || body.Total != len(want) {
		t.Errorf("envelope: success %v source %q set %q/%v total %d", body.Success, body.Source, body.SetID, body.SetCode, body.Total)
	}
	// Spot-check values: Vegeta's Holofoil row carries its TCGplayer Holofoil and Cardmarket foil prices.
	v := body.Data[3]
	if *v.MarketT.Market != 3.5 || *v.MarketC.Avg != 3.2 || *v.MarketT.UpdatedAt != "2025-05-30T22:00:00+02:00" {
		t.Errorf("Vegeta Holofoil row: %+v %+v", *v.MarketT, *v.MarketC)
	}

	// source=tcg and source=cm are the both-list filtered to rows with that side, the other side null.
	for _, set := range []string{"1001", "1002", "-501", "1003"} {
		both := decode[pricesBody](t, g.PricesBySet(set, SourceBoth).Body)
		for _, src := range []string{SourceTCG, SourceCM} {
			want := pricesBody{Success: true, Source: src, SetCode: both.SetCode, SetID: both.SetID, Data: []priceRowJSON{}}
			for _, r := range both.Data {
				switch {
				case src == SourceTCG && r.MarketT != nil:
					r.MarketC = nil
				case src == SourceCM && r.MarketC != nil:
					r.MarketT = nil
				default:
					continue
				}
				want.Data = append(want.Data, r)
			}
			want.Total = len(want.Data)
			got := decode[pricesBody](t, g.PricesBySet(set, src).Body)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("set %s source %s (-want +got):\n%s", set, src, diff)
			}
		}
		if both.Total != len(both.Data) {
			t.Errorf("set %s: total %d, %d rows", set, both.Total, len(both.Data))
		}
	}
	// 1003 has products but no price: no rows.
	if b := decode[pricesBody](t, g.PricesBySet("1003", "").Body); b.Total != 0 || b.Data == nil {
		t.Errorf("set 1003: %+v, want an empty data array", b)
	}
}
