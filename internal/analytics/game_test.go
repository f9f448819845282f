package analytics

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/cardcat/cardcat/internal/catalog"
)

func TestListLimits(t *testing.T) {
	g := mustBuildFixture(t)
	count := func(body []byte) int {
		if strings.Contains(string(body), `"trending_sets"`) {
			return len(decode[trendingBody](t, body).TrendingSets)
		}
		return len(decode[topCardsBody](t, body).TopCards)
	}
	tests := []struct {
		name string
		body []byte
		want int
	}{
		{"trending 1", g.Trending(1).Body, 1},
		{"trending 2", g.Trending(2).Body, 2},
		{"trending 0 clamps to 1", g.Trending(0).Body, 1},
		{"trending -3 clamps to 1", g.Trending(-3).Body, 1},
		{"trending 50: all three", g.Trending(50).Body, 3},
		{"trending 1000 clamps", g.Trending(1000).Body, 3},
		{"top price 3", g.TopCards(MetricPrice, SourceTCG, 3).Body, 3},
		{"top price 100: all seven", g.TopCards(MetricPrice, SourceTCG, 100).Body, 7},
		{"top price default source", g.TopCards(MetricPrice, "", 2).Body, 2},
		{"top growth default source", g.TopCards(MetricGrowth, "", 4).Body, 4},
		{"top growth 0 clamps to 1", g.TopCards(MetricGrowth, SourceCM, 0).Body, 1},
	}
	for _, tt := range tests {
		if got := count(tt.body); got != tt.want {
			t.Errorf("%s: %d items, want %d", tt.name, got, tt.want)
		}
	}
	// A shorter list is a prefix of a longer one.
	full := decode[topCardsBody](t, g.TopCards(MetricPrice, SourceCM, 100).Body).TopCards
	for k := 1; k <= len(full); k++ {
		got := decode[topCardsBody](t, g.TopCards(MetricPrice, SourceCM, k).Body).TopCards
		if got[k-1].ID != full[k-1].ID {
			t.Errorf("limit %d: last item %s, want %s", k, got[k-1].ID, full[k-1].ID)
		}
	}
}

// TestEmptyGame: a game without cards answers empty lists and no set.
func TestEmptyGame(t *testing.T) {
	g := mustBuild(t, fixture(), Options{MinAvg30: 1 << 40}) // nothing reaches the threshold
	if got, want := string(g.Trending(10).Body), `{"period":"7d","trending_sets":[]}`; got != want {
		t.Errorf("trending = %s, want %s", got, want)
	}
	if got, want := string(g.TopCards(MetricGrowth, SourceCM, 10).Body), `{"metric":"growth","source":"cm","top_cards":[]}`; got != want {
		t.Errorf("growth = %s, want %s", got, want)
	}
	empty := mustBuild(t, &catalog.GameCatalog{Game: "dbs"}, Options{})
	if got, want := string(empty.TopCards(MetricPrice, SourceTCG, 10).Body), `{"metric":"price","source":"tcg","top_cards":[]}`; got != want {
		t.Errorf("top = %s, want %s", got, want)
	}
	if empty.PricesBySet("1001", "").Body != nil {
		t.Error("a set of an empty game answered")
	}
	if got, want := string(mustBuild(t, nil, Options{}).Trending(10).Body), `{"period":"7d","trending_sets":[]}`; got != want {
		t.Errorf("trending of a nil catalogue = %s, want %s", got, want)
	}
}

// TestAnswersOutliveCatalogue: Build keeps nothing of the catalogue (the
// lazy prices bodies come from the snapshot), so changing or dropping the
// catalogue afterwards changes no answer.
func TestAnswersOutliveCatalogue(t *testing.T) {
	gc := fixture()
	g := mustBuild(t, gc, Options{})
	before := fixtureAnswers(g)
	for i := range gc.Cards {
		gc.Cards[i].Name = "changed"
		gc.Cards[i].ID = "changed"
		gc.Cards[i].TCGPrices = nil
		gc.Cards[i].CMPrices = nil
	}
	gc.Sets = nil
	for i, a := range fixtureAnswers(g) {
		if string(a.body) != string(before[i].body) {
			t.Errorf("%s changed with the catalogue", a.name)
		}
	}
}

// TestConcurrentAnswers renders the lazy list prefixes from many goroutines
// (run with -race).
func TestConcurrentAnswers(t *testing.T) {
	g := mustBuildFixture(t)
	want := map[string]string{}
	for limit := 1; limit <= 8; limit++ {
		want[fmt.Sprint("t", limit)] = string(mustBuildFixture(t).Trending(limit).Body)
		want[fmt.Sprint("p", limit)] = string(mustBuildFixture(t).TopCards(MetricPrice, SourceCM, limit).Body)
	}
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for limit := 1; limit <= 8; limit++ {
				if got := string(g.Trending(limit).Body); got != want[fmt.Sprint("t", limit)] {
					t.Errorf("trending %d differs", limit)
				}
				if got := string(g.TopCards(MetricPrice, SourceCM, limit).Body); got != want[fmt.Sprint("p", limit)] {
					t.Errorf("top cards %d differs", limit)
				}
				_ = g.PricesBySet("1001", SourceCM).Body
			}
		}()
	}
	wg.Wait()
}
