package catalog

import (
	"encoding/json"
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
