package ingest_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/ingest"
	"github.com/cardcat/cardcat/internal/ingest/cardmarket"
	"github.com/cardcat/cardcat/internal/ingest/tcgplayer"
)

var now = time.Date(2026, 11, 22, 6, 0, 0, 0, time.UTC)

// linkMirror is a Magic mirror with two groups and three Cardmarket
// expansions, built so that every linking rule is exercised.
func linkMirror(t *testing.T) *mirror {
	m := newMirror(t)
	m.groups(1,
		tcgplayer.Group{GroupID: 100, Name: "Alpha Set", Abbreviation: "ALP", PublishedOn: "2024-01-05T00:00:00"},
		tcgplayer.Group{GroupID: 200, Name: "Beta Set", Abbreviation: "BET", PublishedOn: "2025-02-07T00:00:00"},
	)
	m.products(1, 100,
		card(1001, "Goblin Guide", "1"),
		card(1002, "Saiyan's Pride", "2"),
		card(1003, "Mountain (0277)", "277"),
		card(1004, "Lightning Bolt", "4"),
		card(1005, "Renamed Thing", "5"),
		card(1006, "Only On TCGplayer", "6"),
		tcgplayer.Product{ProductID: 1090, Name: "Alpha Set Booster Box"},
	)
	m.products(1, 200,
		card(2001, "Goblin Guide", "1"), // same name as in group 100: a different pair
		card(2002, "Counterspell", "2"),
		card(2003, "Dark Ritual", "3"),
		card(2004, "Twin Name", "4"),
		card(2005, "Twin Name", "5"),
	)
	m.cardmarket(1,
		[]cardmarket.Product{
			{IDProduct: 9001, Name: "Goblin Guide", IDExpansion: 10},
			{IDProduct: 9002, Name: "Saiyan’s  Pride", IDExpansion: 10}, // curly apostrophe, double space
			{IDProduct: 9003, Name: "Mountain - 0277", IDExpansion: 10},
			{IDProduct: 9004, Name: "Lightning Bolt", IDExpansion: 10},
			{IDProduct: 9005, Name: "Lightning Bolt", IDExpansion: 10}, // ambiguous: two CM products
			{IDProduct: 9006, Name: "Totally Different Name", IDExpansion: 10},
			{IDProduct: 9007, Name: "Cardmarket Exclusive", IDExpansion: 10},
			{IDProduct: 9101, Name: "Goblin Guide", IDExpansion: 20},
			{IDProduct: 9102, Name: "Counterspell", IDExpansion: 20},
			{IDProduct: 9103, Name: "Dark Ritual", IDExpansion: 20},
			{IDProduct: 9104, Name: "Twin Name", IDExpansion: 20}, // ambiguous: two TCG products
			{IDProduct: 9201, Name: "Promo Only", IDExpansion: 30},
			{IDProduct: 9202, Name: "Goblin Guide", IDExpansion: 30}, // a name alone does not match an expansion
			{IDProduct: 9203, Name: "Another Promo", IDExpansion: 30},
			{IDProduct: 9204, Name: "Third Promo", IDExpansion: 30},
		},
		[]cardmarket.Product{{IDProduct: 9090, Name: "Alpha Set Booster Box", IDExpansion: 10}},
		[]cardmarket.PriceGuide{
			{IDProduct: 9001, Avg: f(1.5), Low: f(1), Trend: f(1.6), Avg1: f(1.4), Avg7: f(1.5), Avg30: f(1.2)},
			{IDProduct: 9002, AvgFoil: f(3), TrendFoil: f(2.9)},
			{IDProduct: 9201},
		},
		[]cardmarket.Expansion{{IDExpansion: 30, EnName: "Cardmarket Promos", Abbreviation: "CMP", ReleaseDate: "2025-06-01T00:00:00+0200", IDGame: 1}},
	)
	m.write("links/links.csv", []byte("game,tcgplayer_product_id,cardmarket_id_product\nmtg,1005,9006\n"))
	// MTGJSON names the booster box, which the name rule would link too.
	m.write("links/mtg-sealed-content/ALP.json", []byte(`{"code":"alp","products":{"Alpha Set Booster Box":{"identifiers":{"mcmId":"9090","tcgplayerProductId":"1090"}}}}`))
	return m
}

