package httpapi

import (
	"net/http"

	"github.com/cardcat/cardcat/internal/metrics"
)

// Requests are counted by route number (Deps.Metrics): the index of the
// route's label in Server.routeLabels, kept in the request's state, so that
// a request finds its series without reading or hashing its path. The
// numbers below are what is not a route of the table; numbered gives each
// mux pattern its own. So the label set is fixed when the server is built,
// whatever paths callers send.
const (
	routeUnmatched        = iota // no route: the 404 of an unknown or non-canonical path
	routeMethodNotAllowed        // the 405 of withGETOnly, before routing
	routePreflight               // a CORS preflight, answered before routing
)

var fixedRoutes = [...]metrics.Route{
	routeUnmatched:        {Template: "unmatched"},
	routeMethodNotAllowed: {Template: "method_not_allowed"},
	routePreflight:        {Template: "preflight"},
}

// numbered gives the requests that reach h the route number of template
// and game (a route table's path, a mux pattern's path) in the metrics.
func (s *Server) numbered(template, game string, h http.Handler) http.Handler {
	n := len(s.routeLabels)
	s.routeLabels = append(s.routeLabels, metrics.Route{Template: template, Game: game})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if st := stateOf(r.Context()); st != nil {
			st.route = n
		}
		h.ServeHTTP(w, r)
	})
}
