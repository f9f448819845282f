package ingest_test

import (
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/ingest"
	"github.com/cardcat/cardcat/internal/store"
)

// The Pokémon and One Piece files of the sample are real (TCGplayer
// catalogues, Cardmarket catalogues and price guides, TCGdex's pairs); only
// their TCGplayer prices are generated. These tests hold ingest to them.

var (
	fourOnce sync.Once
	fourCat  *catalog.Catalog
	fourRep  *ingest.Report
	fourErr  error
)

func fourGames(t *testing.T) (*catalog.Catalog, *ingest.Report) {
	t.Helper()
	fourOnce.Do(func() {
		fourCat, fourRep, fourErr = ingest.BuildFromMirror(context.Background(), sampleDir, game.Mirrored(), now)
	})
	if fourErr != nil {
		t.Fatal(fourErr)
	}
	return fourCat, fourRep
}

func gameReport(t *testing.T, rep *ingest.Report, code string) ingest.GameReport {
	t.Helper()
	for _, g := range rep.Games {
		if g.Game == code {
			return g
		}
	}
	t.Fatalf("no report for %s", code)
	return ingest.GameReport{}
}

// TestPokemonLinksAgainstTCGdex measures linking against TCGdex's Base Set
// pairs (links/pokemon-tcgdex/base-set.csv, not read by ingest): no link
// contradicts a pair, and every pair whose two products are in the files is
// linked.
func TestPokemonLinksAgainstTCGdex(t *testing.T) {
	cat, rep := fourGames(t)
	pkm := cat.Game("pkm")
	f, err := os.Open(filepath.Join(sampleDir, "links", "pokemon-tcgdex", "base-set.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	cmOfTCG, tcgOfCM := map[int]int{}, map[int]int{}
	for _, r := range rows[1:] {
		tcg, _ := strconv.Atoi(r[1])
		cm, _ := strconv.Atoi(r[2])
		cmOfTCG[tcg], tcgOfCM[cm] = cm, tcg
	}
	onTCG, onCM := map[int]bool{}, map[int]bool{}
	linked := map[int]int{}
	byMatch := map[string]int{}
	wrong := 0
	for _, c := range pkm.Cards {
		onTCG[c.TCGProductID], onCM[c.CMProductID] = true, true
		if !c.OnTCG() || !c.OnCM() {
			continue
		}
		linked[c.TCGProductID] = c.CMProductID
		byMatch[c.CMMatch]++
		want, known := cmOfTCG[c.TCGProductID]
		other, cmKnown := tcgOfCM[c.CMProductID]
		if known && want != c.CMProductID || cmKnown && other != c.TCGProductID {
			wrong++
			t.Errorf("wrong link: TCGplayer %d (%s) ↔ Cardmarket %d (%s); TCGdex pairs them with %d and %d",
				c.TCGProductID, c.Name, c.CMProductID, c.CMProductName, want, other)
		}
	}
	pairs, found := 0, 0
	for tcg, cm := range cmOfTCG {
		if !onTCG[tcg] || !onCM[cm] {
			continue // a print run or jumbo card not in these files
		}
		pairs++
		if linked[tcg] == cm {
			found++
		} else {
			t.Errorf("TCGdex pair %d ↔ %d not linked", tcg, cm)
		}
	}
	t.Logf("Pokémon Base Set: %d wrong links; recall %d of %d TCGdex pairs in the files; links by rule %v; report %+v",
		wrong, found, pairs, byMatch, gameReport(t, rep, "pkm"))
	if pairs < 100 {
		t.Errorf("only %d TCGdex pairs have both products in the files", pairs)
	}
	if byMatch[catalog.MatchNameSetPair] != found || gameReport(t, rep, "pkm").LinkedBySetPair != found {
		t.Errorf("links by match %v: want all %d by name inside TCGdex's set pair", byMatch, found)
	}
}

var cmNumberInName = regexp.MustCompile(`\(([A-Z]+[0-9]*-[0-9]+)\)$`)

// TestOnePieceLinksByNumber: a One Piece link joins products with the same
// card number and name; a number carried by several products on either side
// (parallels, box toppers) links none of them.
func TestOnePieceLinksByNumber(t *testing.T) {
	cat, rep := fourGames(t)
	op := cat.Game("op")
	byNumber := map[string]int{} // TCGplayer products per number
	for _, c := range op.Cards {
		if c.OnTCG() && c.CardNumber != "" {
			byNumber[c.CardNumber]++
		}
	}
	cards := map[int]catalog.Card{}
	links := 0
	for _, c := range op.Cards {
		cards[c.TCGProductID] = c
		if !c.OnTCG() || !c.OnCM() || c.ProductType != catalog.ProductCard {
			continue
		}
		links++
		m := cmNumberInName.FindStringSubmatch(c.CMProductName)
		if m == nil || m[1] != c.CardNumber {
			t.Errorf("TCGplayer %d %q (%s) linked to Cardmarket %d %q", c.TCGProductID, c.Name, c.CardNumber, c.CMProductID, c.CMProductName)
		}
		if byNumber[c.CardNumber] != 1 {
			t.Errorf("%s has %d TCGplayer products, yet %d is linked", c.CardNumber, byNumber[c.CardNumber], c.TCGProductID)
		}
	}
	// By hand, from the files: Jinbe (014) is Cardmarket's "Jinbe (OP01-014)";
	// "Mr.1 (Daz.Bonez)" is "Mr.1(Daz.Bonez) (OP01-083)"; Roronoa Zoro
	// OP01-001 and its parallel face two Cardmarket products of one name.
	for _, tt := range []struct {
		tcg, cm int
	}{{454532, 690811}, {454614, 690913}, {454512, 0}, {454513, 0}} {
		c, ok := cards[tt.tcg]
		if !ok {
			t.Fatalf("no card for TCGplayer %d", tt.tcg)
		}
		if c.CMProductID != tt.cm {
			t.Errorf("TCGplayer %d %q: Cardmarket %d, want %d", tt.tcg, c.Name, c.CMProductID, tt.cm)
		}
	}
	g := gameReport(t, rep, "op")
	t.Logf("One Piece: %d cards linked by number and name, %d Cardmarket products ambiguous; report %+v", links, g.Ambiguous, g)
	if links < 80 || g.Ambiguous == 0 {
		t.Errorf("%d links, %d ambiguous", links, g.Ambiguous)
	}
}

// TestPokemonHoloIsFoil: Pokémon's price guide says "-holo" where the other
// games say "-foil"; it is the card's foil finish.
func TestPokemonHoloIsFoil(t *testing.T) {
	cat, _ := fourGames(t)
	c := findCard(t, cat.Game("pkm"), 42382) // Charizard, Cardmarket 273699
	if c.CMProductID != 273699 {
		t.Fatalf("Charizard linked to %d", c.CMProductID)
	}
	got := map[string]catalog.CMPrice{}
	for _, p := range c.CMPrices {
		got[p.Variant] = p
	}
	// {"avg":446.7,"low":100,"trend":388.14,...,"avg-holo":null,"trend-holo":123.63,"avg1-holo":207.4,"avg7-holo":129.55,"avg30-holo":202.71}
	n, f := got[catalog.CMNormal], got[catalog.CMFoil]
	if n.Trend != catalog.Cents(38814) || n.Avg != catalog.Cents(44670) || n.Low != catalog.Cents(10000) {
		t.Errorf("normal: %+v", n)
	}
	if f.Trend != catalog.Cents(12363) || f.Avg1 != catalog.Cents(20740) || f.Avg7 != catalog.Cents(12955) ||
		f.Avg30 != catalog.Cents(20271) || f.Avg.OK || f.Low.OK {
		t.Errorf("foil (the -holo fields): %+v", f)
	}
}

// TestRealGameFields: each game field lands as the decisions say, on real
// products, and no game shows another's.
func TestRealGameFields(t *testing.T) {
	cat, _ := fourGames(t)
	lists := func(c catalog.Card, key string) []string {
		var vs []string
		for _, e := range c.Extra {
			if e.Key == key {
				vs = append(vs, e.Value)
			}
		}
		return vs
	}
	pkm := cat.Game("pkm")
	zapdos := findCard(t, pkm, 42356)
	if e := extra(zapdos); e["hp"] != "90" || e["stage"] != "Basic" || e["resistance"] != "F-30" || e["retreat_cost"] != "3" {
		t.Errorf("Zapdos: %v", e)
	}
	if _, ok := extra(zapdos)["weakness"]; ok {
		t.Error("Zapdos has no Weakness on TCGplayer, yet has one")
	}
	if a := lists(zapdos, "attacks"); len(a) != 2 || a[0][:23] != "[1LLL] Thunder (60)\r\n<b" || a[1][:24] != "[LLLL] Thunderbolt (100)" {
		t.Errorf("Zapdos attacks: %q", a)
	}
	venusaur := findCard(t, pkm, 42355)
	if e := extra(venusaur); e["stage"] != "Stage 2" || e["weakness"] != "R" || venusaur.CardText == "" {
		t.Errorf("Venusaur: %v, text %q", e, venusaur.CardText)
	}
	if a := lists(venusaur, "attacks"); len(a) != 1 || a[0] != "[GGGG] Solarbeam (60)" {
		t.Errorf("Venusaur attacks: %q", a)
	}
	if venusaur.CardType != "Grass" || venusaur.Rarity != "Holo Rare" || venusaur.CardNumber != "015/102" {
		t.Errorf("Venusaur: type %q rarity %q number %q", venusaur.CardType, venusaur.Rarity, venusaur.CardNumber)
	}
	kinemon := findCard(t, cat.Game("op"), 453514)
	e := extra(kinemon)
	if e["color"] != "Green" || e["cost"] != "6" || e["power"] != "6000" || e["attribute"] != "Slash" ||
		e["sub_types"] != "Land of Wano;The Akazaya Nine" || kinemon.CardType != "Character" || kinemon.Rarity != "SR" {
		t.Errorf("Kin'emon: %v", e)
	}
	if _, ok := e["counter"]; ok {
		t.Error("Kin'emon has no Counter+ on TCGplayer, yet has a counter")
	}
	if e := extra(findCard(t, cat.Game("op"), 453513)); e["counter"] != "1000" {
		t.Errorf("Inuarashi (Box Topper): counter %q", e["counter"])
	}
	keys := map[string]map[string]bool{}
	for _, g := range game.Mirrored().All() {
		keys[g.Code] = map[string]bool{}
		for _, f := range g.Extra {
			keys[g.Code][f.Key] = true
		}
		for _, c := range cat.Game(g.Code).Cards {
			for _, x := range c.Extra {
				if !keys[g.Code][x.Key] {
					t.Fatalf("%s card %s has field %s", g.Code, c.ID, x.Key)
				}
			}
		}
	}
}

// TestPokemonSetLanguages: category 3's sets are English, category 85's
// Japanese; a code shared across the two stays two sets.
func TestPokemonSetLanguages(t *testing.T) {
	cat, _ := fourGames(t)
	langs := map[int]string{}
	for _, s := range cat.Game("pkm").Sets {
		langs[s.TCGGroupID] = s.Language
	}
	// SM8: 3/2328 (English) and 85/23687 (Japanese).
	if langs[2328] != "en" || langs[23687] != "ja" || langs[604] != "en" {
		t.Errorf("languages: 2328 %q, 23687 %q, 604 %q", langs[2328], langs[23687], langs[604])
	}
}

// TestOnePieceRealDays ingests the sample with One Piece's real Cardmarket
// price guide of each of its five dates, one daily ingest each, and reads the
// price history back: the real values of each day, in order. Checked by
// hand on Shanks (OP01-120, Cardmarket 690959), whose trend was 992.2,
// 1072.71, 1187.89, 1229.52 and 1229.52 on those days; on the last two only
// its avg moved (1233 → 1323.5).
func TestOnePieceRealDays(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(sampleDir)); err != nil {
		t.Fatal(err)
	}
	guide := filepath.Join(dir, "cardmarket", "18", "price_guide.json")
	latest, err := os.ReadFile(guide)
	if err != nil {
		t.Fatal(err)
	}
	st := openSQLite(t)
	days := []string{"2025-08-31", "2025-09-30", "2025-10-31", "2025-11-15", "2025-12-01"}
	var changed []int
	for i, day := range days {
		b := latest
		if i < len(days)-1 {
			if b, err = os.ReadFile(filepath.Join(sampleDir, "cardmarket", "18", "history", day, "price_guide.json")); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(guide, b, 0o644); err != nil {
			t.Fatal(err)
		}
		at, _ := time.Parse(time.DateOnly, day)
		rep := mustRun(t, st, dir, at.Add(3*time.Hour))
		for _, g := range rep.Games {
			if g.Game == "op" {
				changed = append(changed, g.PricesChanged)
			}
		}
	}
	cat := mustLoad(t, st)
	var shanks catalog.Card
	for _, c := range cat.Game("op").Cards {
		if c.CMProductID == 690959 {
			shanks = c
		}
	}
	if shanks.ID == "" {
		t.Fatal("no card of Cardmarket product 690959")
	}
	points, err := st.PriceHistory(context.Background(), "op", shanks.ID)
	if err != nil {
		t.Fatal(err)
	}
	var trends, avgs []int64
	var got []string
	for _, p := range points {
		if p.Market == store.MarketCM && p.Finish == catalog.CMNormal {
			got = append(got, p.Day)
			avgs = append(avgs, p.Values[0].Cents)
			trends = append(trends, p.Values[2].Cents)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(days) || fmt.Sprint(trends) != "[99220 107271 118789 122952 122952]" ||
		avgs[3] != 123300 || avgs[4] != 132350 {
		t.Errorf("Shanks's Cardmarket points: days %v, trends %v, avgs %v", got, trends, avgs)
	}
	// Every later day moved some real prices, and the catalogue kept the
	// latest day's.
	for i, n := range changed[1:] {
		if n == 0 {
			t.Errorf("the ingest of %s changed no One Piece price", days[i+1])
		}
	}
	if p := shanks.CMPrices[0]; p.Trend != catalog.Cents(122952) || p.Avg7 != catalog.Cents(112144) || p.Avg30 != catalog.Cents(98961) {
		t.Errorf("Shanks's served price: %+v", p)
	}
}

// TestCardmarketZeroIsNoPrice: the real One Piece guides say
// "trend-foil":0 beside null foil values on every row: no foil price, not a
// foil price of 0 EUR. Shanks (OP01-120) has a normal price only.
func TestCardmarketZeroIsNoPrice(t *testing.T) {
	cat, _ := fourGames(t)
	foils := 0
	for _, c := range cat.Game("op").Cards {
		for _, p := range c.CMPrices {
			if p.Variant == catalog.CMFoil {
				foils++
			}
			for _, m := range []catalog.Money{p.Avg, p.Low, p.Trend, p.Avg1, p.Avg7, p.Avg30} {
				if m.OK && m.Cents == 0 {
					t.Errorf("%s (%s): a Cardmarket %s price of 0", c.ID, c.Name, p.Variant)
				}
			}
		}
	}
	if foils != 0 {
		t.Errorf("%d One Piece cards have a Cardmarket foil price; the real guide has none", foils)
	}
}
