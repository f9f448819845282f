package catalog

import (
	"slices"
	"strings"
)

// IDForm is the form of a card id as a game's card route sees it.
type IDForm int

const (
	IDMalformed  IDForm = iota // neither form below
	IDCanonical                // "{game}_" + 16 hex (either case)
	IDCardmarket               // 64 hex (either case)
)

// ClassifyCardID tells which form id has for the game gameCode.
func ClassifyCardID(gameCode, id string) IDForm {
	if hex, ok := strings.CutPrefix(id, gameCode+"_"); ok {
		if len(hex) == TCGLen && IsHex(hex) {
			return IDCanonical
		}
		return IDMalformed
	}
	if len(id) == CMLen && IsHex(id) {
		return IDCardmarket
	}
	return IDMalformed
}

// LookupCard finds a card by its canonical id or by its 64-hex Cardmarket
// id (which resolves also when the card is linked to a TCGplayer product);
// hex digits may be in either case.
func (g *GameSnapshot) LookupCard(id string) (CardRef, bool) {
	if len(g.byOther) > 0 {
		if r, ok := g.byOther[id]; ok {
			return r, true
		}
	}
	if hex, ok := strings.CutPrefix(id, g.game.IDPrefix()); ok {
		k, ok := parseHex64(hex)
		if !ok {
			return 0, false
		}
		r, ok := g.byTCG.get(k)
		return CardRef(r), ok
	}
	cm, ok := decodeCMID(id)
	if !ok {
		return 0, false
	}
	i, ok := g.byCM.get(cmKey(&cm))
	if !ok {
		return 0, false
	}
	if g.cmIDs[i].id == cm {
		return g.cmIDs[i].ref, true
	}
	// Another id with the same first 16 hex digits (rare): kept in byOther,
	// in lower case like every stored id.
	r, ok := g.byOther[strings.ToLower(id)]
	return r, ok
}

// AppendCard appends the card detail body of a card: its listing form with
// its prices put back (cardParts).
func (g *GameSnapshot) AppendCard(b []byte, r CardRef) []byte {
	e := &g.cards[r]
	return e.parts.appendDetail(b, g.chunks[e.chunk])
}

// AppendCards appends the card detail bodies of refs, a comma between
// them (a search's results, a batch). A card is two places in memory
// (cardParts), and the cards of a search are from all over the catalogue:
// the first byte of each place of each card is read before any card is
// copied, so that their cache misses overlap rather than come one after
// another, as a copy card by card makes them.
func (g *GameSnapshot) AppendCards(b []byte, refs []CardRef) []byte {
	n, touch := len(refs), byte(0)
	for _, r := range refs {
		e := &g.cards[r]
		c := g.chunks[e.chunk]
		touch |= c[e.parts.off] | c[e.parts.xoff]
		n += e.parts.detailLen()
	}
	b = slices.Grow(b, n+int(touch>>7)) // touch used, so its reads stay; 0 or 1 byte more room
	for i, r := range refs {
		if i > 0 {
			b = append(b, ',')
		}
		b = g.AppendCard(b, r)
	}
	return b
}

// CardLen returns the length of the card detail body of a card.
func (g *GameSnapshot) CardLen(r CardRef) int { return g.cards[r].parts.detailLen() }

// CardJSON returns the card detail body of a card in a new string; a
// request's path appends it into its buffer instead (AppendCard).
func (g *GameSnapshot) CardJSON(r CardRef) string { return string(g.AppendCard(nil, r)) }

// AppendListing appends the card's listing form: its detail form with both
// prices arrays empty.
func (g *GameSnapshot) AppendListing(b []byte, r CardRef) []byte {
	e := &g.cards[r]
	return append(b, e.parts.listing(g.chunks[e.chunk])...)
}

// ListingLen returns the length of the card's listing form.
func (g *GameSnapshot) ListingLen(r CardRef) int { return int(g.cards[r].parts.n) }

// SetRun returns the listing forms of cards [from, to) of the set, in
// listing order with a comma between them, as one string of the snapshot's
// memory (a set's listings are kept so: cardParts): a page's "cards" array
// without its brackets. from and to are positions in the set's listing.
func (g *GameSnapshot) SetRun(s *ListedSet, from, to int) string {
	if from >= to {
		return ""
	}
	a, z := &g.cards[s.first+CardRef(from)], &g.cards[s.first+CardRef(to-1)]
	return g.chunks[a.chunk][a.parts.off : z.parts.off+z.parts.n]
}

// SetByID returns the listed set with the set_id (exact).
func (g *GameSnapshot) SetByID(id string) (*ListedSet, bool) {
	for _, p := range g.setByID.candidates(id) {
		if g.sets[p].ID == id {
			return &g.sets[p], true
		}
	}
	return nil, false
}

// SetsByCode returns the listed sets whose set_code equals code, compared
// case-insensitively, in set-list order.
func (g *GameSnapshot) SetsByCode(code string) []*ListedSet {
	lower := strings.ToLower(code)
	ps := g.setsByCode.candidates(lower)
	out := make([]*ListedSet, 0, len(ps))
	for _, p := range ps {
		if lowerIs(g.sets[p].Code, lower) {
			out = append(out, &g.sets[p])
		}
	}
	return out
}

// SuggestSets returns up to max listed sets whose name contains every word
// of text (folded; "-" and "_" count as spaces, so a slug like
// "awakened-pulse" works), in set-list order.
func (g *GameSnapshot) SuggestSets(text string, max int) []*ListedSet {
	words := strings.Fields(strings.NewReplacer("-", " ", "_", " ").Replace(Fold(text)))
	if len(words) == 0 {
		return nil
	}
	var out []*ListedSet
	for i := range g.sets {
		s := &g.sets[i]
		if containsAll(s.folded, words) {
			out = append(out, s)
			if len(out) == max {
				break
			}
		}
	}
	return out
}

func containsAll(s string, words []string) bool {
	for _, w := range words {
		if !strings.Contains(s, w) {
			return false
		}
	}
	return true
}

// ImageProduct returns the TCGplayer productId whose image is the card's, or
// false when the card has no image (a Cardmarket-only card, or a product that
// lists none).
func (g *GameSnapshot) ImageProduct(r CardRef) (int, bool) {
	id := g.images[r]
	return int(id), id != 0
}
