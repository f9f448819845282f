package mcpserver

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/cardcat/cardcat/internal/apiref"
	"github.com/cardcat/cardcat/internal/game"
)

// testConfig is an endpoint over a small route table of the tools' routes,
// written as the REST API's table writes them.
func testConfig() Config {
	set := apiref.Param{Name: "set", In: "path", Required: true, Schema: apiref.ParamSchema{Type: "string"}}
	id := apiref.Param{Name: "id", In: "path", Required: true, Schema: apiref.ParamSchema{Type: "string"}}
	page := apiref.Param{Name: "page", In: "query", Schema: apiref.ParamSchema{Type: "integer"}}
	limit := apiref.LimitParam(50, 200, "cards")
	routes := []apiref.Route{
		{Label: "search", Path: "/{game}/search", Access: apiref.Keyed, Op: apiref.Operation{ID: "searchCards", Summary: "Search",
			Params: []apiref.Param{{Name: "q", In: "query", Required: true, Schema: apiref.ParamSchema{Type: "string"}}, page, limit}}},
		{Label: "card", Path: "/{game}/cards/{id}", Access: apiref.Keyed, Op: apiref.Operation{ID: "getCard", Summary: "A card", Params: []apiref.Param{id}}},
		{Label: "sets", Path: "/{game}/sets", Access: apiref.Keyed, Op: apiref.Operation{ID: "listSets", Summary: "The sets"}},
		{Label: "set_cards", Path: "/{game}/sets/{set}", Access: apiref.Keyed, Op: apiref.Operation{ID: "getSetCards", Summary: "A set's cards",
			Params: []apiref.Param{set, page, limit}}},
		{Label: "top_cards", Path: "/{game}/analytics/top-cards", Access: apiref.Paid, Op: apiref.Operation{ID: "getTopCards", Summary: "Top cards",
			Params: []apiref.Param{apiref.EnumParam("metric", "price", "What to rank by.", "price", "growth"),
				apiref.EnumParam("source", "tcg", "Which marketplace.", "tcg", "cm")}}},
	}
	for _, t := range Tools { // the other tools' routes, without parameters
		found := false
		for _, rt := range routes {
			found = found || rt.Label == t.Label
		}
		if !found {
			routes = append(routes, apiref.Route{Label: t.Label, Path: "/{game}/" + t.Label, Access: apiref.Keyed, Op: apiref.Operation{ID: t.Label, Summary: t.Name}})
		}
	}
	return Config{Routes: routes, Games: game.Default(), Version: "test", API: http.NotFoundHandler(),
		WriteError: func(http.ResponseWriter, *http.Request, int, string, string, map[string]string) {}}
}

// TestMCPTarget: tool arguments as the route's URL.
func TestMCPTarget(t *testing.T) {
	s := &endpoint{cfg: testConfig()}
	for _, tt := range []struct {
		label, args, want string
	}{
		{"card", `{"game":"dbs","id":"dbs_0123456789abcdef"}`, "/dbs/cards/dbs_0123456789abcdef"},
		{"set_cards", `{"game":"mtg","set":"a/b?c","page":2,"limit":1e1,"extra":{"x":1}}`, "/mtg/sets/a%2Fb%3Fc?limit=10&page=2"},
		{"search", `{"game":"dbs","q":"son goku","limit":2.5,"page":null}`, "/dbs/search?limit=2.5&q=son+goku"},
		{"top_cards", `{"game":"dbs","metric":"PRICE","source":true}`, "/dbs/analytics/top-cards?metric=PRICE&source=true"},
		{"sets", `{"game":"dbs"}`, "/dbs/sets"},
	} {
		got, err := s.mcpTarget(s.route(tt.label), json.RawMessage(tt.args))
		if err != nil || got != tt.want {
			t.Errorf("%s %s: %q, %v; want %q", tt.label, tt.args, got, err, tt.want)
		}
	}
	if _, err := s.mcpTarget(s.route("sets"), json.RawMessage(`[1]`)); err == nil {
		t.Error("arguments that are not an object: no error")
	}
}

// BenchmarkMCPStartup: what building POST /mcp adds to a server's start
// (the SDK's server, its tools and their schemas, the HTTP handler).
func BenchmarkMCPStartup(b *testing.B) {
	cfg := testConfig()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := New(cfg); err != nil {
			b.Fatal(err)
		}
	}
}
