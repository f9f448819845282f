package ingest_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/ingest"
)

// sampleDir is the bundled sample mirror: real TCGplayer catalogue files plus
// generated prices and Cardmarket files (see sample/README.md).
const sampleDir = "../../sample"

var (
	sampleOnce sync.Once
	sampleCat  *catalog.Catalog
	sampleRep  *ingest.Report
	sampleErr  error
)

func sample(t *testing.T) (*catalog.Catalog, *ingest.Report) {
	t.Helper()
	sampleOnce.Do(func() {
		sampleCat, sampleRep, sampleErr = ingest.BuildFromMirror(context.Background(), sampleDir, game.Default(), now)
	})
	if sampleErr != nil {
		t.Fatal(sampleErr)
	}
	return sampleCat, sampleRep
}

func findCard(t *testing.T, gc *catalog.GameCatalog, productID int) catalog.Card {
	t.Helper()
	for _, c := range gc.Cards {
		if c.TCGProductID == productID {
			return c
		}
	}
	t.Fatalf("%s: no card for TCGplayer product %d", gc.Game, productID)
	return catalog.Card{}
}

func extra(c catalog.Card) map[string]string {
	m := map[string]string{}
	for _, e := range c.Extra {
		m[e.Key] = e.Value
	}
	return m
}

