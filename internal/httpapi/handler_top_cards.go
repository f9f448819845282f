package httpapi

import (
	"fmt"
	"net/http"

	"github.com/cardcat/cardcat/internal/analytics"
)

// GET /{game}/analytics/top-cards?metric=price|growth&source=tcg|cm&limit=N
// (paid): the most expensive or the fastest-growing cards.
func (s *Server) handleTopCards(code string) apiHandler {
	return func(w http.ResponseWriter, r *http.Request) error {
		metric, source, limit, err := analytics.ParseTopCards(r.URL.Query())
		if err != nil {
			return paidParameter(err)
		}
		_, paid, err := s.paidGame(code)
		if err != nil {
			return err
		}
		body := paid.TopCards(metric, source, limit)
		if body == nil {
			return fmt.Errorf("httpapi: no top-cards list for metric %q, source %q", metric, source)
		}
		writeBody(w, http.StatusOK, body)
		return nil
	}
}
