package catalog

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files and testdata/fixture.json")

// fixtureTime is when every fixture price last changed.
var fixtureTime = time.Date(2026, 1, 30, 20, 0, 0, 0, time.UTC)

// fixtureCatalog is a small hand-made catalogue of both games with the
// awkward cases: shared set codes (FB03_AR, WHO), a Cardmarket-only set with
// a negative id, Cardmarket-only cards, linked cards, finishes priced on one
// side only, unpriced cards, sealed products, a code card of undetermined
// type, HTML in card_text, accented and punctuated names, numbers like
// "FB01-001", "3 // 7", "2" and "10", null and future release dates, and a
// set without products. testdata/fixture.json is this catalogue as JSON, for
// the tests of other packages (httpapi); TestFixtureFile keeps it in step.
func fixtureCatalog() *Catalog {
	return &Catalog{
		Version:   7,
		CreatedAt: time.Date(2026, 1, 31, 6, 0, 0, 0, time.UTC),
		Games:     []GameCatalog{fixtureDBS(), fixtureMTG()},
	}
}

func tcgCard(game string, productID int, setID, name, number string) Card {
	return Card{
		Game: game, ID: TCGCardID(game, productID), SetID: setID, TCGProductID: productID,
		Name: name, CleanName: cleanName(name), CardNumber: number, ProductType: ProductCard,
		ImageCount: 1, TCGURL: "https://www.tcgplayer.com/product/" + itoa(productID),
	}
}

func cmOnlyCard(game string, cmGame, idProduct int, setID, name string) Card {
	id := CMCardID(game, cmGame, idProduct)
	return Card{
		Game: game, ID: id, CMID: id, SetID: setID, CMProductID: idProduct,
		Name: name, CleanName: cleanName(name), ProductType: ProductCard,
		CMProductName: name,
	}
}

// link adds a Cardmarket product to a TCGplayer card, linked by name.
func link(c Card, cmGame, idProduct int, url string) Card {
	c.CMMatch = MatchName
	c.CMID = CMCardID(c.Game, cmGame, idProduct)
	c.CMProductID = idProduct
	c.CMProductName = c.Name
	c.CMProductURL = url
	return c
}

func tcgPrice(sub string, low, mid, high, market int64, directLow Money) TCGPrice {
	return TCGPrice{SubType: sub, Low: Cents(low), Mid: Cents(mid), High: Cents(high), Market: Cents(market),
		DirectLow: directLow, UpdatedAt: fixtureTime}
}

func cmPrice(variant string, avg, low, trend, avg1, avg7, avg30 Money) CMPrice {
	return CMPrice{Variant: variant, Avg: avg, Low: low, Trend: trend, Avg1: avg1, Avg7: avg7, Avg30: avg30,
		UpdatedAt: fixtureTime}
}

