package catalog

import (
	"crypto/sha256"
	"errors"
	"testing"

	"github.com/cardcat/cardcat/internal/game"
)

// TestCardBodyHashes: each card's hash is of exactly the body the snapshot
// serves, in the catalogue's order; a card of an unknown set is refused.
func TestCardBodyHashes(t *testing.T) {
	c := fixtureCatalog()
	s := mustSnapshot(t, c)
	for _, gc := range c.Games {
		g, _ := game.Default().Get(gc.Game)
		hashes, err := CardBodyHashes(g, &gc)
		if err != nil {
			t.Fatal(err)
		}
		if len(hashes) != len(gc.Cards) {
			t.Fatalf("%s: %d hashes for %d cards", gc.Game, len(hashes), len(gc.Cards))
		}
		gs := s.Game(gc.Game)
		for i, card := range gc.Cards {
			r, _ := gs.LookupCard(card.ID)
			sum := sha256.Sum256([]byte(gs.CardJSON(r)))
			if h := hashes[i]; h.ID != card.ID || h.Hash != [BodyHashLen]byte(sum[:BodyHashLen]) {
				t.Errorf("%s: hash %x of %s, want %x of the served body", card.ID, h.Hash, h.ID, sum[:BodyHashLen])
			}
		}
	}
	gc := c.Games[0]
	gc.Cards = append([]Card(nil), gc.Cards...)
	gc.Cards[0].SetID = "no such set"
	g, _ := game.Default().Get(gc.Game)
	if _, err := CardBodyHashes(g, &gc); !errors.Is(err, ErrInvalidCatalog) {
		t.Errorf("a card of an unknown set: %v", err)
	}
}
