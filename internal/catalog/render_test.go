package catalog

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cardcat/cardcat/internal/game"
)

// TestMarketCMatch: a linked card's market_c says how it was linked; a
// Cardmarket-only card's has no match.
func TestMarketCMatch(t *testing.T) {
	c := fixtureCatalog()
	seen := map[string]bool{}
	for i, m := range []string{MatchMTGJSON, MatchOperator, MatchName} {
		// The fixture has no MTGJSON link (Magic sealed only): give one card each kind.
		card := &c.Games[1].Cards[i]
		if card.OnTCG() && card.OnCM() {
			card.CMMatch = m
		}
	}
	s := mustSnapshot(t, c)
	for _, gc := range c.Games {
		gs := s.Game(gc.Game)
		for _, card := range gc.Cards {
			r, ok := gs.LookupCard(card.ID)
			if !ok {
				t.Fatalf("%s not found", card.ID)
			}
			var body struct {
				MarketC map[string]json.RawMessage `json:"market_c"`
			}
			if err := json.Unmarshal([]byte(gs.CardJSON(r)), &body); err != nil {
				t.Fatal(err)
			}
			match, has := body.MarketC["match"]
			switch {
			case !card.OnCM():
			case !card.OnTCG():
				if has {
					t.Errorf("Cardmarket-only %s: match %s", card.ID, match)
				}
			default:
				var got string
				if err := json.Unmarshal(match, &got); err != nil || got != card.CMMatch || got == "" {
					t.Errorf("linked %s: match %s, want %q", card.ID, match, card.CMMatch)
				}
				seen[got] = true
			}
		}
	}
	if len(seen) != 3 {
		t.Errorf("matches rendered: %v, want all three kinds", seen)
	}
}

// TestCardInfoListField: a list field (Pokémon's attacks) is an array of its
// values in order, absent when the card has none; the other fields stay
// strings, and a game without the field never shows it.
func TestCardInfoListField(t *testing.T) {
	pkm := game.Pokemon()
	set := &Set{ID: "604", Name: "Base Set", Code: "BS"}
	card := &Card{Name: "Zapdos", CleanName: "Zapdos", Extra: []ExtraField{
		{Key: "hp", Value: "90"},
		{Key: "attacks", Value: "[1LLL] Thunder (60)\r\n<br>Flip a coin."},
		{Key: "attacks", Value: "[LLLL] Thunderbolt (100)"},
	}}
	var info map[string]any
	if err := json.Unmarshal(AppendCardInfo(nil, &pkm, set, card), &info); err != nil {
		t.Fatal(err)
	}
	attacks, ok := info["attacks"].([]any)
	if !ok || len(attacks) != 2 || attacks[0] != "[1LLL] Thunder (60)\r\n<br>Flip a coin." || attacks[1] != "[LLLL] Thunderbolt (100)" {
		t.Errorf("attacks: %#v", info["attacks"])
	}
	if info["hp"] != "90" {
		t.Errorf("hp: %#v", info["hp"])
	}
	card.Extra = card.Extra[:1]
	info = nil
	if err := json.Unmarshal(AppendCardInfo(nil, &pkm, set, card), &info); err != nil {
		t.Fatal(err)
	}
	if _, ok := info["attacks"]; ok {
		t.Errorf("a card without attacks has %#v", info["attacks"])
	}
	op := game.OnePiece()
	card.Extra = []ExtraField{{Key: "attacks", Value: "x"}, {Key: "color", Value: "Red"}}
	info = nil
	if err := json.Unmarshal(AppendCardInfo(nil, &op, set, card), &info); err != nil {
		t.Fatal(err)
	}
	if _, ok := info["attacks"]; ok || info["color"] != "Red" {
		t.Errorf("One Piece card_info: %v", info)
	}
}

// TestSetRun: a set's page is one slice of the snapshot, its cards'
// listing forms in order with a comma between, for every window of every
// set (the empty window, a card alone, the whole set); and the detail form
// put together from the parts is the card as rendered.
func TestSetRun(t *testing.T) {
	c := awkwardCatalog()
	s := mustSnapshot(t, c)
	windows := 0
	for _, gs := range s.Games() {
		for i := range gs.Sets() {
			set := &gs.Sets()[i]
			first, end := set.Cards()
			n := int(end - first)
			for from := 0; from <= n; from++ {
				for to := from; to <= n; to++ {
					var want []byte
					for k := from; k < to; k++ {
						if k > from {
							want = append(want, ',')
						}
						want = gs.AppendListing(want, first+CardRef(k))
					}
					if got := gs.SetRun(set, from, to); got != string(want) {
						t.Fatalf("%s set %s [%d, %d):\n got %s\nwant %s", gs.Game().Code, set.ID, from, to, got, want)
					}
					windows++
				}
			}
		}
	}
	if windows < 100 {
		t.Errorf("only %d windows checked", windows)
	}
	for _, gc := range c.Games {
		gs := s.Game(gc.Game)
		sets := map[string]*Set{}
		for k := range gc.Sets {
			sets[gc.Sets[k].ID] = &gc.Sets[k]
		}
		for i := range gc.Cards {
			r, _ := gs.LookupCard(gc.Cards[i].ID)
			want, _ := appendCard(nil, &gs.game, sets[gc.Cards[i].SetID], &gc.Cards[i])
			if got := gs.AppendCard([]byte("x"), r); string(got) != "x"+string(want) || gs.CardLen(r) != len(want) {
				t.Errorf("%s: detail (%d bytes, CardLen %d)\n got %s\nwant %s", gc.Cards[i].ID, len(got)-1, gs.CardLen(r), got[1:], want)
			}
		}
	}
}

