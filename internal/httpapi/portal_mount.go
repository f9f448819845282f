package httpapi

import (
	"net/http"
	"strings"
)

// portalPrefix is where the account portal lives (Deps.Portal).
const portalPrefix = "/account"

// withPortal hands every request under /account/ to the portal, before the
// API's key, method and rate-limit steps: its pages need a session, not a
// key, use POST for their forms and are never counted (DECISIONS.md). They
// keep the request id and the access log; the API's CORS headers are
// dropped, since the portal's pages and forms are for its own site only.
func (s *Server) withPortal(next http.Handler) http.Handler {
	portal := s.deps.Portal
	if portal == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := r.URL.Path; p == portalPrefix || strings.HasPrefix(p, portalPrefix+"/") {
			stateOf(r.Context()).route = routePortal
			h := w.Header()
			delete(h, "Access-Control-Allow-Origin")
			delete(h, "Access-Control-Expose-Headers")
			portal.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}
