package httpapi

import "net/http"

// compose returns the API's handler, its chain outermost first: the
// request (id, CORS and the headers every answer has, access log), panic
// recovery, the caller's identity (auth.go), the method check (405, CORS
// preflight), the path check, then the router (router.go). The account portal is mounted
// beside it, with a chain of its own (cmd/cardcat's mount.go, web.Surface).
func (s *Server) compose() http.Handler {
	return chain(s.mux, s.withRequest, s.withRecover, s.withIdentity, s.withGETOnly, s.withPathCheck)
}
