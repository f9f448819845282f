package catalog

import (
	"github.com/cardcat/cardcat/internal/jsonw"
	"strings"
	"testing"

	"github.com/cardcat/cardcat/internal/game"
	"github.com/google/go-cmp/cmp"
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
			want := CardPrices{
				ID:          string(jsonw.AppendString(nil, card.ID)),
				CardNumber:  string(appendNullableString(nil, card.CardNumber)),
				Name:        string(jsonw.AppendString(nil, card.Name)),
				ProductType: string(appendNullableString(nil, card.ProductType)),
			}
			for j := range card.TCGPrices {
				p := &card.TCGPrices[j]
				want.TCG = append(want.TCG, finishOf(string(appendTCGPrice(nil, p)),
					p.Low.OK || p.Mid.OK || p.High.OK || p.Market.OK || p.DirectLow.OK))
			}
			for j := range card.CMPrices {
				if p := &card.CMPrices[j]; !p.Empty() {
					want.CM = append(want.CM, finishOf(string(appendCMPrice(nil, p)), true))
				}
			}
			if diff := cmp.Diff(want, got, cmp.Transformer("nilEmpty", func(s []FinishPrice) []FinishPrice {
				if len(s) == 0 {
					return nil
				}
				return s
			})); diff != "" {
				t.Errorf("%s %q (-want +got):\n%s", gc.Game, card.Name, diff)
			}

			// AppendCardInfo is the card_info of the body, byte for byte.
			var set *Set
			for k := range gc.Sets {
				if gc.Sets[k].ID == card.SetID {
					set = &gc.Sets[k]
				}
			}
			info := string(AppendCardInfo(nil, &g, set, card))
			if !strings.Contains(gs.CardJSON(ref), `,"card_info":`+info+`,"images":`) {
				t.Errorf("%s: AppendCardInfo %s is not the body's card_info", card.ID, info)
			}
			checked++
		}
	}
	if checked < 20 {
		t.Errorf("only %d cards checked", checked)
	}
}

// finishOf splits a rendered price element the way CardPrices does.
func finishOf(elem string, priced bool) FinishPrice {
	colon := strings.Index(elem, ":")
	rest := elem[colon+1:]
	end := skipJSONString(rest, 0)
	return FinishPrice{Finish: rest[:end], Members: rest[end+1 : len(rest)-1], Priced: priced}
}

func TestFinishIs(t *testing.T) {
	tests := []struct {
		finish, name string
		want         bool
	}{
		{`"Normal"`, "Normal", true},
		{`"normal"`, "Normal", true},
		{`"NORMAL"`, "normal", true},
		{`"Holofoil"`, "Foil", false},
		{`"Foil \"x\""`, `Foil "x"`, true},
		{`"\u003cFoil\u003e"`, "<foil>", true},
		{`""`, "Normal", false},
		{`null`, "Normal", false},
	}
	for _, tt := range tests {
		p := FinishPrice{Finish: tt.finish}
		if got := p.FinishIs(tt.name); got != tt.want {
			t.Errorf("FinishIs(%s, %q) = %v, want %v", tt.finish, tt.name, got, tt.want)
		}
	}
}

func TestSkipJSON(t *testing.T) {
	for _, tt := range []struct {
		s    string
		want int // index past the value starting at 0
	}{
		{`"abc",`, 5},
		{`"a\"b",`, 6},
		{`"a\\",`, 5},
		{`"a\\\"",`, 7},
		{`"\\\\"x`, 6},
		{`"}]{,",`, 6},
		{`"unterminated`, 13},
		{`null,`, 4},
		{`12.5}`, 4},
		{`{"a":"}","b":[1,{"c":"]"}]},`, 27},
		{`["x\"]",{}]}`, 11},
	} {
		if got := skipJSONValue(tt.s, 0); got != tt.want {
			t.Errorf("skipJSONValue(%s) = %d, want %d", tt.s, got, tt.want)
		}
	}
}