func fixtureDBS() GameCatalog {
	const g, cm = "dbs", 13
	sets := []Set{
		{Game: g, ID: "23401", Code: "FB01", Name: "Awakened Pulse", Language: "en", ReleaseDate: "2024-02-23T00:00:00", TCGCategoryID: 80, TCGGroupID: 23401, CMExpansionID: 5101},
		{Game: g, ID: "23823", Code: "FB03_AR", Name: "Raging Roar Alternate Art Reprints", Language: "en", ReleaseDate: "2024-10-25T00:00:00", TCGCategoryID: 80, TCGGroupID: 23823},
		{Game: g, ID: "24311", Code: "FB03_AR", Name: "New Adventure Alternate Art Reprints", Language: "en", ReleaseDate: "2025-05-09T00:00:00", TCGCategoryID: 80, TCGGroupID: 24311},
		{Game: g, ID: "-5001", Code: "TP01", Name: "Tournament Pack 01", CMExpansionID: 5001},
		{Game: g, ID: "26001", Code: "FB09", Name: "Dual Evolution", Language: "en", ReleaseDate: "2031-03-14T00:00:00", TCGCategoryID: 80, TCGGroupID: 26001},
		{Game: g, ID: "2070", Code: "BT1", Name: "Galactic Battle", Language: "en", ReleaseDate: "2017-07-28T00:00:00", TCGCategoryID: 27, TCGGroupID: 2070},
	}

	goku := link(tcgCard(g, 535600, "23401", "Son Goku", "FB01-001"), cm, 700001,
		"https://www.cardmarket.com/en/DragonBallSuper/Products/Singles/Awakened-Pulse/Son-Goku-FB01-001")
	goku.Rarity, goku.CardType = "Leader", "Leader"
	goku.CardText = "<strong>[Activate: Main]</strong> If you have 4 or more cards in your hand, <em>draw 1 card</em>."
	goku.Extra = []ExtraField{{"character_traits", "Saiyan"}, {"color", "Red"}, {"power", "10000"}}
	goku.ImageCount = 2
	goku.Variants = []string{"Normal", "Foil"}
	goku.TCGPrices = []TCGPrice{
		tcgPrice("Normal", 150, 275, 1000, 249, Cents(199)),
		tcgPrice("Foil", 1200, 1550, 4000, 1499, Money{}),
	}
	goku.CMPrices = []CMPrice{
		cmPrice(CMNormal, Cents(210), Cents(120), Cents(230), Cents(200), Cents(215), Cents(190)),
		cmPrice(CMFoil, Cents(1350), Cents(1100), Money{}, Money{}, Cents(1400), Cents(1300)),
	}

	two := tcgCard(g, 535602, "23401", "Android 17 - FB01-2", "FB01-2")
	two.Rarity, two.CardType = "Common", "Battle"
	two.Variants = []string{"Normal"}
	two.TCGPrices = []TCGPrice{tcgPrice("Normal", 5, 10, 99, 8, Cents(6))}

	ten := link(tcgCard(g, 535610, "23401", "Son Gohan : Childhood", "FB01-10"), cm, 700010, "")
	ten.Rarity, ten.CardType = "Rare", "Battle"
	ten.Extra = []ExtraField{{"color", "Red"}, {"cost", "2(R)"}, {"combo_power", "5000"}, {"unknown_field", "dropped"}}
	ten.Variants = []string{"Normal", "Foil"}
	ten.TCGPrices = []TCGPrice{tcgPrice("Normal", 30, 45, 200, 41, Money{}), tcgPrice("Foil", 300, 450, 900, 420, Money{})}
	// Cardmarket prices only the foil finish of this card.
	ten.CMPrices = []CMPrice{
		{Variant: CMNormal, UpdatedAt: fixtureTime},
		cmPrice(CMFoil, Cents(390), Cents(350), Cents(410), Cents(400), Cents(395), Cents(380)),
	}

	frieza := tcgCard(g, 535620, "23401", "Frieza's Wrath – Célébration (Alternate Art)", "FB01-020")
	frieza.Rarity, frieza.CardType = "Super Rare", "Extra"
	frieza.CardText = "Choose up to 1 of your opponent's Battle Cards & KO it.\n<br>Then draw 1."
	// Unpriced: a TCGplayer product without a price row.

	codeCard := tcgCard(g, 541181, "23401", "Code Card - Awakened Pulse Booster (FB01)", "")
	codeCard.ProductType = ""
	codeCard.ImageCount = 0

	box := tcgCard(g, 535546, "23401", "Awakened Pulse Booster Box", "")
	box.ProductType = ProductSealed
	box.Extra = []ExtraField{{"gtin", "4570117951213"}}
	box.Variants = []string{"Normal"}
	box.TCGPrices = []TCGPrice{tcgPrice("Normal", 9000, 9900, 15000, 9650, Cents(9500))}
	box = link(box, cm, 710001, "https://www.cardmarket.com/en/DragonBallSuper/Products/Booster-Boxes/Awakened-Pulse-Booster-Box")
	box.CMMatch = MatchOperator // names differ too much: the operator's links.csv
	box.CMPrices = []CMPrice{cmPrice(CMNormal, Cents(8500), Cents(7999), Cents(8600), Cents(8400), Cents(8550), Cents(8700))}

	promo := cmOnlyCard(g, cm, 700050, "23401", "Son Goku (Championship Promo)")
	promo.CMPrices = []CMPrice{cmPrice(CMNormal, Cents(2500), Cents(1999), Cents(2600), Money{}, Cents(2550), Cents(2400))}
	promo.CMProductURL = "https://www.cardmarket.com/en/DragonBallSuper/Products/Singles/Promos/Son-Goku-Championship"

	ar1 := tcgCard(g, 600001, "23823", "Son Goku - FB03-001 (Alternate Art)", "FB03-001")
	ar1.Rarity, ar1.CardType = "Leader", "Leader"
	ar2 := tcgCard(g, 629023, "24311", "Vegeta - FB05-115 (Alternate Art)", "FB05-115")
	ar2.Rarity, ar2.CardType = "Secret Rare", "Battle"

	tp1 := cmOnlyCard(g, cm, 800001, "-5001", "Trunks : Future (Tournament Pack)")
	tp2 := cmOnlyCard(g, cm, 800002, "-5001", "Tournament Pack 01 Display")
	tp2.ProductType = ProductSealed

	presale := tcgCard(g, 650001, "26001", "Gogeta : GT", "FB09-001")
	presale.Rarity, presale.CardType = "Leader", "Leader"

	return GameCatalog{Game: g, Sets: sets, Cards: []Card{goku, two, ten, frieza, codeCard, box, promo, ar1, ar2, tp1, tp2, presale}}
}

