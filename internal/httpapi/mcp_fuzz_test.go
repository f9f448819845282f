package httpapi

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/mcpserver"
)

// FuzzMCPBody POSTs any body to /mcp with an Ultra key, in process: never
// a 5xx; an answer is JSON; an error is the API's {error, message} or a
// JSON-RPC error {code, message}; no answer shows Go's innards (the JSON
// decoder's text, Go type names) (checkMCPAnswer).
func FuzzMCPBody(f *testing.F) {
	goku := catalog.TCGCardID("dbs", 535600)
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}`,
		mcpserver.ListTools,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_sets","arguments":{"game":"dbs"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_card","arguments":{"game":"dbs","id":"` + goku + `"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"search_cards","arguments":{"game":"mtg","q":"' OR 1=1--","page":-1}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"get_set_cards","arguments":{"game":"dbs","set":"../../etc","limit":99999999999999999999}}}`,
		`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"top_cards","arguments":{"game":"xx","metric":"growth","source":"tcg"}}}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"nope","arguments":null}}`,
		`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"trending_sets","arguments":{"game":"dbs","limit":"5"}}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"tools/list"},{"jsonrpc":"2.0","method":"notifications/initialized"}]`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`, `{}`, `null`, ``, `{"jsonrpc":"2.0","id":{},"method":1}`,
		`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"get_card","arguments":{"game":"dbs","id":"` + strings.Repeat("a", 70000) + `"}}}`,
	} {
		f.Add([]byte(s))
	}
	h := mustServer(f, Config{}, paidDeps(mustView(f, mustFixture(f))))
	f.Fuzz(func(t *testing.T, body []byte) {
		r := httptest.NewRequest(http.MethodPost, mcpPath, bytes.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		r.Header.Set("X-API-Key", keyUltra)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		checkMCPAnswer(t, fmt.Sprintf("POST /mcp %.200q", body), w.Code, w.Header(), w.Body.Bytes())
	})
}
