package catalog

import (
	"crypto/sha256"
	"fmt"

	"github.com/cardcat/cardcat/internal/game"
)

// BodyHashLen is the length of a card body hash: 128 bits of SHA-256, far
// past any chance of two different bodies of one card colliding, at half the
// room of the whole digest.
const BodyHashLen = 16

// BodyHash is the one hash of a card's detail body, made where the body is
// rendered: the change feed compares it between versions (CardBodyHashes),
// and the snapshot keeps its first 8 bytes as the body's ETag (CardTag).
func BodyHash(body []byte) [BodyHashLen]byte {
	sum := sha256.Sum256(body)
	return [BodyHashLen]byte(sum[:BodyHashLen])
}

// CardHash is the content hash of one card's detail body.
type CardHash struct {
	ID   string
	Hash [BodyHashLen]byte
}

// CardBodyHashes returns the hash of each card's detail body, exactly the
// bytes GET /{game}/cards/:id answers in data, in gc's card order. It is how
// the change feed tells which cards changed between two versions: comparing
// the rendered bodies catches every field a caller sees, prices and their
// times included, and a change of the rendering itself.
func CardBodyHashes(g game.Game, gc *GameCatalog) ([]CardHash, error) {
	sets := make(map[string]*Set, len(gc.Sets))
	for i := range gc.Sets {
		sets[gc.Sets[i].ID] = &gc.Sets[i]
	}
	hashes := make([]CardHash, len(gc.Cards))
	var b []byte
	for i := range gc.Cards {
		c := &gc.Cards[i]
		s, ok := sets[c.SetID]
		if !ok {
			return nil, fmt.Errorf("%w: card %s is in unknown set %q", ErrInvalidCatalog, c.ID, c.SetID)
		}
		b, _ = appendCard(b[:0], &g, s, c)
		hashes[i] = CardHash{ID: c.ID, Hash: BodyHash(b)}
	}
	return hashes, nil
}
