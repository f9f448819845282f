package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/ingest"
	"github.com/cardcat/cardcat/internal/serving"
	"github.com/cardcat/cardcat/internal/store/sqlite"
)

// Real data: the bundled sample mirror (sample/ at the repository root) and
// the real TCGplayer files of ../shared/data (beside the repository on the
// development and CI machines). Each test skips, saying so, when its
// directory is absent.
var (
	sampleDir = filepath.Join("..", "..", "sample")
	sharedDir = filepath.Join("..", "..", "..", "shared", "data")
)

func mustMirror(t *testing.T, dir string) *catalog.Catalog {
	t.Helper()
	if _, err := os.Stat(filepath.Join(dir, "tcgplayer")); err != nil {
		t.Skipf("no mirror at %s", dir)
	}
	c, _, err := ingest.BuildFromMirror(context.Background(), dir, game.Default(), testNow)
	if err != nil {
		t.Fatalf("ingest %s: %v", dir, err)
	}
	return c
}

// TestRealNames: every real card name passes the SQL check, and searching a
// name (its first 100 characters) finds its card; every card's detail and
// its set's listing answer.
func TestRealNames(t *testing.T) {
	for _, dir := range []string{sampleDir, sharedDir} {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			c := mustMirror(t, dir)
			h := mustServer(t, Config{}, testDeps(mustView(t, c)))
			n := 0
			for _, gc := range c.Games {
				for _, card := range gc.Cards {
					n++
					if catalog.LooksLikeSQL(card.Name) {
						t.Errorf("%s: %q looks like SQL", gc.Game, card.Name)
					}
					if w := get(h, prefix(gc.Game)+"/cards/"+card.ID); w.Code != http.StatusOK {
						t.Errorf("%s card %s: %d", gc.Game, card.ID, w.Code)
					}
					q := []rune(card.Name)
					if len(q) > queryMax {
						q = q[:queryMax]
					}
					if !searchFinds(t, h, gc.Game, string(q), card.ID) {
						t.Errorf("%s: %q not found by searching its name", gc.Game, card.Name)
					}
				}
			}
			t.Logf("%d real cards checked", n)
		})
	}
}

// searchFinds pages through a search until it finds id.
func searchFinds(t *testing.T, h http.Handler, game, q, id string) bool {
	t.Helper()
	for page := 1; page <= 10; page++ {
		w := get(h, prefix(game)+"/search?limit=100&page="+itoa(page)+"&q="+url.QueryEscape(q))
		if w.Code != http.StatusOK {
			t.Errorf("search %q: %d %s", q, w.Code, w.Body)
			return false
		}
		var body struct {
			Results []struct{ ID string }
		}
		if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
			t.Fatal(err)
		}
		for _, r := range body.Results {
			if r.ID == id {
				return true
			}
		}
		if len(body.Results) < 100 {
			return false
		}
	}
	return false
}

// TestSampleGolden keeps the answers of every endpoint on the bundled sample,
// free and paid, for both games, in testdata/golden/sample_*.json.
func TestSampleGolden(t *testing.T) {
	c := mustMirror(t, sampleDir)
	if _, err := os.Stat(filepath.Join("testdata", "golden", "sample_dbs_sets.json")); err != nil && !*update {
		t.Skip("the sample's golden files are not written yet: run go test ./internal/httpapi -update")
	}
	snap := mustView(t, c)
	deps := paidDeps(snap)
	deps.Changes, _, _ = changeStore(t, c)
	deps.Bulk = mustBulk(t, snap)
	deps.History = sampleHistory(t, c)
	h := mustServer(t, Config{}, deps)
	var cases []goldenCase
	for _, g := range snap.Games() {
		code := g.Game().Code
		cases = append(cases, goldenCase{"sample_" + code + "_sets", prefix(code) + "/sets", 200, nil},
			goldenCase{"sample_" + code + "_bulk", prefix(code) + "/bulk", 200, nil})
		sets := g.Sets()
		if len(sets) == 0 {
			continue
		}
		// The newest set, first page of 10; one card's detail; a search.
		set := sets[0]
		cases = append(cases,
			goldenCase{"sample_" + code + "_set_cards", prefix(code) + "/sets/" + url.PathEscape(set.ID) + "?limit=10", 200, nil})
		first, _ := set.Cards()
		var card struct {
			ID       string
			CardInfo struct{ Name string } `json:"card_info"`
		}
		json.Unmarshal([]byte(g.CardJSON(first)), &card)
		cases = append(cases,
			goldenCase{"sample_" + code + "_card", prefix(code) + "/cards/" + card.ID, 200, nil},
			goldenCase{"sample_" + code + "_search", prefix(code) + "/search?limit=5&q=" + url.QueryEscape(card.CardInfo.Name), 200, nil},
			goldenCase{"sample_" + code + "_changes", prefix(code) + "/changes?since=" + sinceQuery(changesFirst), 200, nil})
	}
	cases = append(cases, sampleMarketplaceCases(c, snap)...)
	cases = append(cases,
		goldenCase{"sample_dbs_set_code_shared", "/dbs/sets/FB03_AR", 200, nil},
		goldenCase{"sample_mtg_set_code_shared", "/mtg/sets/WHO", 200, nil})
	cases = append(cases, samplePaidCases(snap)...)
	for i := range cases {
		cases[i].headers = []string{"X-API-Key", keyUltra}
	}
	runGolden(t, h, cases)
}

