package httpapi

import (
	"net/http"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/serving"
	"github.com/cardcat/cardcat/internal/web"
)

// GET /{game}/cards/{id}: the pre-rendered card, found by its canonical id
// or its 64-hex Cardmarket id (a linked card answers with its canonical id).
func (s *Server) handleCard(code string) keyedHandler {
	return func(r *http.Request) (reply, error) {
		id := pathValue(r, "id")
		if pr, ok := productRoutes[id]; ok {
			// /{game}/cards/tcgplayer with its number missing.
			return reply{}, newError(http.StatusBadRequest, errInvalidCardID,
				"\""+id+"\" is not a card id: a card is found by its "+pr.market+" "+pr.param+" at /"+code+"/cards/"+id+"/{"+pr.param+"}.")
		}
		_, g, ref, err := s.findCardIn(code, id)
		if err != nil {
			return reply{}, err
		}
		return cardReply(g, ref), nil
	}
}

// cardReply is the pre-rendered card detail of ref, with the snapshot's tag.
func cardReply(g *catalog.GameSnapshot, ref catalog.CardRef) reply {
	return reply{kind: web.Kept, contentType: jsonContentType, cardOf: g, card: ref, tag: g.CardTag(ref)}
}

// productRoutes are the segments of the lookups by marketplace number
// under /{game}/cards/, with their parameter.
var productRoutes = map[string]struct{ market, param string }{
	"tcgplayer":  {"TCGplayer", "productId"},
	"cardmarket": {"Cardmarket", "idProduct"},
}

// findCard resolves a card id of the game's path: 400 for a malformed id or
// another game's id (with did_you_mean), 404 for a well-formed unknown one.
func (s *Server) findCard(code, id string) (*catalog.GameSnapshot, catalog.CardRef, error) {
	_, g, ref, err := s.findCardIn(code, id)
	return g, ref, err
}

// findCardIn is findCard that also returns the view the card is of.
func (s *Server) findCardIn(code, id string) (*serving.View, *catalog.GameSnapshot, catalog.CardRef, error) {
	snap, g, err := s.gameSnapshot(code)
	if err != nil {
		return nil, nil, 0, err
	}
	switch catalog.ClassifyCardID(code, id) {
	case catalog.IDCanonical:
		if ref, ok := g.LookupCard(id); ok {
			return snap, g, ref, nil
		}
		return nil, nil, 0, cardNotFound(id)
	case catalog.IDCardmarket:
		if ref, ok := g.LookupCard(id); ok {
			return snap, g, ref, nil
		}
		// Cardmarket ids are per game: maybe another game's card.
		for _, other := range snap.Games() {
			if other != g {
				if _, ok := other.LookupCard(id); ok {
					return nil, nil, 0, s.wrongGameID(other.Game().Code, id)
				}
			}
		}
		return nil, nil, 0, cardNotFound(id)
	}
	for _, other := range s.deps.Games.All() {
		if other.Code != code && catalog.ClassifyCardID(other.Code, id) == catalog.IDCanonical {
			return nil, nil, 0, s.wrongGameID(other.Code, id)
		}
	}
	return nil, nil, 0, newError(http.StatusBadRequest, errInvalidCardID,
		"A card id is \""+code+"_\" followed by 16 hex characters, or a 64-character Cardmarket id.")
}

func cardNotFound(id string) *apiError {
	return newError(http.StatusNotFound, errCardNotFound, "No card has the id "+id+".")
}

// wrongGameID is the 400 of an id of another game, pointing at its path.
func (s *Server) wrongGameID(code, id string) *apiError {
	prefix := s.gamePrefix(code)
	where := "under " + prefix + "/"
	if prefix == "" {
		where = "at the unprefixed routes (/cards/...)"
	}
	e := newError(http.StatusBadRequest, errInvalidCardID,
		"This id belongs to the game "+code+"; ask for it "+where+".")
	e.Body.DidYouMean = prefix + "/cards/" + id
	return e
}

// gamePrefix is the path prefix of the game's routes: "/dbs", or "" for the
// base game.
func (s *Server) gamePrefix(code string) string {
	if g, ok := s.deps.Games.Get(code); ok {
		return g.PathPrefix()
	}
	return "/" + code
}
