package analytics

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Expected values below are computed by hand from the fixture (see
// fixture_test.go); the comment next to each shows the arithmetic in cents.
// Means and percentages round once, halves away from zero.

func TestTopCardsArithmetic(t *testing.T) {
	g := mustBuildFixture(t)
	type item struct {
		ID     string
		Price  float64
		Change string
	}
	tests := []struct {
		metric, source string
		want           []item
	}{
		{MetricPrice, SourceTCG, []item{
			// highest market over the finishes; sealed box (95.00) and null-typed product (3.00) left out;
			// Frieza has no market price, Cardmarket-only cards no TCGplayer price
			{"dbs_0000000000000003", 10, ""},   // Piccolo max(1000, 950)
			{"dbs_0000000000000002", 3.5, ""},  // Vegeta max(60, 350)
			{"dbs_0000000000000001", 1.8, ""},  // Goku max(20, 180)
			{"dbs_0000000000000011", 1.25, ""}, // Trunks 125 ties with Bulma: smaller id first
			{"dbs_0000000000000012", 1.25, ""}, // Bulma
			{"dbs_0000000000000004", 0.08, ""}, // Krillin
			{"dbs_0000000000000013", 0.02, ""}, // Cell
		}},
		{MetricPrice, SourceCM, []item{
			// trend of normal-else-foil, avg when trend is null
			{"dbs_0000000000000003", 13, ""},   // Piccolo foil trend 1300
			{idBroly, 11, ""},                  // 1100
			{idGohan, 5.2, ""},                 // 520
			{"dbs_0000000000000011", 1.6, ""},  // Trunks 160
			{"dbs_0000000000000001", 1.15, ""}, // Goku normal 115 (not its foil 260)
			{"dbs_0000000000000012", 1, ""},    // Bulma 100
			{"dbs_0000000000000013", 0.97, ""}, // Cell 97
			{"dbs_0000000000000008", 0.95, ""}, // Frieza foil (normal entry empty) 95
			{idBeerus, 0.8, ""},                // Beerus foil trend null -> avg 80
			{"dbs_0000000000000002", 0.58, ""}, // Vegeta 58
		}},
		{MetricGrowth, SourceCM, []item{
			// avg30 >= 100 with an avg7; current = avg7; change (avg7-avg30)/avg30
			{idGohan, 6, "+20.0%"},                  // 600/500; ties with Goku: smaller id first ("aaa" < "dbs")
			{"dbs_0000000000000001", 1.2, "+20.0%"}, // 120/100
			{"dbs_0000000000000003", 11, "+10.0%"},  // 1100/1000
			{idBroly, 10.45, "+4.5%"},               // 1045/1000
			{"dbs_0000000000000012", 1, "+0.0%"},    // Bulma 100/100, avg30 exactly 1 EUR
			{"dbs_0000000000000011", 0.91, "-9.0%"}, // Trunks 91/100
			// left out: Vegeta (normal avg30 50), Cell (99), Beerus (80), the sealed box and display
		}},
	}
	for _, tt := range tests {
		t.Run(tt.metric+"/"+tt.source, func(t *testing.T) {
			body := decode[topCardsBody](t, g.TopCards(tt.metric, tt.source, TopCardsMaxLimit).Body)
			if body.Metric != tt.metric || body.Source != tt.source {
				t.Errorf("metric, source = %q, %q", body.Metric, body.Source)
			}
			var got []item
			for _, it := range body.TopCards {
				var change string
				if it.Change7d != nil {
					change = *it.Change7d
				}
				got = append(got, item{it.ID, it.CurrentPrice, change})
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("top cards (-want +got):\n%s", diff)
			}
			// card_info is the snapshot's rendering (catalog.AppendCardInfo).
			for _, it := range body.TopCards {
				if !json.Valid(it.CardInfo) || !strings.Contains(string(it.CardInfo), `"set_id":`) {
					t.Errorf("%s: card_info %s", it.ID, it.CardInfo)
				}
			}
		})
	}
}
