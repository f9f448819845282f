package catalog

import (
	"math"
	"testing"
)

// TestLookupProducts: every product of the fixture finds its card by its
// marketplace number, in its own game only; other numbers find nothing.
func TestLookupProducts(t *testing.T) {
	c := fixtureCatalog()
	s := mustSnapshot(t, c)
	found := func(g *GameSnapshot, r CardRef, ok bool) string {
		if !ok {
			return ""
		}
		var p CardPrices
		g.CardPrices(r, &p)
		return p.ID
	}
	n := 0
	for _, gc := range c.Games {
		g, other := s.Game(gc.Game), s.Game("mtg")
		if gc.Game == "mtg" {
			other = s.Game("dbs")
		}
		for _, card := range gc.Cards {
			if card.OnTCG() {
				n++
				r, ok := g.LookupTCGProduct(int64(card.TCGProductID))
				if got := found(g, r, ok); got != card.ID {
					t.Errorf("%s: TCGplayer product %d found %q, want %s", gc.Game, card.TCGProductID, got, card.ID)
				}
				if r, ok := other.LookupTCGProduct(int64(card.TCGProductID)); ok {
					t.Errorf("%s: TCGplayer product %d of %s found card %d", other.Game().Code, card.TCGProductID, gc.Game, r)
				}
			}
			if card.OnCM() {
				n++
				r, ok := g.LookupCMProduct(int64(card.CMProductID))
				if got := found(g, r, ok); got != card.ID {
					t.Errorf("%s: Cardmarket product %d found %q, want %s (canonical)", gc.Game, card.CMProductID, got, card.ID)
				}
				if r, ok := other.LookupCMProduct(int64(card.CMProductID)); ok {
					t.Errorf("%s: Cardmarket product %d of %s found card %d", other.Game().Code, card.CMProductID, gc.Game, r)
				}
			}
		}
	}
	if n < 20 {
		t.Fatalf("only %d products checked", n)
	}

	dbs := s.Game("dbs")
	for _, id := range []int64{0, -1, 1, 700001 /* a Cardmarket number */, math.MaxInt64} {
		if r, ok := dbs.LookupTCGProduct(id); ok {
			t.Errorf("LookupTCGProduct(%d) found card %d", id, r)
		}
	}
	for _, id := range []int64{0, -1, 1, 535600 /* a TCGplayer number */, math.MaxInt64} {
		if r, ok := dbs.LookupCMProduct(id); ok {
			t.Errorf("LookupCMProduct(%d) found card %d", id, r)
		}
	}
}