func TestLinking(t *testing.T) {
	m := linkMirror(t)
	cat, rep, err := ingest.BuildFromMirror(context.Background(), m.dir, game.Default(), now)
	if err != nil {
		t.Fatal(err)
	}
	mtg := cat.Game("mtg")
	byTCG := map[int]catalog.Card{}
	byCM := map[int]catalog.Card{}
	for _, c := range mtg.Cards {
		if c.TCGProductID != 0 {
			byTCG[c.TCGProductID] = c
		} else {
			byCM[c.CMProductID] = c
		}
	}
	type link struct {
		cm    int
		match string
	}
	wantLinks := map[int]link{
		1001: {9001, catalog.MatchName},     // same name
		1002: {9002, catalog.MatchName},     // apostrophe and spacing folded
		1003: {9003, catalog.MatchName},     // punctuation folded
		1004: {},                            // ambiguous on the Cardmarket side: refused
		1005: {9006, catalog.MatchOperator}, // explicit links.csv row
		1006: {},                            // TCGplayer only
		1090: {9090, catalog.MatchMTGJSON},  // sealed, MTGJSON before the name rule
		2001: {9101, catalog.MatchName},     // same name as 1001, but in its own pair
		2002: {9102, catalog.MatchName},
		2003: {9103, catalog.MatchName},
		2004: {}, // ambiguous on the TCGplayer side: refused
		2005: {},
	}
	for tcg, want := range wantLinks {
		if got := (link{byTCG[tcg].CMProductID, byTCG[tcg].CMMatch}); got != want {
			t.Errorf("TCGplayer %d linked %+v, want %+v", tcg, got, want)
		}
	}
	// Cardmarket-only products: inside a matched expansion they join the group's set;
	// expansion 30 matches no group and becomes a set of its own with a negative id.
	wantCMOnly := map[int]string{9004: "100", 9005: "100", 9007: "100", 9104: "200", 9201: "-30", 9202: "-30", 9203: "-30", 9204: "-30"}
	gotCMOnly := map[int]string{}
	for id, c := range byCM {
		gotCMOnly[id] = c.SetID
		if c.ID != c.CMID || len(c.ID) != 64 {
			t.Errorf("Cardmarket-only card %d has id %q, want its 64-hex Cardmarket id", id, c.ID)
		}
		if c.Variants != nil || c.TCGPrices != nil || c.CMMatch != "" {
			t.Errorf("Cardmarket-only card %d has TCGplayer data or a match", id)
		}
	}
	if diff := cmp.Diff(wantCMOnly, gotCMOnly); diff != "" {
		t.Errorf("Cardmarket-only cards (-want +got):\n%s", diff)
	}
	var promo *catalog.Set
	for i := range mtg.Sets {
		if mtg.Sets[i].ID == "-30" {
			promo = &mtg.Sets[i]
		}
	}
	if promo == nil || promo.Name != "Cardmarket Promos" || promo.Code != "CMP" || promo.ReleaseDate != "2025-06-01T00:00:00" {
		t.Errorf("Cardmarket-only set = %+v", promo)
	}
	g := rep.Games[1]
	want := ingest.GameReport{
		Game: "mtg", Sets: 3, SetsServed: 3, CardmarketOnlySets: 1, Cards: 20, TCGProducts: 12, CMProducts: 16,
		Linked: 8, LinkedMTGJSON: 1, LinkedOperator: 1, LinkedByName: 6, TCGOnly: 4, CardmarketOnly: 8, Ambiguous: 3,
		ExpansionsMatched: 2, ExpansionsUnmatched: 1, CMPrices: 2,
	}
	if diff := cmp.Diff(want, g); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}

	// The sealed product is sealed; prices attached to the linked card.
	if c := byTCG[1090]; c.ProductType != catalog.ProductSealed {
		t.Errorf("booster box product_type = %q", c.ProductType)
	}
	guide := byTCG[1001].CMPrices
	if len(guide) != 1 || guide[0].Variant != catalog.CMNormal || guide[0].Avg7 != catalog.Cents(150) {
		t.Errorf("Goblin Guide Cardmarket prices = %+v", guide)
	}
	if foil := byTCG[1002].CMPrices; len(foil) != 1 || foil[0].Variant != catalog.CMFoil {
		t.Errorf("foil-only Cardmarket prices = %+v", foil)
	}
	if p := byCM[9201].CMPrices; p != nil {
		t.Errorf("all-null guide entry gave prices %+v", p)
	}
}

func TestExplicitLinkConflict(t *testing.T) {
	m := linkMirror(t)
	// Two rows give product 1005 two partners: neither is used, and 9006 stays Cardmarket-only.
	m.write("links/links.csv", []byte("game,tcgplayer_product_id,cardmarket_id_product\nmtg,1005,9006\nmtg,1005,9007\n"))
	cat, rep, err := ingest.BuildFromMirror(context.Background(), m.dir, game.Default(), now)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cat.Game("mtg").Cards {
		if c.TCGProductID == 1005 && c.CMProductID != 0 {
			t.Errorf("conflicting explicit links: 1005 linked to %d", c.CMProductID)
		}
	}
	if len(rep.Games[1].Warnings) == 0 {
		t.Error("no warning about the conflicting links")
	}
}