func TestRealExtendedDataSpellings(t *testing.T) {
	cat, _ := sample(t)
	dbs, mtg := cat.Game("dbs"), cat.Game("mtg")

	roshi := findCard(t, dbs, 535906) // FS01 Master Roshi
	if roshi.Rarity != "Common" || roshi.CardNumber != "FS01-03" || roshi.CardType != "Battle" || roshi.CardText != "[On Play] Draw 1 card." {
		t.Errorf("Master Roshi card_info = %+v", roshi)
	}
	want := map[string]string{"color": "Red", "cost": "1(R)", "power": "5000", "combo_power": "5000", "character_traits": "Earthling;Universe 7"}
	if got := extra(roshi); !mapsEqual(got, want) {
		t.Errorf("Master Roshi extra fields = %v, want %v", got, want)
	}
	var keys []string
	for _, e := range roshi.Extra {
		keys = append(keys, e.Key)
	}
	if got := strings.Join(keys, ","); got != "color,power,combo_power,character_traits,cost" {
		t.Errorf("extra fields not in the registry's order: %s", got)
	}

	ext := findCard(t, mtg, 507040) // WHO Exterminate!
	e := extra(ext)
	if ext.CardNumber != "68" || ext.Rarity != "U" || e["sub_type"] != "Sorcery" || !strings.HasPrefix(e["flavor_text"], "<em>“You are the enemy") {
		t.Errorf("Exterminate! = %+v extra %v", ext, e)
	}
	if ext.CardType != "" {
		t.Errorf("Magic has no CardType field, card_type = %q", ext.CardType)
	}
	// HTML and \r\n kept as upstream has them.
	if !strings.Contains(ext.CardText, "<em>(") || !strings.Contains(ext.CardText, "\r\n<br>Destroy target creature") {
		t.Errorf("card_text lost its HTML: %q", ext.CardText)
	}
	if ext.CleanName != "Exterminate" {
		t.Errorf("clean_name = %q", ext.CleanName)
	}
	// Only the spec's fields: nothing from a base game, no display names.
	for _, g := range cat.Games {
		reg, _ := game.Default().Get(g.Game)
		allowed := map[string]bool{}
		for _, f := range reg.Extra {
			allowed[f.Key] = true
		}
		for _, c := range g.Cards {
			for _, e := range c.Extra {
				if !allowed[e.Key] {
					t.Fatalf("%s card %s has field %q outside the spec", g.Game, c.ID, e.Key)
				}
			}
		}
	}
	// P/T and double-faced tokens.
	for _, c := range mtg.Cards {
		if e := extra(c); e["p"] == "*" || strings.Contains(e["p"], "//") {
			return
		}
	}
	t.Error("no Magic card with a * or // power found")
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestRealProductTypes(t *testing.T) {
	cat, _ := sample(t)
	dbs, mtg := cat.Game("dbs"), cat.Game("mtg")
	tests := []struct {
		gc      *catalog.GameCatalog
		product int
		want    string
		why     string
	}{
		{dbs, 541181, catalog.ProductCard, "Fusion World code card: Rarity only"},
		{dbs, 535546, catalog.ProductSealed, "Fusion World booster box: empty extendedData, name says box"},
		{dbs, 543403, catalog.ProductSealed, "sleeved packs [Set of 4]"},
		{dbs, 535550, catalog.ProductSealed, "starter deck"},
		{mtg, 541234, catalog.ProductSealed, "Magic sealed: UPC and OracleText description"},
		{mtg, 622735, catalog.ProductSealed, "Tins [Set of 3]"},
		{mtg, 551402, "", "Pinfinity pin: nothing says card or sealed"},
		{mtg, 496070, catalog.ProductSealed, "commander deck"},
	}
	for _, tt := range tests {
		c := findCard(t, tt.gc, tt.product)
		if c.ProductType != tt.want {
			t.Errorf("%s (%d %q): product_type = %q, want %q", tt.why, tt.product, c.Name, c.ProductType, tt.want)
		}
	}
	code := findCard(t, dbs, 541181)
	if code.Rarity != "Code Card" || code.CardNumber != "" {
		t.Errorf("code card rarity %q number %q", code.Rarity, code.CardNumber)
	}
	box := findCard(t, mtg, 541234)
	if e := extra(box); e["upc"] != "195166257105" || !strings.HasPrefix(box.CardText, "In Bloomburrow") {
		t.Errorf("sealed product: upc %q, card_text %q", e["upc"], box.CardText)
	}
}

func TestRealSharedSetCodes(t *testing.T) {
	cat, _ := sample(t)
	codes := map[string]map[string][]string{} // game → code → set ids
	for _, g := range cat.Games {
		codes[g.Game] = map[string][]string{}
		for _, s := range g.Sets {
			codes[g.Game][s.Code] = append(codes[g.Game][s.Code], s.ID)
		}
	}
	for _, tt := range []struct {
		game, code string
		want       []string
	}{
		{"mtg", "WHO", []string{"23165", "23166"}},
		{"dbs", "FB03_AR", []string{"23823", "24311"}},
		{"dbs", "FB01", []string{"23326", "23401"}}, // Masters category 27 and Fusion World category 80
		{"dbs", "BT26", []string{"23646", "23647"}},
	} {
		got := codes[tt.game][tt.code]
		if !containsAll(got, tt.want) {
			t.Errorf("%s %s: sets %v, want at least %v", tt.game, tt.code, got, tt.want)
		}
	}
}

func containsAll(have, want []string) bool {
	set := map[string]bool{}
	for _, h := range have {
		set[h] = true
	}
	for _, w := range want {
		if !set[w] {
			return false
		}
	}
	return true
}

func TestRealDates(t *testing.T) {
	cat, _ := sample(t)
	sets := map[string]catalog.Set{}
	for _, s := range cat.Game("dbs").Sets {
		sets[s.ID] = s
	}
	// FB10 "Cross Force" is a presale: publishedOn in the future.
	if got := sets["24604"].ReleaseDate; got != "2026-06-12T00:00:00" {
		t.Errorf("presale set release_date = %q", got)
	}
	if got := sets["23401"]; got.ReleaseDate != "2024-02-23T00:00:00" || got.Name != "Awakened Pulse" || got.Language != "en" {
		t.Errorf("FB01 = %+v", got)
	}
}

// TestSampleLinking checks the linking cases planted in the sample (see
// sample/README.md): right links made, ambiguous and renamed ones refused.
func TestSampleLinking(t *testing.T) {
	cat, rep := sample(t)
	linkOf := map[string]map[int]int{} // game → TCGplayer productId → Cardmarket idProduct
	matchOf := map[string]map[int]string{}
	cmOnly := map[string]map[int]bool{}
	for _, g := range cat.Games {
		linkOf[g.Game], matchOf[g.Game], cmOnly[g.Game] = map[int]int{}, map[int]string{}, map[int]bool{}
		for _, c := range g.Cards {
			switch {
			case c.OnTCG():
				linkOf[g.Game][c.TCGProductID], matchOf[g.Game][c.TCGProductID] = c.CMProductID, c.CMMatch
			case c.OnCM():
				cmOnly[g.Game][c.CMProductID] = true
				if c.CMMatch != "" {
					t.Errorf("%s Cardmarket-only %d has match %q", g.Game, c.CMProductID, c.CMMatch)
				}
			}
		}
	}
	tests := []struct {
		game     string
		tcg, cm  int
		match    string
		why      string
		unlinked []int // Cardmarket products that must stay Cardmarket-only
	}{
		{"dbs", 536822, 624106, catalog.MatchName, "names differ only by punctuation (Beerus - FB01-002 / Beerus FB01-002)", nil},
		{"dbs", 536888, 624231, catalog.MatchOperator, "explicit links.csv row", nil},
		{"mtg", 558711, 626700, catalog.MatchOperator, "explicit links.csv row", nil},
		{"mtg", 496070, 710801, catalog.MatchMTGJSON, "MTGJSON sealed content", nil},
		{"mtg", 622741, 627263, catalog.MatchName, "sealed, by name", nil},
		{"dbs", 536826, 0, "", "ambiguous: two Cardmarket Caulifla", []int{624110, 624113}},
		{"mtg", 559481, 0, "", "ambiguous: two Cardmarket Lunar Convocation (Extended Art)", []int{626899, 626902}},
		{"dbs", 539432, 0, "", "renamed beyond recognition, no link", []int{624413}},
		{"mtg", 558680, 0, "", "renamed beyond recognition, no link", []int{626644}},
		{"dbs", 541181, 0, "", "code card, TCGplayer only", nil},
	}
	for _, tt := range tests {
		if got := linkOf[tt.game][tt.tcg]; got != tt.cm {
			t.Errorf("%s %d (%s): linked to %d, want %d", tt.game, tt.tcg, tt.why, got, tt.cm)
		}
		if got := matchOf[tt.game][tt.tcg]; got != tt.match {
			t.Errorf("%s %d (%s): match %q, want %q", tt.game, tt.tcg, tt.why, got, tt.match)
		}
		for _, cm := range tt.unlinked {
			if !cmOnly[tt.game][cm] {
				t.Errorf("%s Cardmarket %d (%s) is not a Cardmarket-only card", tt.game, cm, tt.why)
			}
		}
	}
	// The Cardmarket-only expansions are sets of their own.
	for game, set := range map[string]string{"dbs": "-13585", "mtg": "-1189"} {
		found := false
		for _, s := range cat.Game(game).Sets {
			found = found || s.ID == set && s.Name != "" && s.TCGGroupID == 0
		}
		if !found {
			t.Errorf("%s: no Cardmarket-only set %s", game, set)
		}
	}
	for _, g := range rep.Games {
		// synth plants every case in the games whose Cardmarket files it
		// generates; Pokémon's and One Piece's are real (real_games_test.go).
		planted := g.Game == "dbs" || g.Game == "mtg"
		if planted && (g.Linked == 0 || g.Ambiguous == 0 || g.CardmarketOnly == 0 || g.TCGOnly == 0 || g.LinkedOperator == 0 || g.LinkedByName == 0) {
			t.Errorf("%s report misses a case: %+v", g.Game, g)
		}
		if g.LinkedMTGJSON+g.LinkedOperator+g.LinkedByName+g.LinkedBySetPair != g.Linked {
			t.Errorf("%s report: links by kind do not add up: %+v", g.Game, g)
		}
		if g.Linked+g.TCGOnly != g.TCGProducts || g.Linked+g.CardmarketOnly != g.CMProducts {
			t.Errorf("%s report does not add up: %+v", g.Game, g)
		}
	}
}

// TestRealSetsServed: the report's sets_served is what GET /{game}/sets
// lists (the snapshot's sets), not every set read: the sample's groups
// without products are read, not served.
func TestRealSetsServed(t *testing.T) {
	cat, rep := sample(t)
	snap, err := catalog.NewSnapshot(cat, game.Default())
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range rep.Games {
		listed := len(snap.Game(g.Game).Sets())
		if g.SetsServed != listed || g.SetsServed > g.Sets {
			t.Errorf("%s: %d sets read, %d served; the snapshot lists %d", g.Game, g.Sets, g.SetsServed, listed)
		}
		if g.Game == "dbs" && g.Sets == g.SetsServed {
			t.Errorf("dbs: every set read is served (%d): the sample has groups without products, so this test checks nothing", g.Sets)
		}
	}
}
