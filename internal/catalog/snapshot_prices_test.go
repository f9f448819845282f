package catalog

import (
	"strings"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/game"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// awkwardCatalog has the texts a JSON cutter could trip on: quotes, braces,
// brackets, commas, backslashes and key-like text inside names and finishes,
// a finish priced on updated_at only, and an all-null TCGplayer row.
func awkwardCatalog() *Catalog {
	c := fixtureCatalog()
	dbs := &c.Games[0]
	odd := tcgCard("dbs", 990001, "23401", `Goku "Kakarot", {the} [best] \ "card_number":"x"`, `FB01-"9"}`)
	odd.ProductType = ""
	odd.Rarity = `Rare,"product_type":"sealed"`
	odd.Extra = []ExtraField{{"color", `}]"`}}
	odd.TCGPrices = []TCGPrice{
		{SubType: "Normal", UpdatedAt: fixtureTime}, // no amount at all
		tcgPrice(`Foil "}],{`, 1, 2, 3, 4, Money{}),
		{SubType: "Holofoil", DirectLow: Cents(7)},
	}
	odd = link(odd, 13, 990001, `https://example.test/"}]`)
	odd.CMPrices = []CMPrice{
		{Variant: CMNormal, UpdatedAt: fixtureTime}, // empty: not rendered
		cmPrice(CMFoil, Money{}, Money{}, Money{}, Money{}, Money{}, Cents(5)),
	}
	dbs.Cards = append(dbs.Cards, odd)
	return c
}

func TestCardPrices(t *testing.T) {
	c := awkwardCatalog()
	snap := mustSnapshot(t, c)
	reg := game.Default()
	checked := 0
	for _, gc := range c.Games {
		gs := snap.Game(gc.Game)
		g, _ := reg.Get(gc.Game)
		var got CardPrices
		for i := range gc.Cards {
			card := &gc.Cards[i]
			ref, ok := gs.LookupCard(card.ID)
			if !ok {
				t.Fatalf("%s not found", card.ID)
			}
			gs.CardPrices(ref, &got)
			want := CardPrices{ID: card.ID, CardNumber: card.CardNumber, Name: card.Name, ProductType: card.ProductType,
				TCG: card.TCGPrices}
			for j := range card.CMPrices {
				if p := &card.CMPrices[j]; !p.Empty() {
					want.CM = append(want.CM, *p)
				}
			}
			if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%s %q (-want +got):\n%s", gc.Game, card.Name, diff)
			}

			// The prices render as the body's, byte for byte (updated_at's offset included).
			body, e := gs.CardJSON(ref), &gs.cards[ref]
			tn, cn := e.parts.pricesLen()
			stored := gs.chunks[e.chunk][e.parts.xoff:]
			tAt, cAt := e.parts.pricesAt()
			cAt += tn // where the contents are in the body
			var tcg, cm []byte
			for j := range got.TCG {
				if j > 0 {
					tcg = append(tcg, ',')
				}
				tcg = appendTCGPrice(tcg, &got.TCG[j])
				block := string(AppendTCGPriceBlock(nil, &got.TCG[j]))
				if !strings.Contains(body, `,`+block[1:]) {
					t.Errorf("%s: TCGplayer block %s is not in the body", card.ID, block)
				}
			}
			for j := range got.CM {
				if j > 0 {
					cm = append(cm, ',')
				}
				cm = appendCMPrice(cm, &got.CM[j])
				block := string(AppendCMPriceBlock(nil, &got.CM[j]))
				if !strings.Contains(body, `,`+block[1:]) {
					t.Errorf("%s: Cardmarket block %s is not in the body", card.ID, block)
				}
			}
			for _, w := range []string{body[tAt : tAt+tn], stored[:tn]} {
				if g := string(tcg); g != w {
					t.Errorf("%s: market_t.prices\n got %s\nwant %s", card.ID, g, w)
				}
			}
			for _, w := range []string{body[cAt : cAt+cn], stored[tn : tn+cn]} {
				if g := string(cm); g != w {
					t.Errorf("%s: market_c.prices\n got %s\nwant %s", card.ID, g, w)
				}
			}

			// AppendCardInfo is the card_info of the body, byte for byte.
			var set *Set
			for k := range gc.Sets {
				if gc.Sets[k].ID == card.SetID {
					set = &gc.Sets[k]
				}
			}
			info := string(AppendCardInfo(nil, &g, set, card))
			if !strings.Contains(body, `,"card_info":`+info+`,"images":`) {
				t.Errorf("%s: AppendCardInfo %s is not the body's card_info", card.ID, info)
			}
			checked++
		}
	}
	if checked < 20 {
		t.Errorf("only %d cards checked", checked)
	}
}

// TestRecordAmounts checks that a record gives back every Money exactly,
// null, negative and the largest included, and the finish's names and times.
func TestRecordAmounts(t *testing.T) {
	moneys := []Money{{}, {Cents: 12}, Cents(0), Cents(1), Cents(12345), Cents(1<<31 - 1), Cents(1 << 40),
		Cents(-1), Cents(-1 << 63), Cents(1<<63 - 1)}
	c := Card{ID: "dbs_0123456789abcdef", Name: "x", ProductType: "odd"}
	for i := 0; i+5 <= len(moneys); i++ {
		m := moneys[i : i+5]
		c.TCGPrices = append(c.TCGPrices, TCGPrice{SubType: itoa(i), Low: m[0], Mid: m[1], High: m[2], Market: m[3], DirectLow: m[4],
			UpdatedAt: time.Date(2026, 1, i, 0, 0, 0, 0, time.FixedZone("", i*3600))})
	}
	got := recordOf(t, &c)
	want := CardPrices{ID: c.ID, Name: c.Name, ProductType: c.ProductType, TCG: c.TCGPrices}
	for i := range want.TCG {
		for _, m := range []*Money{&want.TCG[i].Low, &want.TCG[i].Mid, &want.TCG[i].High, &want.TCG[i].Market, &want.TCG[i].DirectLow} {
			if !m.OK {
				*m = Money{} // a null's cents are not kept
			}
		}
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for i := range got.TCG {
		if g, w := got.TCG[i].UpdatedAt.Format(time.RFC3339), c.TCGPrices[i].UpdatedAt.Format(time.RFC3339); g != w {
			t.Errorf("updated_at %s, want %s", g, w)
		}
	}
}

// recordOf writes and reads back the record of a card of game dbs.
func recordOf(t *testing.T, c *Card) CardPrices {
	t.Helper()
	g, _ := game.Default().Get("dbs")
	rb := newRecordBuilder(g.IDPrefix())
	gs := &GameSnapshot{game: g, cards: []cardEntry{{}}}
	gs.chunks = []string{string(rb.append(nil, c))}
	gs.finishNames, gs.times = rb.names, rb.times
	var p CardPrices
	gs.CardPrices(0, &p)
	return p
}

func TestRecordIDs(t *testing.T) {
	cm := CMCardID("dbs", 13, 1)
	for _, id := range []string{TCGCardID("dbs", 1), "dbs_ABCDEF0123456789", "dbs_abc", TCGCardID("mtg", 1),
		cm, strings.ToUpper(cm), cm[:63] + "g", "", "odd \"id\""} {
		c := Card{ID: id, Name: "n", CardNumber: "1", ProductType: ProductSealed}
		got := recordOf(t, &c)
		if got.ID != id || got.Name != "n" || got.CardNumber != "1" || got.ProductType != ProductSealed {
			t.Errorf("%q: got %+v", id, got)
		}
	}
}
