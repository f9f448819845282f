package ingest_test

import (
	"context"
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
	wantLinks := map[int]int{
		1001: 9001, // same name
		1002: 9002, // apostrophe and spacing folded
		1003: 9003, // punctuation folded
		1004: 0,    // ambiguous on the Cardmarket side: refused
		1005: 9006, // explicit links.csv row
		1006: 0,    // TCGplayer only
		1090: 9090, // sealed, by name
		2001: 9101, // same name as 1001, but in its own pair
		2002: 9102,
		2003: 9103,
		2004: 0, // ambiguous on the TCGplayer side: refused
		2005: 0,
	}
	for tcg, cm := range wantLinks {
		if got := byTCG[tcg].CMProductID; got != cm {
			t.Errorf("TCGplayer %d linked to Cardmarket %d, want %d", tcg, got, cm)
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
		if c.Variants != nil || c.TCGPrices != nil {
			t.Errorf("Cardmarket-only card %d has TCGplayer data", id)
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
		Game: "mtg", Sets: 3, CardmarketOnlySets: 1, Cards: 20, TCGProducts: 12, CMProducts: 16,
		Linked: 8, LinkedExplicit: 1, LinkedByName: 7, TCGOnly: 4, CardmarketOnly: 8, Ambiguous: 3,
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
