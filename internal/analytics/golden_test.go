package analytics

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/cardcat/cardcat/internal/store"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// answer is one answer of the fixture and the golden file that holds it.
type answer struct {
	name string
	body []byte
}

// fixtureAnswers lists every answer of the fixture, one golden file each.
func fixtureAnswers(g *Game) []answer {
	var out []answer
	for _, set := range []string{"1001", "1002", "-501", "1003"} {
		for _, src := range []string{SourceBoth, SourceTCG, SourceCM} {
			out = append(out, answer{"prices_" + set + "_" + src, g.PricesBySet(set, src).Body})
		}
		for _, v := range []string{VariantNormal, VariantFoil} {
			out = append(out, answer{"statistics_" + set + "_" + v, g.Statistics(set, v).Body})
		}
		out = append(out, answer{"completion_" + set, g.CompletionValue(set).Body})
	}
	out = append(out,
		answer{"trending", g.Trending(TrendingDefaultLimit).Body},
		answer{"topcards_price_tcg", g.TopCards(MetricPrice, SourceTCG, TopCardsDefaultLimit).Body},
		answer{"topcards_price_cm", g.TopCards(MetricPrice, SourceCM, TopCardsDefaultLimit).Body},
		answer{"topcards_growth_cm", g.TopCards(MetricGrowth, SourceCM, TopCardsDefaultLimit).Body},
	)
	return out
}

// historyAnswers are the trending answers of the fixture with TCGplayer
// history covering 30 and 29 days (fixtureHistory).
func historyAnswers(tb testing.TB) []answer {
	var out []answer
	for _, days := range []int{30, 29} {
		g := mustBuild(tb, fixture(), Options{TCGHistory: map[string]*store.TCGHistory{"dbs": fixtureHistory(days)}})
		out = append(out, answer{fmt.Sprintf("trending_tcg_%d_days", days), g.Trending(TrendingDefaultLimit).Body})
	}
	return out
}

// TestGolden compares every answer of the fixture with testdata/NAME.json.
// The files hold the body indented by json.Indent, which changes only
// whitespace: every token (12.5 against 12.50, "+0.0%", null) is compared as
// the API writes it. Regenerate with: go test ./internal/analytics -update
func TestGolden(t *testing.T) {
	g := mustBuildFixture(t)
	for _, a := range append(fixtureAnswers(g), historyAnswers(t)...) {
		t.Run(a.name, func(t *testing.T) {
			if a.body == nil {
				t.Fatal("no answer")
			}
			var got bytes.Buffer
			if err := json.Indent(&got, a.body, "", "  "); err != nil {
				t.Fatalf("invalid JSON: %v\n%s", err, a.body)
			}
			got.WriteByte('\n')
			path := filepath.Join("testdata", a.name+".json")
			if *update {
				if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./internal/analytics -update)", err)
			}
			if diff := cmp.Diff(string(want), got.String()); diff != "" {
				t.Errorf("%s differs (-golden +got):\n%s", path, diff)
			}
		})
	}
}
