package storetest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cardcat/cardcat/internal/catalog"
)

// updated is a price timestamp in a zone other than UTC, with microseconds:
// it must load back Equal, in UTC.
var updated = time.Date(2024, 3, 4, 5, 6, 7, 123456000, time.FixedZone("CET", 3600))

// sampleMTG covers every field: nulls ("" and Money{}) next to zeros, extra
// fields out of key order, finishes out of name order, HTML and non-ASCII
// text, a Cardmarket-only set and card, cards priced on one marketplace only
// and a card priced nowhere, and linked cards of each match kind (with
// sampleDBS). Its sets and cards are listed out of id order.
func sampleMTG() catalog.GameCatalog {
	const game = "mtg"
	cmOnly := catalog.CMCardID(game, 1, 777)
	return catalog.GameCatalog{
		Game: game,
		Sets: []catalog.Set{
			{Game: game, ID: "3", Code: "LEA", Name: "Limited Edition Alpha", Language: "EN",
				ReleaseDate: "1993-08-05T00:00:00", TCGCategoryID: 1, TCGGroupID: 3, CMExpansionID: 1},
			{Game: game, ID: "-1234", Name: "Cardmarket Exclusives: Ünïcode ✓", CMExpansionID: 1234},
			{Game: game, ID: "23000", Code: "MH3", Name: "Modern Horizons 3", TCGCategoryID: 1, TCGGroupID: 23000},
		},
		Cards: []catalog.Card{
			{
				Game: game, ID: catalog.TCGCardID(game, 1001), CMID: catalog.CMCardID(game, 1, 1001), SetID: "3",
				TCGProductID: 1001, CMProductID: 555,
				Name: "Black Lotus", CleanName: "Black Lotus", CardNumber: "232", Rarity: "Rare",
				CardType: "Artifact", ProductType: catalog.ProductCard,
				CardText: `<p>{T}, Sacrifice Black Lotus: Add three mana of any one color.</p><br/>"quoted" & 'single' — 黒い蓮 🌸`,
				Extra: []catalog.ExtraField{
					{Key: "watermark", Value: ""}, {Key: "artist", Value: "Christopher Rush"},
					{Key: "flavor", Value: "<i>Ätherisch</i>\nline two"},
				},
				Variants:   []string{"Normal", "Foil"},
				ImageCount: 2,
				TCGURL:     "https://www.tcgplayer.com/product/1001", CMProductName: "Black Lotus",
				CMProductURL: "https://www.cardmarket.com/en/Magic/Products/Singles/Alpha/Black-Lotus",
				CMMatch:      catalog.MatchOperator,
				TCGPrices: []catalog.TCGPrice{
					{SubType: "Normal", Low: catalog.Cents(0), Mid: catalog.Cents(123_456_789), High: catalog.Cents(-5),
						Market: catalog.Cents(99), DirectLow: catalog.Money{}, UpdatedAt: updated},
					{SubType: "Foil", Market: catalog.Cents(1)},
				},
				CMPrices: []catalog.CMPrice{
					{Variant: catalog.CMNormal, Avg: catalog.Cents(100), Low: catalog.Cents(0), Trend: catalog.Cents(120),
						Avg30: catalog.Cents(90), UpdatedAt: updated.Add(time.Hour)},
					{Variant: catalog.CMFoil},
				},
			},
			{
				Game: game, ID: catalog.TCGCardID(game, 7), CMID: catalog.CMCardID(game, 1, 888), SetID: "23000",
				TCGProductID: 7, CMProductID: 888, CMProductName: "Booster Box", CMMatch: catalog.MatchMTGJSON,
				Name: "Booster Box", CleanName: "Booster Box", ProductType: catalog.ProductSealed,
				CardText: "Contains 36 packs.", Variants: []string{"Normal"}, TCGURL: "https://www.tcgplayer.com/product/7",
				TCGPrices: []catalog.TCGPrice{{SubType: "Normal", Low: catalog.Cents(25000), UpdatedAt: updated}},
			},
			{
				Game: game, ID: cmOnly, CMID: cmOnly, SetID: "-1234", CMProductID: 777,
				Name: "Jötunn Grunt", CleanName: "Jotunn Grunt", Rarity: "Uncommon",
				CMProductName: "Jötunn Grunt", Extra: []catalog.ExtraField{{Key: "b", Value: "2"}, {Key: "a", Value: "1"}},
				CMPrices: []catalog.CMPrice{{Variant: catalog.CMFoil, Trend: catalog.Cents(3)}},
			},
			{Game: game, ID: catalog.TCGCardID(game, 2), SetID: "3", TCGProductID: 2, Name: "Unpriced"},
		},
	}
}

