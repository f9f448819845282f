package httpapi

import (
	"net/http"

	"github.com/cardcat/cardcat/internal/analytics"
)

// GET /{game}/sets/{set}/statistics?variant=normal|foil (paid): price
// statistics and rarity breakdown of the set's cards.
func (s *Server) handleStatistics(code string) keyedHandler {
	return func(r *http.Request) (reply, error) {
		variant, err := analytics.ParseStatistics(queryOf(r))
		if err != nil {
			return reply{}, paidParameter(err)
		}
		return s.paidSetAnswer(r, code, func(paid *analytics.Game, setID string) analytics.Answer {
			return paid.Statistics(setID, variant)
		})
	}
}