// samplePaidCases are the paid endpoints of each game on the sample. The
// sets are chosen by rule, so that a regenerated sample still has them:
// statistics and completion value of the set with the most cards; prices of
// the smallest TCGplayer set (positive set_id) with at least 5 products.
func samplePaidCases(v *serving.View) []goldenCase {
	var cases []goldenCase
	for _, g := range v.Games() {
		code := g.Game().Code
		var big, small *catalog.ListedSet
		for i := range g.Sets() {
			s := &g.Sets()[i]
			if big == nil || s.CardCount > big.CardCount {
				big = s
			}
			if !strings.HasPrefix(s.ID, "-") && s.Total >= 5 && (small == nil || s.Total < small.Total) {
				small = s
			}
		}
		p := prefix(code)
		if small != nil {
			cases = append(cases, goldenCase{"sample_" + code + "_prices", p + "/prices/" + small.ID, 200, nil})
		}
		if big != nil {
			cases = append(cases,
				goldenCase{"sample_" + code + "_statistics", p + "/sets/" + big.ID + "/statistics", 200, nil},
				goldenCase{"sample_" + code + "_statistics_foil", p + "/sets/" + big.ID + "/statistics?variant=foil", 200, nil},
				goldenCase{"sample_" + code + "_completion_value", p + "/sets/" + big.ID + "/completion-value", 200, nil})
		}
		if id := historyCard(g); id != "" {
			cases = append(cases, goldenCase{"sample_" + code + "_history", p + "/cards/" + id + "/history?days=7", 200, nil})
		}
		cases = append(cases,
			goldenCase{"sample_" + code + "_trending", p + "/sets/trending", 200, nil},
			goldenCase{"sample_" + code + "_top_cards_price_tcg", p + "/analytics/top-cards?limit=5", 200, nil},
			goldenCase{"sample_" + code + "_top_cards_price_cm", p + "/analytics/top-cards?source=cm&limit=5", 200, nil},
			goldenCase{"sample_" + code + "_top_cards_growth", p + "/analytics/top-cards?metric=growth&limit=5", 200, nil})
	}
	return cases
}

// sampleMarketplaceCases are the lookups by marketplace number and the batch
// lookup of each game on the sample, chosen by rule: the first linked card
// (product type card) of the catalogue by its TCGplayer productId and by its Cardmarket
// idProduct; and a batch of that card, the newest set's first card, the
// linked card again by its Cardmarket id (answered once) and an unknown id.
func sampleMarketplaceCases(c *catalog.Catalog, v *serving.View) []goldenCase {
	var cases []goldenCase
	for _, gc := range c.Games {
		code := gc.Game
		i := slices.IndexFunc(gc.Cards, func(card catalog.Card) bool {
			return card.OnTCG() && card.OnCM() && card.ProductType == catalog.ProductCard
		})
		g := v.Game(code)
		if i < 0 || g == nil || len(g.Sets()) == 0 {
			continue
		}
		linked := &gc.Cards[i]
		first, _ := g.Sets()[0].Cards()
		var newest struct{ ID string }
		json.Unmarshal([]byte(g.CardJSON(first)), &newest)
		p := prefix(code) + "/cards"
		cases = append(cases,
			goldenCase{"sample_" + code + "_card_by_tcgplayer", p + "/tcgplayer/" + strconv.Itoa(linked.TCGProductID), 200, nil},
			goldenCase{"sample_" + code + "_card_by_cardmarket", p + "/cardmarket/" + strconv.Itoa(linked.CMProductID), 200, nil},
			goldenCase{"sample_" + code + "_cards", p + "?ids=" + strings.Join([]string{linked.ID, newest.ID, linked.CMID, code + "_0000000000000000"}, ","), 200, nil})
	}
	return cases
}

// sampleHistory is a SQLite store holding the sample's price points of
// three days of the week ending on its version's day: D-6 and D-2 with
// prices 10% and 4% under D's (market price and trend), and D.
func sampleHistory(t *testing.T, c *catalog.Catalog) *sqlite.DB {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "cardcat.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	var base int64
	for _, k := range []int{6, 2, 0} {
		b, _ := json.Marshal(c) // a copy to change
		var day catalog.Catalog
		json.Unmarshal(b, &day)
		for i := range day.Games {
			for j := range day.Games[i].Cards {
				card := &day.Games[i].Cards[j]
				for n := range card.TCGPrices {
					card.TCGPrices[n].Market = lower(card.TCGPrices[n].Market, k)
				}
				for n := range card.CMPrices {
					card.CMPrices[n].Trend = lower(card.CMPrices[n].Trend, k)
				}
			}
		}
		if base, err = st.ReplaceCatalog(ctx, base, day.Games, "{}", c.CreatedAt.AddDate(0, 0, -k)); err != nil {
			t.Fatal(err)
		}
	}
	return st
}

// lower is m less 2k percent, in whole cents.
func lower(m catalog.Money, k int) catalog.Money {
	if !m.OK {
		return m
	}
	return catalog.Cents(m.Cents * int64(100-2*k) / 100)
}

// historyCard is the example card of the history: the first of the set
// with the most cards that has a TCGplayer and a Cardmarket price.
func historyCard(g *catalog.GameSnapshot) string {
	var big *catalog.ListedSet
	for i := range g.Sets() {
		if s := &g.Sets()[i]; big == nil || s.CardCount > big.CardCount {
			big = s
		}
	}
	if big == nil {
		return ""
	}
	var p catalog.CardPrices
	for r, end := big.Cards(); r < end; r++ {
		g.CardPrices(r, &p)
		if len(p.TCG) > 0 && len(p.CM) > 0 {
			return p.ID
		}
	}
	return ""
}