// TestAppendCards: the bodies of a list of cards (in any order, one twice)
// are their details, a comma between, after what the buffer held.
func TestAppendCards(t *testing.T) {
	s := mustSnapshot(t, awkwardCatalog())
	for _, gs := range s.Games() {
		if got := gs.AppendCards(nil, nil); len(got) != 0 {
			t.Errorf("%s: no cards gave %q", gs.Game().Code, got)
		}
		if gs.Len() == 0 {
			continue
		}
		var refs []CardRef
		for r := gs.Len() - 1; r >= 0; r -= 2 {
			refs = append(refs, CardRef(r))
		}
		refs = append(refs, 0, 0)
		want := []byte("[")
		for i, r := range refs {
			if i > 0 {
				want = append(want, ',')
			}
			want = append(want, gs.CardJSON(r)...)
		}
		if got := gs.AppendCards([]byte("["), refs); string(got) != string(want) {
			t.Errorf("%s:\n got %s\nwant %s", gs.Game().Code, got, want)
		}
	}
}

// TestPricesArrayBound: a card whose prices array would not fit the parts'
// 16 bits fails the snapshot with ErrInvalidCatalog, and one of ten
// finishes does not.
func TestPricesArrayBound(t *testing.T) {
	for _, tt := range []struct {
		finishes int
		ok       bool
	}{{10, true}, {2000, false}} {
		c := fixtureCatalog()
		card := &c.Games[0].Cards[0]
		card.TCGPrices = nil
		for i := range tt.finishes {
			card.TCGPrices = append(card.TCGPrices, tcgPrice(fmt.Sprintf("Finish %d", i), 1, 2, 3, 4, Money{}))
		}
		_, err := NewSnapshot(c, game.Default())
		if tt.ok && err != nil {
			t.Errorf("%d finishes: %v", tt.finishes, err)
		}
		if !tt.ok && !errors.Is(err, ErrInvalidCatalog) {
			t.Errorf("%d finishes: %v, want ErrInvalidCatalog", tt.finishes, err)
		}
	}
}

// TestCheckRefusesBrokenRun: a snapshot read from a file whose set's
// listings do not follow one another (a page would be cut across other
// bytes) is refused.
func TestCheckRefusesBrokenRun(t *testing.T) {
	s := mustSnapshot(t, fixtureCatalog())
	for _, gs := range s.Games() {
		if err := gs.check(nil); err != nil {
			t.Fatalf("%s: a built snapshot refused: %v", gs.Game().Code, err)
		}
		for i := range gs.Sets() {
			first, end := gs.Sets()[i].Cards()
			if end-first < 2 {
				continue
			}
			a, b := &gs.cards[first], &gs.cards[first+1]
			*a, *b = *b, *a // each card's parts still whole; their order not
			if err := gs.check(nil); err == nil || !strings.Contains(err.Error(), "does not follow") {
				t.Errorf("%s set %d: two listings swapped: %v", gs.Game().Code, i, err)
			}
			*a, *b = *b, *a
			return
		}
	}
	t.Fatal("no set of two cards in the fixture")
}

// TestPricesPositionBound: a card whose prices arrays come after more than
// the row's 16 bits of text (a name of 70,000 characters) fails the
// snapshot with ErrInvalidCatalog, and one of 60,000 characters does not.
func TestPricesPositionBound(t *testing.T) {
	for _, tt := range []struct {
		name int
		ok   bool
	}{{60_000, true}, {70_000, false}} {
		c := fixtureCatalog()
		c.Games[0].Cards[0].Name = strings.Repeat("n", tt.name)
		_, err := NewSnapshot(c, game.Default())
		if tt.ok && err != nil {
			t.Errorf("a name of %d: %v", tt.name, err)
		}
		if !tt.ok && (!errors.Is(err, ErrInvalidCatalog) || !strings.Contains(err.Error(), "prices arrays at bytes")) {
			t.Errorf("a name of %d: %v, want ErrInvalidCatalog", tt.name, err)
		}
	}
}
