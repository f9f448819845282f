package analytics

import (
	"strings"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/game"
)

// The fixture is a small game whose every answer is checked by hand in the
// tests. Amounts are written in cents: m(20) is 0.20.
//
//	set 1001 BT1 "Galactic Battle" 2018-01-01    set 1002 BT2 "Union Force" 2018-04-01
//	  BT1-001 Son Goku   Common   T Normal+Foil, C normal+foil     BT2-001 Trunks Common  T Normal, C normal
//	  BT1-002 Vegeta     Rare     T Normal+Holofoil, C normal+foil BT2-002 Bulma  Common  T Normal, C normal (avg30 = 1 EUR)
//	  BT1-003 Krillin    Common   T Normal only                    BT2-003 Cell   Rare    T Normal, C normal (avg30 < 1 EUR)
//	  BT1-004 Frieza     Rare     T Normal (low only) + unpriced Foil row, C empty normal + foil
//	  BT1-010 Piccolo    Super Rare  T Foil+Holofoil, C foil only
//	  Gohan (Alt Art)    (no rarity) Cardmarket-only card, C normal
//	  Unidentified Product  (product_type null) T Normal
//	  Galactic Battle Booster Box  sealed, T Normal, C normal
//
//	set -501 (no code, no date) "Cardmarket Promos", Cardmarket only
//	  Broly (Promo)       (no rarity) C normal
//	  Beerus (Foil Promo) (no rarity) C foil only, trend null, avg30 < 1 EUR
//	  Promo Pack Display  sealed, C normal
//
//	set 1003 BT3 "Cross Worlds": nothing priced (an all-null T row, an empty C entry)
//	set 1004 "Empty Set": no products
var (
	fixtureTime  = time.Date(2025, 6, 1, 20, 0, 0, 0, time.UTC)
	fixtureTime2 = time.Date(2025, 5, 30, 22, 0, 0, 0, time.FixedZone("", 2*3600))
)

func m(c int64) catalog.Money { return catalog.Cents(c) }

var null catalog.Money

// tp is a TCGplayer price: low, mid, high, market, direct low.
func tp(sub string, low, mid, high, market, direct catalog.Money) catalog.TCGPrice {
	return catalog.TCGPrice{SubType: sub, Low: low, Mid: mid, High: high, Market: market, DirectLow: direct, UpdatedAt: fixtureTime}
}

// cp is a Cardmarket price: avg, low, trend, avg1, avg7, avg30.
func cp(variant string, avg, low, trend, avg1, avg7, avg30 catalog.Money) catalog.CMPrice {
	return catalog.CMPrice{Variant: variant, Avg: avg, Low: low, Trend: trend, Avg1: avg1, Avg7: avg7, Avg30: avg30, UpdatedAt: fixtureTime}
}

const (
	idGohan  = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	idBroly  = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	idPromo  = "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc"
	idBeerus = "dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd"
)

func tcgCard(n int, set, number, name, rarity string) catalog.Card {
	id := "dbs_" + strings.Repeat("0", 14) + string(rune('0'+n/10)) + string(rune('0'+n%10))
	return catalog.Card{Game: "dbs", ID: id, SetID: set, TCGProductID: 1000 + n, Name: name, CleanName: name,
		CardNumber: number, Rarity: rarity, ProductType: catalog.ProductCard}
}

func cmCard(id, set, name string) catalog.Card {
	return catalog.Card{Game: "dbs", ID: id, CMID: id, SetID: set, CMProductID: int(id[0]), Name: name, CleanName: name,
		ProductType: catalog.ProductCard}
}

