package httpapi

import (
	"net/http"

	"github.com/cardcat/cardcat/internal/analytics"
)

// GET /{game}/prices/{set}?source=both|tcg|cm (paid): the prices of every
// product of the set, one row per finish.
func (s *Server) handlePrices(code string) keyedHandler {
	return func(r *http.Request) (reply, error) {
		source, err := analytics.ParsePricesBySet(queryOf(r))
		if err != nil {
			return reply{}, paidParameter(err)
		}
		return s.paidSetAnswer(r, code, func(paid *analytics.Game, setID string) analytics.Answer {
			return paid.PricesBySet(setID, source)
		})
	}
}
