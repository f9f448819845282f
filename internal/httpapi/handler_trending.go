package httpapi

import (
	"net/http"

	"github.com/cardcat/cardcat/internal/analytics"
)

// GET /{game}/sets/trending?period=7d&limit=N (paid): the sets whose
// Cardmarket prices moved most. Registered beside /{game}/sets/{set}, which
// it wins as the more specific pattern: a set whose code is "trending" is
// reached by its set_id.
func (s *Server) handleTrending(code string) keyedHandler {
	return func(r *http.Request) (reply, error) {
		limit, err := analytics.ParseTrending(queryOf(r))
		if err != nil {
			return reply{}, paidParameter(err)
		}
		_, paid, err := s.paidGame(code)
		if err != nil {
			return reply{}, err
		}
		return paidReply(paid.Trending(limit)), nil
	}
}