func fixtureMTG() GameCatalog {
	const g, cm = "mtg", 1
	sets := []Set{
		{Game: g, ID: "23447", Code: "BLB", Name: "Bloomburrow", Language: "en", ReleaseDate: "2024-08-02T00:00:00", TCGCategoryID: 1, TCGGroupID: 23447, CMExpansionID: 5401},
		{Game: g, ID: "23165", Code: "WHO", Name: "Universes Beyond: Doctor Who", Language: "en", ReleaseDate: "2023-10-13T00:00:00", TCGCategoryID: 1, TCGGroupID: 23165},
		{Game: g, ID: "23166", Code: "WHO", Name: "Planechase: Universes Beyond: Doctor Who", Language: "en", ReleaseDate: "2023-10-13T00:00:00", TCGCategoryID: 1, TCGGroupID: 23166},
		{Game: g, ID: "2899", Code: "TSR", Name: "Time Spiral Remastered", Language: "en", ReleaseDate: "2021-03-19T00:00:00", TCGCategoryID: 1, TCGGroupID: 2899},
	}

	alania := link(tcgCard(g, 541300, "23447", "Alania's Pathmaker", "2"), cm, 780002,
		"https://www.cardmarket.com/en/Magic/Products/Singles/Bloomburrow/Alanias-Pathmaker")
	alania.Rarity, alania.CardType = "C", "Creature"
	alania.CardText = "Offspring {2} <i>(You may pay an additional {2} as you cast this spell.)</i>"
	alania.Extra = []ExtraField{{"p", "4"}, {"t", "2"}, {"sub_type", "Otter Wizard"}, {"flavor_text", "\"Follow me—the river knows the way.\""}}
	alania.Variants = []string{"Normal", "Foil"}
	alania.TCGPrices = []TCGPrice{tcgPrice("Normal", 3, 10, 50, 7, Cents(5)), tcgPrice("Foil", 10, 25, 100, 19, Money{})}
	alania.CMPrices = []CMPrice{cmPrice(CMNormal, Cents(5), Cents(2), Cents(6), Cents(4), Cents(5), Cents(5))}

	passage := tcgCard(g, 541310, "23447", "Fabled Passage (Extended Art)", "10")
	passage.Rarity, passage.CardType = "R", "Land"
	passage.CardText = "{T}, Sacrifice Fabled Passage: Search your library for a basic land card."
	passage.Variants = []string{"Foil"}
	passage.TCGPrices = []TCGPrice{tcgPrice("Foil", 150, 220, 600, 199, Cents(180))}

	forest := tcgCard(g, 541320, "23447", "Forest (0278)", "278")
	forest.Rarity, forest.CardType = "L", "Land"

	token := tcgCard(g, 541330, "23447", "Bat // Intrepid Rabbit Double-Sided Token", "T1")
	token.Rarity, token.CardType = "T", "Token"

	display := tcgCard(g, 541235, "23447", "Bloomburrow - Play Booster Display", "")
	display.ProductType = ProductSealed
	display.CardText = "Contents:\r\n<br>\r\n• 36 Play Boosters"
	display.Extra = []ExtraField{{"upc", "195166257112"}}
	display.Variants = []string{"Normal"}
	display.TCGPrices = []TCGPrice{tcgPrice("Normal", 13999, 15499, 19999, 14999, Money{})}

	blbOnlyCM := cmOnlyCard(g, cm, 780900, "23447", "Bloomburrow Bundle Promo Card")

	tenth := tcgCard(g, 496001, "23165", "The Tenth Doctor", "3 // 7")
	tenth.Rarity, tenth.CardType = "M", "Legendary Creature"
	tenth.Variants = []string{"Normal", "Foil"}
	tenth.TCGPrices = []TCGPrice{tcgPrice("Normal", 100, 150, 300, 130, Money{}), tcgPrice("Foil", 200, 300, 600, 260, Money{})}
	exterminate := tcgCard(g, 496010, "23165", "Exterminate!", "74")
	exterminate.Rarity, exterminate.CardType = "U", "Sorcery"
	exterminate = link(exterminate, cm, 790010, "")
	// Cardmarket prices this card, TCGplayer does not.
	exterminate.CMPrices = []CMPrice{cmPrice(CMNormal, Cents(80), Cents(50), Cents(85), Cents(90), Cents(82), Cents(79))}
	doctorsTomb := tcgCard(g, 496020, "23166", "The Doctor's Tomb", "12")
	doctorsTomb.Rarity, doctorsTomb.CardType = "T", "Plane"

	limdul := tcgCard(g, 230001, "2899", "Lim-Dûl the Necromancer", "118")
	limdul.Rarity = "R"
	aether := tcgCard(g, 230002, "2899", "Æther Vial", "256")
	aether.Rarity = "R"
	jotun := tcgCard(g, 230003, "2899", "Jötun Grunt", "24")
	jotun.Rarity = "U"

	return GameCatalog{Game: g, Sets: sets, Cards: []Card{alania, passage, forest, token, display, blbOnlyCM,
		tenth, exterminate, doctorsTomb, limdul, aether, jotun}}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// cleanName is TCGplayer's rule, good enough for the fixture.
func cleanName(s string) string {
	var b []rune
	space := false
	for _, r := range s {
		switch {
		case r == ' ':
			space = true
		case r < 128 && !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'):
		default:
			if space && len(b) > 0 {
				b = append(b, ' ')
			}
			space = false
			b = append(b, r)
		}
	}
	return string(b)
}

// TestFixtureFile keeps testdata/fixture.json equal to fixtureCatalog.
func TestFixtureFile(t *testing.T) {
	path := filepath.Join("testdata", "fixture.json")
	want, err := json.MarshalIndent(fixtureCatalog(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, '\n')
	if *update {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/catalog -update)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("testdata/fixture.json is stale; run go test ./internal/catalog -update (-want +got):\n%s", diff)
	}
}
