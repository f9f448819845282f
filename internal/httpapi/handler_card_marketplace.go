package httpapi

import (
	"net/http"
	"strconv"

	"github.com/cardcat/cardcat/internal/catalog"
)

// GET /{game}/cards/tcgplayer/{productId}: the card of a TCGplayer product,
// the same pre-rendered body as its card detail.
func (s *Server) handleCardByTCGplayer(code string) keyedHandler {
	return s.cardByProduct(code, "productId", "tcgplayer", "TCGplayer", (*catalog.GameSnapshot).LookupTCGProduct)
}

// GET /{game}/cards/cardmarket/{idProduct}: the card of a Cardmarket
// product, linked or Cardmarket-only, answered with its canonical id.
func (s *Server) handleCardByCardmarket(code string) keyedHandler {
	return s.cardByProduct(code, "idProduct", "cardmarket", "Cardmarket", (*catalog.GameSnapshot).LookupCMProduct)
}

func (s *Server) cardByProduct(code, param, segment, market string,
	lookup func(*catalog.GameSnapshot, int64) (catalog.CardRef, bool)) keyedHandler {
	return func(r *http.Request) (reply, error) {
		raw := pathValue(r, param)
		n, ok := productNumber(raw)
		if !ok {
			return reply{}, newError(http.StatusBadRequest, errInvalidParameter,
				"The parameter "+param+" must be a "+market+" "+param+": a whole number from 1 to 9223372036854775807, digits only (no sign, no leading zero); got "+strconv.Quote(raw)+".")
		}
		v, g, err := s.gameSnapshot(code)
		if err != nil {
			return reply{}, err
		}
		if ref, ok := lookup(g, n); ok {
			return cardReply(g, ref), nil
		}
		// Product numbers are the marketplace's, not per game: the caller
		// may have asked under the wrong game.
		for _, other := range v.Games() {
			if other == g {
				continue
			}
			if _, ok := lookup(other, n); ok {
				oc := other.Game().Code
				e := newError(http.StatusNotFound, errCardNotFound,
					market+" product "+raw+" is a card of the game "+oc+"; ask for it at "+s.gamePrefix(oc)+"/cards/"+segment+"/.")
				e.Body.DidYouMean = s.gamePrefix(oc) + "/cards/" + segment + "/" + raw
				return reply{}, e
			}
		}
		return reply{}, newError(http.StatusNotFound, errCardNotFound, "No card of the game "+code+" is "+market+" product "+raw+".")
	}
}

// productNumber parses a marketplace product number strictly: [1-9][0-9]*
// within int64. "007", "+7", "7.0" and "1e3" are refused rather than read
// as some other number's card.
func productNumber(s string) (int64, bool) {
	if s == "" || s[0] < '1' || s[0] > '9' {
		return 0, false
	}
	for i := 1; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}
