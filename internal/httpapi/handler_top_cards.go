package httpapi

import (
	"fmt"
	"net/http"

	"github.com/cardcat/cardcat/internal/analytics"
)

// GET /{game}/analytics/top-cards?metric=price|growth&source=tcg|cm&limit=N
// (paid): the most expensive or the fastest-growing cards.
func (s *Server) handleTopCards(code string) keyedHandler {
	return func(r *http.Request) (reply, error) {
		metric, source, limit, err := analytics.ParseTopCards(queryOf(r))
		if err != nil {
			return reply{}, paidParameter(err)
		}
		_, paid, err := s.paidGame(code)
		if err != nil {
			return reply{}, err
		}
		a := paid.TopCards(metric, source, limit)
		if a.Body == nil {
			return reply{}, fmt.Errorf("httpapi: no top-cards list for metric %q, source %q", metric, source)
		}
		return paidReply(a), nil
	}
}