// sampleDBS is a second, small game.
func sampleDBS() catalog.GameCatalog {
	const game = "dbs"
	return catalog.GameCatalog{
		Game: game,
		Sets: []catalog.Set{{Game: game, ID: "2345", Code: "BT1", Name: "Galactic Battle", TCGCategoryID: 27, TCGGroupID: 2345}},
		Cards: []catalog.Card{{
			Game: game, ID: catalog.TCGCardID(game, 9), CMID: catalog.CMCardID(game, 13, 99), SetID: "2345", TCGProductID: 9,
			CMProductID: 99, CMProductName: "Son Goku", CMMatch: catalog.MatchName, Name: "Son Goku", CleanName: "Son Goku",
			CardNumber: "BT1-001", Rarity: "Super Rare", Variants: []string{"Foil"},
			TCGPrices: []catalog.TCGPrice{{SubType: "Foil", Market: catalog.Cents(250)}},
		}},
	}
}

// wantCatalog is what LoadCatalog should return after games were written:
// games by code, sets by id, cards as given.
func wantCatalog(version int64, created time.Time, games ...catalog.GameCatalog) *catalog.Catalog {
	c := &catalog.Catalog{Version: version, CreatedAt: created}
	for _, g := range games {
		if len(g.Sets) == 0 && len(g.Cards) == 0 {
			continue
		}
		g.Sets = slices.Clone(g.Sets)
		slices.SortFunc(g.Sets, func(a, b catalog.Set) int { return strings.Compare(a.ID, b.ID) })
		c.Games = append(c.Games, g)
	}
	slices.SortFunc(c.Games, func(a, b catalog.GameCatalog) int { return strings.Compare(a.Game, b.Game) })
	return c
}

// Generate returns a synthetic catalogue of one game with n cards, shaped like
// real data: 200 cards a set, 2 TCGplayer prices and 1 or 2 Cardmarket prices
// a card, a few extra fields and some HTML text.
func Generate(game string, n int, updatedAt time.Time) catalog.GameCatalog {
	g := catalog.GameCatalog{Game: game}
	for i := range (n + 199) / 200 {
		g.Sets = append(g.Sets, catalog.Set{Game: game, ID: strconv.Itoa(1000 + i), Code: fmt.Sprintf("S%03d", i),
			Name: fmt.Sprintf("Set %d", i), Language: "EN", ReleaseDate: "2024-01-01T00:00:00",
			TCGCategoryID: 27, TCGGroupID: 1000 + i, CMExpansionID: 5000 + i})
	}
	rarities := []string{"Common", "Uncommon", "Rare", "Super Rare"}
	matches := []string{catalog.MatchName, catalog.MatchName, catalog.MatchMTGJSON, catalog.MatchOperator}
	g.Cards = make([]catalog.Card, n)
	for i := range g.Cards {
		pid := 100000 + i
		name := fmt.Sprintf("Card Name Number %d", i)
		c := catalog.Card{
			Game: game, ID: catalog.TCGCardID(game, pid), CMID: catalog.CMCardID(game, 1, pid), SetID: strconv.Itoa(1000 + i/200),
			TCGProductID: pid, CMProductID: pid, Name: name, CleanName: name, CardNumber: fmt.Sprintf("BT%d-%03d", i/200, i%200),
			Rarity: rarities[i%len(rarities)], CardType: "Battle", ProductType: catalog.ProductCard,
			CardText: "<b>[Auto]</b> When this card attacks, draw a card. <br>[Permanent] This card gets +5000 power during your turn.",
			Extra: []catalog.ExtraField{{Key: "color", Value: "Red"}, {Key: "power", Value: "15000"},
				{Key: "energy_cost", Value: "2(R)"}},
			Variants: []string{"Normal", "Foil"}, ImageCount: 1,
			TCGURL: "https://www.tcgplayer.com/product/" + strconv.Itoa(pid), CMProductName: name,
			CMProductURL: "https://www.cardmarket.com/en/DragonBallSuper/Products/Singles/x/" + strconv.Itoa(pid),
			CMMatch:      matches[i%len(matches)],
			TCGPrices: []catalog.TCGPrice{
				{SubType: "Normal", Low: catalog.Cents(10), Mid: catalog.Cents(25), High: catalog.Cents(300),
					Market: catalog.Cents(22), UpdatedAt: updatedAt},
				{SubType: "Foil", Low: catalog.Cents(50), Mid: catalog.Cents(80), High: catalog.Cents(900),
					Market: catalog.Cents(75), DirectLow: catalog.Cents(70), UpdatedAt: updatedAt},
			},
			CMPrices: []catalog.CMPrice{{Variant: catalog.CMNormal, Avg: catalog.Cents(20), Low: catalog.Cents(5),
				Trend: catalog.Cents(21), Avg1: catalog.Cents(19), Avg7: catalog.Cents(20), Avg30: catalog.Cents(22), UpdatedAt: updatedAt}},
		}
		if i%2 == 0 {
			c.CMPrices = append(c.CMPrices, catalog.CMPrice{Variant: catalog.CMFoil, Avg: catalog.Cents(60),
				Trend: catalog.Cents(65), UpdatedAt: updatedAt})
		}
		g.Cards[i] = c
	}
	return g
}
