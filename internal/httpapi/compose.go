package httpapi

import (
	"net/http"
	"strings"
)

// The server's handler is two surfaces side by side, each with the chain
// it needs, so that neither undoes the other's headers: the account portal
// under /account/ (Deps.Portal), and the API (with the docs site and /mcp
// on its mux) everywhere else.

// portalPrefix is where the account portal lives.
const portalPrefix = "/account"

// compose returns the server's handler. The API's chain, outermost first:
// the request (id, CORS and the headers every answer has, access log),
// panic recovery, the caller's identity (auth.go), the method check (405,
// CORS preflight), the path check, then the mux. The portal's: the request
// without CORS (its pages and forms are for its own site only), recovery,
// then the portal, which needs a session rather than a key, takes POST for
// its forms and is never counted (DECISIONS.md).
func (s *Server) compose() http.Handler {
	api := chain(s.mux, s.withRequest(true), s.withRecover, s.withIdentity, s.withGETOnly, s.withPathCheck)
	if s.deps.Portal == nil {
		return api
	}
	portal := chain(s.deps.Portal, s.withRequest(false), s.withRecover, s.numberedAs(routePortal))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := r.URL.Path; p == portalPrefix || strings.HasPrefix(p, portalPrefix+"/") {
			portal.ServeHTTP(w, r)
			return
		}
		api.ServeHTTP(w, r)
	})
}

// numberedAs gives the request a fixed route number (metrics.go).
func (s *Server) numberedAs(route int) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			stateOf(r.Context()).route = route
			next.ServeHTTP(w, r)
		})
	}
}
