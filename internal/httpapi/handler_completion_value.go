package httpapi

import (
	"net/http"

	"github.com/cardcat/cardcat/internal/analytics"
)

// GET /{game}/sets/{set}/completion-value (paid): the cost of one copy of
// every card of the set. It takes no parameter; any is ignored.
func (s *Server) handleCompletionValue(code string) keyedHandler {
	return func(r *http.Request) (reply, error) {
		return s.paidSetAnswer(r, code, func(paid *analytics.Game, setID string) analytics.Answer {
			return paid.CompletionValue(setID)
		})
	}
}