func fixture() *catalog.GameCatalog {
	gc := &catalog.GameCatalog{Game: "dbs", Sets: []catalog.Set{
		{Game: "dbs", ID: "1001", Code: "BT1", Name: "Galactic Battle", ReleaseDate: "2018-01-01T00:00:00", TCGGroupID: 1001},
		{Game: "dbs", ID: "1002", Code: "BT2", Name: "Union Force", ReleaseDate: "2018-04-01T00:00:00", TCGGroupID: 1002},
		{Game: "dbs", ID: "-501", Name: "Cardmarket Promos", CMExpansionID: 501},
		{Game: "dbs", ID: "1003", Code: "BT3", Name: "Cross Worlds", ReleaseDate: "2018-07-01T00:00:00", TCGGroupID: 1003},
		{Game: "dbs", ID: "1004", Code: "BT4", Name: "Empty Set", TCGGroupID: 1004},
	}}
	add := func(c catalog.Card) { gc.Cards = append(gc.Cards, c) }

	// Cards are added out of listing order on purpose.
	piccolo := tcgCard(3, "1001", "BT1-010", "Piccolo", "Super Rare")
	piccolo.TCGPrices = []catalog.TCGPrice{
		tp("Foil", m(900), m(1000), m(1500), m(1000), null),
		tp("Holofoil", m(800), m(900), m(1400), m(950), null),
	}
	piccolo.CMProductID, piccolo.CMID = 3, strings.Repeat("3", 64)
	piccolo.CMPrices = []catalog.CMPrice{cp(catalog.CMFoil, m(1200), m(1000), m(1300), m(1250), m(1100), m(1000))}
	add(piccolo)

	goku := tcgCard(1, "1001", "BT1-001", "Son Goku", "Common")
	goku.TCGPrices = []catalog.TCGPrice{
		tp("Normal", m(10), m(25), m(100), m(20), null),
		tp("Foil", m(150), m(200), m(500), m(180), m(140)),
	}
	goku.CMProductID, goku.CMID = 1, strings.Repeat("1", 64)
	goku.CMPrices = []catalog.CMPrice{
		cp(catalog.CMNormal, m(110), m(80), m(115), m(120), m(120), m(100)),
		cp(catalog.CMFoil, m(250), m(150), m(260), null, null, null),
	}
	add(goku)

	vegeta := tcgCard(2, "1001", "BT1-002", "Vegeta", "Rare")
	vegeta.TCGPrices = []catalog.TCGPrice{
		tp("Normal", m(50), m(75), m(200), m(60), null),
		tp("Holofoil", m(300), m(400), m(900), m(350), null),
	}
	for i := range vegeta.TCGPrices {
		vegeta.TCGPrices[i].UpdatedAt = fixtureTime2
	}
	vegeta.CMProductID, vegeta.CMID = 2, strings.Repeat("2", 64)
	vegeta.CMPrices = []catalog.CMPrice{
		cp(catalog.CMNormal, m(55), m(40), m(58), null, m(60), m(50)),
		cp(catalog.CMFoil, m(320), m(280), m(330), null, m(400), m(300)),
	}
	add(vegeta)

	sealed := tcgCard(6, "1001", "", "Galactic Battle Booster Box", "")
	sealed.ProductType = catalog.ProductSealed
	sealed.TCGPrices = []catalog.TCGPrice{tp("Normal", m(9000), m(10000), m(15000), m(9500), m(9200))}
	sealed.CMProductID, sealed.CMID = 6, strings.Repeat("6", 64)
	sealed.CMPrices = []catalog.CMPrice{cp(catalog.CMNormal, m(8000), m(7500), m(8200), m(8100), m(9000), m(8000))}
	add(sealed)

	krillin := tcgCard(4, "1001", "BT1-003", "Krillin", "Common")
	krillin.TCGPrices = []catalog.TCGPrice{tp("Normal", m(5), m(10), m(30), m(8), null)}
	add(krillin)

	frieza := tcgCard(8, "1001", "BT1-004", "Frieza", "Rare")
	frieza.TCGPrices = []catalog.TCGPrice{
		tp("Normal", m(40), null, null, null, null),
		tp("Foil", null, null, null, null, null), // an unpriced finish
	}
	frieza.CMProductID, frieza.CMID = 8, strings.Repeat("8", 64)
	frieza.CMPrices = []catalog.CMPrice{
		{Variant: catalog.CMNormal, UpdatedAt: fixtureTime}, // empty: not a price
		cp(catalog.CMFoil, null, m(90), m(95), null, null, null),
	}
	add(frieza)

	gohan := cmCard(idGohan, "1001", "Gohan (Alt Art)")
	gohan.CMPrices = []catalog.CMPrice{cp(catalog.CMNormal, m(500), m(450), m(520), null, m(600), m(500))}
	add(gohan)

	unknown := tcgCard(7, "1001", "", "Unidentified Product", "")
	unknown.ProductType = ""
	unknown.TCGPrices = []catalog.TCGPrice{tp("Normal", m(250), m(300), m(400), m(300), null)}
	add(unknown)

	trunks := tcgCard(11, "1002", "BT2-001", "Trunks", "Common")
	trunks.TCGPrices = []catalog.TCGPrice{tp("Normal", m(100), m(150), m(300), m(125), null)}
	trunks.CMProductID, trunks.CMID = 11, strings.Repeat("e", 64)
	trunks.CMPrices = []catalog.CMPrice{cp(catalog.CMNormal, m(150), m(120), m(160), m(150), m(91), m(100))}
	add(trunks)

	cell := tcgCard(13, "1002", "BT2-003", "Cell", "Rare")
	cell.TCGPrices = []catalog.TCGPrice{tp("Normal", m(1), m(2), m(3), m(2), null)}
	cell.CMProductID, cell.CMID = 13, strings.Repeat("f", 64)
	cell.CMPrices = []catalog.CMPrice{cp(catalog.CMNormal, m(98), m(95), m(97), null, m(90), m(99))}
	add(cell)

	bulma := tcgCard(12, "1002", "BT2-002", "Bulma", "Common")
	bulma.TCGPrices = []catalog.TCGPrice{tp("normal", m(100), m(120), m(200), m(125), null)} // lower case: joins case-insensitively
	bulma.CMProductID, bulma.CMID = 12, strings.Repeat("9", 64)
	bulma.CMPrices = []catalog.CMPrice{cp(catalog.CMNormal, m(101), m(90), m(100), null, m(100), m(100))}
	add(bulma)

	broly := cmCard(idBroly, "-501", "Broly (Promo)")
	broly.CMPrices = []catalog.CMPrice{cp(catalog.CMNormal, m(1000), m(900), m(1100), null, m(1045), m(1000))}
	add(broly)

	display := cmCard(idPromo, "-501", "Promo Pack Display")
	display.ProductType = catalog.ProductSealed
	display.CMPrices = []catalog.CMPrice{cp(catalog.CMNormal, m(5000), m(4000), m(5500), null, m(9000), m(5000))}
	add(display)

	beerus := cmCard(idBeerus, "-501", "Beerus (Foil Promo)")
	beerus.CMPrices = []catalog.CMPrice{cp(catalog.CMFoil, m(80), m(70), null, null, m(85), m(80))}
	add(beerus)

	zamasu := tcgCard(21, "1003", "BT3-001", "Zamasu", "")
	add(zamasu)
	hit := tcgCard(22, "1003", "BT3-002", "Hit", "Common")
	hit.TCGPrices = []catalog.TCGPrice{tp("Normal", null, null, null, null, null)}
	hit.CMProductID, hit.CMID = 22, strings.Repeat("5", 64)
	hit.CMPrices = []catalog.CMPrice{{Variant: catalog.CMNormal}}
	add(hit)

	return gc
}

// mustSnapshot builds the snapshot of a game's catalogue, as the server
// does before Build.
func mustSnapshot(tb testing.TB, gc *catalog.GameCatalog) *catalog.GameSnapshot {
	tb.Helper()
	c := &catalog.Catalog{Version: 1}
	if gc != nil {
		c.Games = []catalog.GameCatalog{*gc}
	}
	snap, err := catalog.NewSnapshot(c, game.Default())
	if err != nil {
		tb.Fatal(err)
	}
	return snap.Game("dbs")
}

// mustBuild builds the snapshot of gc, then its answers.
func mustBuild(tb testing.TB, gc *catalog.GameCatalog, opts Options) *Game {
	tb.Helper()
	g := Build(mustSnapshot(tb, gc), gc, opts)
	if g == nil {
		tb.Fatal("Build returned nil")
	}
	return g
}

func mustBuildFixture(tb testing.TB) *Game {
	tb.Helper()
	return mustBuild(tb, fixture(), Options{})
}
