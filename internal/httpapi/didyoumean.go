package httpapi

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/cardcat/cardcat/internal/httpapi/suggest"
)

// endpointNotFound is the 404 of a path no route serves. did_you_mean is
// always sent: the corrected path when one can be inferred, else null.
func (s *Server) endpointNotFound(r *http.Request) *apiError {
	e := newError(http.StatusNotFound, errEndpointNotFound,
		"No endpoint answers GET "+r.URL.Path+". Game endpoints live under their game's prefix (see GET /), the base game's at unprefixed routes.")
	e.Body.Docs = s.docsURL()
	if p := s.suggester().Path(r.URL.Path); p != "" {
		if r.URL.RawQuery != "" {
			// A '#' that reached the query would start a fragment a client
			// following the suggestion does not send.
			p += "?" + strings.ReplaceAll(r.URL.RawQuery, "#", "%23")
		}
		e.Body.DidYouMean = p
		e.Body.Message = "No endpoint answers GET " + r.URL.Path + "; the path in did_you_mean is probably the one you want."
	} else {
		e.Body.DidYouMean = json.RawMessage("null")
	}
	return e
}

// suggester corrects paths against the routes this server serves.
func (s *Server) suggester() suggest.Paths {
	return suggest.Paths{Games: s.deps.Games, Routed: s.routed, Endpoints: s.docs, CardGame: s.cardGame}
}

// cardGame is the game whose catalogue has a card of the 64-hex id.
func (s *Server) cardGame(id string) (string, bool) {
	snap := s.deps.View()
	if snap == nil {
		return "", false
	}
	for _, gs := range snap.Games() {
		if _, found := gs.LookupCard(id); found {
			return gs.Game().Code, true
		}
	}
	return "", false
}
