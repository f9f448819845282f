package catalog

import (
	"encoding/binary"
	"testing"

	"github.com/cardcat/cardcat/internal/etag"
	"github.com/cardcat/cardcat/internal/game"
)

// TestCardTagIsTheChangeFeedHash: one hash per body. A card's ETag is the
// first 8 bytes of the hash the change feed records for it (CardBodyHashes,
// at ingest), made from the same bytes the card route answers, and the
// binary form keeps it.
func TestCardTagIsTheChangeFeedHash(t *testing.T) {
	c := fixtureCatalog()
	s := mustSnapshot(t, c)
	read := readBack(t, s)
	n := 0
	for i := range c.Games {
		gc := &c.Games[i]
		g, _ := game.Default().Get(gc.Game)
		hashes, err := CardBodyHashes(g, gc)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hashes {
			want := etag.FromSum(binary.BigEndian.Uint64(h.Hash[:8]))
			for _, snap := range []*Snapshot{s, read} {
				gs := snap.Game(gc.Game)
				ref, ok := gs.LookupCard(h.ID)
				if !ok {
					t.Fatalf("%s: not in the snapshot", h.ID)
				}
				if got := gs.CardTag(ref); got != want {
					t.Errorf("%s: CardTag %s, the change feed's hash gives %s", h.ID, got, want)
				}
				if BodyHash([]byte(gs.CardJSON(ref))) != h.Hash {
					t.Errorf("%s: the served body is not the one the change feed hashed", h.ID)
				}
			}
			n++
		}
	}
	if n == 0 {
		t.Fatal("no card")
	}
}