// TestOperatorFiles: a pair in links/never.csv is linked by no rule, each
// rule's forbidden pair is counted once, a forbidden pair does not block the
// right one another file gives, and a pair links.csv and MTGJSON both give is
// the operator's.
func TestOperatorFiles(t *testing.T) {
	const header = "game,tcgplayer_product_id,cardmarket_id_product\n"
	tests := []struct {
		name      string
		never     string
		links     string // links.csv; "" keeps linkMirror's
		wantLinks map[int]int
		wantMatch map[int]string
		// report counts: mtgjson, operator, name, forbidden
		want [4]int
	}{
		{
			name:      "forbids the MTGJSON link, and the name rule's same pair",
			never:     "mtg,1090,9090\n",
			wantLinks: map[int]int{1090: 0, 1001: 9001, 1005: 9006},
			want:      [4]int{0, 1, 6, 1},
		},
		{
			name:      "forbids a name link",
			never:     "mtg,1001,9001\n",
			wantLinks: map[int]int{1001: 0, 1090: 9090, 2001: 9101},
			want:      [4]int{1, 1, 5, 1},
		},
		{
			name:      "forbids a wrong MTGJSON link, links.csv gives the right one",
			never:     "mtg,1090,9090\n",
			links:     "mtg,1005,9006\nmtg,1090,9007\n",
			wantLinks: map[int]int{1090: 9007},
			wantMatch: map[int]string{1090: catalog.MatchOperator},
			want:      [4]int{0, 2, 6, 1},
		},
		{
			name:      "forbids each rule's link at once",
			never:     "# comment\nmtg,1090,9090\nmtg , 2002, 9102\nmtg,1090,9090\n",
			links:     "mtg,1005,9006\n",
			wantLinks: map[int]int{1090: 0, 2002: 0, 1005: 9006, 2003: 9103},
			want:      [4]int{0, 1, 5, 2},
		},
		{
			name:      "links.csv and MTGJSON give the same pair",
			links:     "mtg,1005,9006\nmtg,1090,9090\n",
			wantLinks: map[int]int{1090: 9090, 1005: 9006},
			wantMatch: map[int]string{1090: catalog.MatchOperator, 1005: catalog.MatchOperator, 1001: catalog.MatchName},
			want:      [4]int{0, 2, 6, 0},
		},
		{
			name:      "another game's pair, a pair no rule makes, products not in the catalogue",
			never:     "dbs,1001,9001\nmtg,1001,9101\nmtg,77,88\n",
			wantLinks: map[int]int{1001: 9001, 2001: 9101},
			want:      [4]int{1, 1, 6, 0},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := linkMirror(t)
			m.write("links/never.csv", []byte(header+tt.never))
			if tt.links != "" {
				m.write("links/links.csv", []byte(header+tt.links))
			}
			cat, rep, err := ingest.BuildFromMirror(context.Background(), m.dir, game.Default(), now)
			if err != nil {
				t.Fatal(err)
			}
			byTCG := map[int]catalog.Card{}
			for _, c := range cat.Game("mtg").Cards {
				if c.OnTCG() {
					byTCG[c.TCGProductID] = c
				}
			}
			for tcg, cm := range tt.wantLinks {
				if got := byTCG[tcg].CMProductID; got != cm {
					t.Errorf("TCGplayer %d linked to Cardmarket %d, want %d", tcg, got, cm)
				}
			}
			for tcg, match := range tt.wantMatch {
				if got := byTCG[tcg].CMMatch; got != match {
					t.Errorf("TCGplayer %d match %q, want %q", tcg, got, match)
				}
			}
			g := rep.Games[1]
			if got := [4]int{g.LinkedMTGJSON, g.LinkedOperator, g.LinkedByName, g.Forbidden}; got != tt.want {
				t.Errorf("report mtgjson, operator, name, forbidden = %v, want %v", got, tt.want)
			}
			if g.LinkedMTGJSON+g.LinkedOperator+g.LinkedByName != g.Linked {
				t.Errorf("links by kind do not add up to %d: %+v", g.Linked, g)
			}
		})
	}
}

// TestLinkFileErrors: a bad line of never.csv, or a links.csv line that
// never.csv forbids, stops the ingest with a message naming the file and
// the line.
func TestLinkFileErrors(t *testing.T) {
	const header = "game,tcgplayer_product_id,cardmarket_id_product\n"
	tests := []struct {
		name, never, links string
		want               []string // in the message
	}{
		{"header", "game,tcg,cm\nmtg,1,2\n", "", []string{"never.csv", "header", "game,tcgplayer_product_id,cardmarket_id_product"}},
		{"zero id", header + "mtg,1,2\nmtg,0,2\n", "", []string{"never.csv", "line 3", "positive"}},
		{"not a number", header + "mtg,x,2\n", "", []string{"never.csv", "line 2", `"mtg,x,2"`}},
		{"no game", header + ",1,2\n", "", []string{"never.csv", "line 2"}},
		{"missing field", header + "mtg,1\n", "", []string{"never.csv", "line 2", "wrong number of fields"}},
		{"links.csv line forbidden", header + "mtg,1,2\nmtg,1005,9006\n", header + "mtg,1003,9003\n\nmtg,1005,9006\n",
			[]string{"links.csv", "line 4", "mtg,1005,9006", "never.csv line 3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := linkMirror(t)
			m.write("links/never.csv", []byte(tt.never))
			if tt.links != "" {
				m.write("links/links.csv", []byte(tt.links))
			}
			_, _, err := ingest.BuildFromMirror(context.Background(), m.dir, game.Default(), now)
			if err == nil {
				t.Fatal("ingest succeeded")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}
