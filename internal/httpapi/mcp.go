package httpapi

import (
	"net/http"

	"github.com/cardcat/cardcat/internal/mcpserver"
)

// POST /mcp, the API for AI agents (internal/mcpserver), is served beside
// the route table: its tools call the table's routes through the whole
// API, so each call is counted, checked and answered as the REST request.

const mcpPath = "/mcp"

// isMCPPath tells whether p is the MCP endpoint's path, which takes one
// trailing slash like every other.
func isMCPPath(p string) bool { return p == mcpPath || p == mcpPath+"/" }

// admitMCP is /mcp's admission (admission.go): a request with a valid key is
// not counted (its tool calls are, one by one) and shows its pool; any other
// is counted in the client's guard bucket, as a keyed route counts it,
// before its 401.
func (s *Server) admitMCP(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := stateOf(r.Context())
		if st.key == keyValid {
			s.limits.show(w, r, st)
			w.Header()["Cache-Control"] = s.keyedCacheControl
			next.ServeHTTP(w, r)
			return
		}
		if s.take(w, r) {
			s.writeError(w, r, s.keyRefused(r, st))
		}
	})
}

// mcpExample is the curl line of /mcp's 401: a POST of the protocol.
func (s *Server) mcpExample() string {
	return `curl -H "X-API-Key: pk_live_YOUR_32_CHARACTER_API_KEY" -H "Content-Type: application/json" ` +
		`-H "Accept: application/json, text/event-stream" -d '` + mcpserver.ListTools + `' "` + s.deps.PublicURL + mcpPath + `"`
}

func (s *Server) routeIndex(label string) int {
	for i := range s.table {
		if s.table[i].Label == label {
			return i
		}
	}
	return -1
}
