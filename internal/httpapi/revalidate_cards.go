package httpapi

import (
	"net/http"
	"sync/atomic"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/etag"
	"github.com/cardcat/cardcat/internal/serving"
)

// A card detail is pre-rendered per catalogue version, so its identity tag
// is too: cardTags keeps each card's hash once made, in a table per view
// indexed by CardRef (8 bytes a card, made for every game of the view on its
// first card request), so a revalidation or a 200 of a card hashes nothing
// (bench/README.md, the ETag section). The table is of the newest view
// asked for: a request still on an older version hashes its body as before.
type cardTags struct {
	cur atomic.Pointer[cardTagTable]
}

type cardTagTable struct {
	view  *serving.View
	games map[*catalog.GameSnapshot][]atomic.Uint64 // 0: not hashed yet
}

// cardTag returns the identity ETag of the card detail g.CardJSON(ref) of the
// view v: etag.OfString of those bytes.
func (s *Server) cardTag(v *serving.View, g *catalog.GameSnapshot, ref catalog.CardRef) string {
	t := s.cards.cur.Load()
	if t == nil || t.view != v {
		if t != nil && v.Version < t.view.Version {
			return etag.OfString(g.CardJSON(ref))
		}
		nt := &cardTagTable{view: v, games: make(map[*catalog.GameSnapshot][]atomic.Uint64, len(v.Games()))}
		for _, game := range v.Games() {
			nt.games[game] = make([]atomic.Uint64, game.Len())
		}
		if !s.cards.cur.CompareAndSwap(t, nt) {
			// Another request made the table (or another view's) first.
			if t = s.cards.cur.Load(); t.view != v {
				return etag.OfString(g.CardJSON(ref))
			}
		} else {
			t = nt
		}
	}
	sums := t.games[g]
	if int(ref) >= len(sums) {
		return etag.OfString(g.CardJSON(ref))
	}
	sum := sums[ref].Load()
	if sum == 0 {
		// A body hashing to 0 is hashed on each request: right, if slower.
		sum = etag.SumString(g.CardJSON(ref))
		sums[ref].Store(sum)
	}
	return etag.FromSum(sum)
}

// writeCard sends the card detail of ref, its tag from cardTags.
func (s *Server) writeCard(w http.ResponseWriter, v *serving.View, g *catalog.GameSnapshot, ref catalog.CardRef) {
	writeAnswer(w, keptBody, jsonContentType, nil, g.CardJSON(ref), s.cardTag(v, g, ref))
}
