package httpapi

import (
	"net/http"

	"github.com/cardcat/cardcat/internal/analytics"
)

// GET /{game}/prices/{set}?source=both|tcg|cm (paid): the prices of every
// product of the set, one row per finish.
func (s *Server) handlePrices(code string) apiHandler {
	return func(w http.ResponseWriter, r *http.Request) error {
		source, err := analytics.ParsePricesBySet(r.URL.Query())
		if err != nil {
			return paidParameter(err)
		}
		return s.paidSetAnswer(w, r, code, func(paid *analytics.Game, setID string) []byte {
			return paid.PricesBySet(setID, source)
		})
	}
}
