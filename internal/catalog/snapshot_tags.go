package catalog

import (
	"encoding/binary"
	"sync"
	"sync/atomic"

	"github.com/zeebo/xxh3"

	"github.com/cardcat/cardcat/internal/etag"
)

// The snapshot owns the identity of the bodies it serves, so that the HTTP
// layer hashes nothing per request: a card detail's tag is made from its
// BodyHash when the body is rendered (kept in the card's row, cardEntry);
// the set list's and a set's listing's are made on first use and kept for
// the snapshot's life, and a set page's from its set's and its window.
type bodyTags struct {
	once    sync.Once
	sets    []atomic.Uint64 // by position in sets; 0: not hashed yet
	setList atomic.Uint64   // of setList; 0: not hashed yet
}

func (g *GameSnapshot) tagTables() *bodyTags {
	t := &g.tags
	t.once.Do(func() {
		t.sets = make([]atomic.Uint64, len(g.sets))
	})
	return t
}

// CardTag returns the strong ETag of the card detail AppendCard(r): the first
// 8 bytes of its BodyHash, the hash the change feed compares.
func (g *GameSnapshot) CardTag(r CardRef) string {
	return etag.FromSum(g.cards[r].bodyTag())
}

// SetListTag returns the strong ETag of SetListJSON: etag.Of of its bytes.
func (g *GameSnapshot) SetListTag() string {
	t := g.tagTables()
	sum := t.setList.Load()
	if sum == 0 {
		sum = xxh3.Hash(g.setList)
		t.setList.Store(sum)
	}
	return etag.FromSum(sum)
}

// SetPageTag returns the strong ETag of a page of a set's card listing,
// cards [from, to) of it, as GET /{game}/sets/{set} assembles it: a hash of
// the set's whole listing (its header, total and every card's listing form)
// and the window. Two pages with one tag are the same bytes; any change of
// the set's listing changes every page's tag, even a page whose own cards
// did not change (it is still right, and a set changes as a whole at most
// once per catalogue version).
func (g *GameSnapshot) SetPageTag(s *ListedSet, page, limit int) string {
	var b [24]byte
	binary.BigEndian.PutUint64(b[0:], g.setSum(s))
	binary.BigEndian.PutUint64(b[8:], uint64(page))
	binary.BigEndian.PutUint64(b[16:], uint64(limit))
	return etag.FromSum(xxh3.Hash(b[:]))
}

// setSum is the hash of a set's whole listing, made once.
func (g *GameSnapshot) setSum(s *ListedSet) uint64 {
	sums := g.tagTables().sets
	p := s.pos
	if sum := sums[p].Load(); sum != 0 {
		return sum
	}
	h := xxh3.New()
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(s.Total))
	h.Write(n[:])
	h.Write(s.header)
	for r := s.first; r < s.end; r++ {
		e := &g.cards[r]
		h.WriteString(e.parts.listing(g.chunks[e.chunk]))
	}
	sum := h.Sum64()
	sums[p].Store(sum)
	return sum
}
