package catalog

import (
	"encoding/json"
	"testing"
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
