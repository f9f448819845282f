package httpapi

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cardcat/cardcat/internal/apiref"
	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/mcpserver"
)

// mcpServer is a live server (on 127.0.0.1:0) with the rate-limit tests'
// accounts, limiter and clock: keyA1 is Free without a trial, keyB Ultra,
// keySmall a paid account of 3 requests an hour.
type mcpServer struct {
	*limited
	url string
}

func newMCPServer(t *testing.T) *mcpServer {
	t.Helper()
	l := newLimited(t, Config{}, func(d *Deps) { d.History = historyStore(t) })
	ts := httptest.NewServer(l.h)
	t.Cleanup(ts.Close)
	return &mcpServer{limited: l, url: ts.URL}
}

// rest sends a GET to the live server with key.
func (m *mcpServer) rest(t *testing.T, target, key string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, m.url+target, nil)
	if key != "" {
		req.Header.Set("X-API-Key", key)
	}
	return send(t, req)
}

func send(t *testing.T, req *http.Request) (*http.Response, string) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

// keyHeader adds the API key to every request of the MCP client.
type keyHeader struct {
	name, value string
}

func (k keyHeader) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(k.name, k.value)
	return http.DefaultTransport.RoundTrip(r)
}

// connect opens an MCP client session (the Go SDK's client) sending key in
// the header name.
func (m *mcpServer) connect(t *testing.T, name, key string) (*mcp.ClientSession, error) {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "cardcat-test", Version: "1"}, nil)
	transport := &mcp.StreamableClientTransport{Endpoint: m.url + mcpPath,
		HTTPClient: &http.Client{Transport: keyHeader{name, key}}, MaxRetries: -1}
	cs, err := client.Connect(context.Background(), transport, nil)
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

func (m *mcpServer) mustConnect(t *testing.T, key string) *mcp.ClientSession {
	t.Helper()
	cs, err := m.connect(t, "X-API-Key", key)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// post sends body to /mcp with key (none when "") as MCP clients send a
// message; headers (name, value pairs) replace the usual ones.
func (m *mcpServer) post(t *testing.T, key, body string, headers ...string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, m.url+mcpPath, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if key != "" {
		req.Header.Set("X-API-Key", key)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return send(t, req)
}

// rpcAnswer is a JSON-RPC error answer as a client reads it.
type rpcAnswer struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// goInnards matches what the server must not tell a caller of /mcp: the
// text of Go's JSON decoder and Go's names of types.
var goInnards = regexp.MustCompile(`json: |[Uu]nmarshal|Go (struct|value)|interface \{\}|map\[|\bmcp\.[A-Za-z]|jsonrpc2\.`)

// checkMCPAnswer checks an answer of POST /mcp to any body: no 5xx; a body
// is JSON; an error is the API's {error, message} or a JSON-RPC error with
// a code and a message; nothing in it shows Go's innards.
func checkMCPAnswer(tb testing.TB, desc string, status int, h http.Header, body []byte) {
	tb.Helper()
	if status >= 500 {
		tb.Errorf("%s: %d %.300s", desc, status, body)
		return
	}
	if goInnards.Match(body) {
		tb.Errorf("%s: %d, the answer shows Go's innards: %.500s", desc, status, body)
	}
	if len(body) == 0 {
		return
	}
	var answer struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if !strings.HasPrefix(h.Get("Content-Type"), "application/json") || json.Unmarshal(body, &answer) != nil {
		tb.Errorf("%s: %d %q, not a JSON object: %.300s", desc, status, h.Get("Content-Type"), body)
		return
	}
	var apiError string
	var rpcError struct {
		Code    *int   `json:"code"`
		Message string `json:"message"`
	}
	switch {
	case answer.Error == nil:
		if status >= 400 {
			tb.Errorf("%s: %d without an error: %.300s", desc, status, body)
		}
	case json.Unmarshal(answer.Error, &apiError) == nil:
		if apiError == "" || answer.Message == "" {
			tb.Errorf("%s: %d, an API error without its error and message: %.300s", desc, status, body)
		}
	case json.Unmarshal(answer.Error, &rpcError) == nil:
		if rpcError.Code == nil || rpcError.Message == "" {
			tb.Errorf("%s: %d, a JSON-RPC error without its code and message: %.300s", desc, status, body)
		}
	default:
		tb.Errorf("%s: %d, an error that is neither the API's nor JSON-RPC's: %.300s", desc, status, body)
	}
}

// call calls a tool and returns its result's text (a result has one text).
func call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (*mcp.CallToolResult, string) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("%s: %d contents, want 1 text", tool, len(res.Content))
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("%s: content %T, want text", tool, res.Content[0])
	}
	return res, text.Text
}

// TestMCPTools: the tools, each with its route's parameters as its input
// schema and its operation as its description.
func TestMCPTools(t *testing.T) {
	m := newMCPServer(t)
	cs := m.mustConnect(t, keyA1)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	want := []string{"completion_value", "get_card", "get_card_by_cardmarket_product", "get_card_by_tcgplayer_product", "get_cards",
		"get_set_cards", "list_sets", "price_history", "search_cards", "set_statistics", "top_cards", "trending_sets"}
	slices.Sort(names)
	if diff := cmp.Diff(want, names); diff != "" {
		t.Fatalf("tools (-want +got):\n%s", diff)
	}

	s := mustTestServer(t)
	for _, tool := range res.Tools {
		label := mcpserver.Tools[slices.IndexFunc(mcpserver.Tools, func(x struct{ Name, Label string }) bool { return x.Name == tool.Name })].Label
		rt := s.table[s.routeIndex(label)]
		if !strings.HasPrefix(tool.Description, rt.Op.Summary+".") || !strings.Contains(tool.Description, "GET "+rt.Path) ||
			rt.Paid() != strings.Contains(tool.Description, "Paid:") || tool.Annotations == nil || !tool.Annotations.ReadOnlyHint {
			t.Errorf("%s: description %q, annotations %+v; want the operation's summary, the route, Paid: when paid, read-only", tool.Name, tool.Description, tool.Annotations)
		}
		// The schema is the route's parameters: compare it with the table,
		// through JSON as a client sees both.
		wantSchema := map[string]any{"type": "object", "properties": map[string]any{
			"game": map[string]any{"type": "string", "enum": []any{"dbs", "mtg", "pkm", "op"}, "description": "The game: " + apiref.GameNames(s.deps.Games) + "."}}}
		required := []any{"game"}
		for _, p := range rt.Op.Params {
			if p.In == "header" || p.NotForTools {
				continue
			}
			var prop map[string]any
			b, _ := json.Marshal(p.Schema)
			json.Unmarshal(b, &prop)
			prop["description"] = p.Description
			wantSchema["properties"].(map[string]any)[p.Name] = prop
			if p.Required {
				required = append(required, p.Name)
			}
		}
		wantSchema["required"] = required
		if diff := cmp.Diff(wantSchema, tool.InputSchema); diff != "" {
			t.Errorf("%s: input schema (-want +got):\n%s", tool.Name, diff)
		}
	}
}

// TestMCPSameAnswer: a tool answers the route's body byte for byte, as text
// and as structured content; the call takes one request from the caller's
// pool, and the protocol's own requests none.
func TestMCPSameAnswer(t *testing.T) {
	m := newMCPServer(t)
	goku := catalog.TCGCardID("dbs", 535600)

	cs := m.mustConnect(t, keyB)
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if hour, _ := m.usedBy(t, "acct:2"); hour != 0 {
		t.Fatalf("initialize and tools/list used %d requests of the pool, want 0", hour)
	}

	resp, want := m.rest(t, "/dbs/cards/"+goku, keyB)
	before, _ := strconv.Atoi(resp.Header.Get("X-RateLimit-Remaining-Hour"))
	res, got := call(t, cs, "get_card", map[string]any{"game": "dbs", "id": goku})
	if resp.StatusCode != 200 || got != want || res.IsError {
		t.Fatalf("get_card: error %v, text\n%s\nwant GET /dbs/cards/%s's body\n%s", res.IsError, got, goku, want)
	}
	structured, _ := json.Marshal(res.StructuredContent)
	if !jsonEqual(t, structured, []byte(want)) {
		t.Errorf("get_card: structured content %s, want the body", structured)
	}
	meta := res.Meta["cardcat/headers"].(map[string]any)
	if res.Meta["cardcat/status"] != float64(200) || meta["X-RateLimit-Remaining-Hour"] != strconv.Itoa(before-1) {
		t.Errorf("get_card: _meta %v, want status 200 and %d requests left", res.Meta, before-1)
	}
	resp, _ = m.rest(t, "/dbs/cards/"+goku, keyB)
	if after := resp.Header.Get("X-RateLimit-Remaining-Hour"); after != strconv.Itoa(before-2) {
		t.Errorf("remaining after a tool call and a REST call: %s, want %d (the tool call counted once)", after, before-2)
	}

	// Every tool, against its route: same status, same body.
	_, sets := m.rest(t, "/dbs/sets", keyB)
	var list struct {
		Data []struct {
			SetID string `json:"set_id"`
		}
	}
	json.Unmarshal([]byte(sets), &list)
	setID := list.Data[0].SetID
	for _, tt := range []struct {
		tool   string
		args   map[string]any
		target string
	}{
		{"search_cards", map[string]any{"game": "dbs", "q": "goku", "limit": 2}, "/dbs/search?q=goku&limit=2"},
		{"search_cards", map[string]any{"game": "dbs", "q": "x"}, "/dbs/search?q=x"},
		{"list_sets", map[string]any{"game": "mtg"}, "/mtg/sets"},
		{"get_set_cards", map[string]any{"game": "dbs", "set": setID, "page": 1, "limit": 5.0}, "/dbs/sets/" + setID + "?limit=5&page=1"},
		{"get_set_cards", map[string]any{"game": "dbs", "set": "awakened pulse"}, "/dbs/sets/awakened%20pulse"},
		{"get_set_cards", map[string]any{"game": "dbs", "set": "FB01", "limit": 0}, "/dbs/sets/FB01?limit=0"},
		{"get_card", map[string]any{"game": "mtg", "id": goku}, "/mtg/cards/" + goku},
		{"set_statistics", map[string]any{"game": "dbs", "set": setID, "variant": "foil"}, "/dbs/sets/" + setID + "/statistics?variant=foil"},
		{"completion_value", map[string]any{"game": "dbs", "set": "99999"}, "/dbs/sets/99999/completion-value"},
		{"top_cards", map[string]any{"game": "mtg", "metric": "growth"}, "/mtg/analytics/top-cards?metric=growth"},
		{"trending_sets", map[string]any{"game": "dbs", "limit": 3}, "/dbs/sets/trending?limit=3"},
		{"get_cards", map[string]any{"game": "dbs", "ids": catalog.CMCardID("dbs", 13, 700050) + "," + goku + ",dbs_0000000000000000"},
			"/dbs/cards?ids=" + catalog.CMCardID("dbs", 13, 700050) + "," + goku + ",dbs_0000000000000000"},
		{"get_cards", map[string]any{"game": "dbs"}, "/dbs/cards"},
		{"get_card_by_tcgplayer_product", map[string]any{"game": "dbs", "productId": 535600}, "/dbs/cards/tcgplayer/535600"},
		{"get_card_by_tcgplayer_product", map[string]any{"game": "dbs", "productId": "0535600"}, "/dbs/cards/tcgplayer/0535600"},
		{"get_card_by_cardmarket_product", map[string]any{"game": "mtg", "idProduct": 780900.0}, "/mtg/cards/cardmarket/780900"},
		{"get_card_by_cardmarket_product", map[string]any{"game": "mtg", "idProduct": 700001}, "/mtg/cards/cardmarket/700001"},
		{"price_history", map[string]any{"game": "dbs", "id": goku, "source": "cm", "days": 365}, "/dbs/cards/" + goku + "/history?source=cm&days=365"},
		// format is not a tool argument: the tool answers JSON.
		{"price_history", map[string]any{"game": "dbs", "id": goku, "days": 2, "format": "csv"}, "/dbs/cards/" + goku + "/history?days=2"},
		{"price_history", map[string]any{"game": "dbs", "id": goku, "days": 0}, "/dbs/cards/" + goku + "/history?days=0"},
	} {
		resp, want := m.rest(t, tt.target, keyB)
		res, got := call(t, cs, tt.tool, tt.args)
		if got != want || res.IsError != (resp.StatusCode != 200) || res.Meta["cardcat/status"] != float64(resp.StatusCode) {
			t.Errorf("%s %v: error %v, status %v, text\n%.300s\nwant GET %s: %d\n%.300s", tt.tool, tt.args, res.IsError, res.Meta["cardcat/status"], got, tt.target, resp.StatusCode, want)
		}
	}
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	return cmp.Equal(x, y)
}

// TestMCPErrors: a paid tool for a Free key is the route's 403; an exhausted
// pool the route's 429, with when to retry; arguments that make no request
// are refused without counting.
func TestMCPErrors(t *testing.T) {
	m := newMCPServer(t)

	free := m.mustConnect(t, keyA1)
	_, want := m.rest(t, "/dbs/sets/trending", keyA1)
	res, got := call(t, free, "trending_sets", map[string]any{"game": "dbs"})
	if !res.IsError || got != want || !strings.Contains(got, `"error":"Plan upgrade required"`) || !strings.Contains(got, `"redeem_url"`) {
		t.Errorf("trending_sets with a Free key: error %v\n%s\nwant the route's 403\n%s", res.IsError, got, want)
	}

	small := m.mustConnect(t, keySmall)
	for i := range 3 {
		if res, got := call(t, small, "list_sets", map[string]any{"game": "dbs"}); res.IsError {
			t.Fatalf("call %d of 3: %s", i+1, got)
		}
	}
	res, got = call(t, small, "list_sets", map[string]any{"game": "dbs"})
	resp, want := m.rest(t, "/dbs/sets", keySmall)
	meta, _ := res.Meta["cardcat/headers"].(map[string]any)
	if !res.IsError || got != want || resp.StatusCode != 429 || !strings.Contains(got, `"limits":{"hourly":{"limit":3,"used":3,"remaining":0}`) ||
		meta["Retry-After"] != resp.Header.Get("Retry-After") || res.Meta["cardcat/status"] != float64(429) {
		t.Errorf("fourth call of 3 an hour: error %v, _meta %v\n%s\nwant the route's 429 (Retry-After %s)\n%s", res.IsError, res.Meta, got, resp.Header.Get("Retry-After"), want)
	}
	// Still connected: the protocol is not counted, so tools/list works.
	if _, err := small.ListTools(context.Background(), nil); err != nil {
		t.Errorf("tools/list with the pool exhausted: %v", err)
	}

	used, _ := m.usedBy(t, "acct:1")
	for _, tt := range []struct {
		tool string
		args map[string]any
		msg  string
	}{
		{"get_card", map[string]any{"game": "dbs"}, "The argument id is required"},
		{"get_card", map[string]any{"game": "dbs", "id": ""}, "The argument id is required"},
		{"list_sets", nil, "The argument game is required, one of: dbs, mtg, pkm, op."},
		{"list_sets", map[string]any{"game": "pokemon"}, "The argument game is required, one of: dbs, mtg, pkm, op."},
		{"search_cards", map[string]any{"game": "dbs", "q": []string{"goku"}}, "The argument q must be a string or a number"},
	} {
		res, got := call(t, free, tt.tool, tt.args)
		var body errorBody
		json.Unmarshal([]byte(got), &body)
		if !res.IsError || body.Error != errInvalidParameter || !strings.HasPrefix(body.Message, tt.msg) {
			t.Errorf("%s %v: error %v, %s; want Invalid parameter: %s", tt.tool, tt.args, res.IsError, got, tt.msg)
		}
	}
	if now, _ := m.usedBy(t, "acct:1"); now != used {
		t.Errorf("refused arguments used %d requests, want none", now-used)
	}
}

// TestMCPKeyAndMethods: /mcp needs the key (the API's 401, counted in the
// guard bucket); with one, it answers POST and, uncounted, 405 to the rest;
// the REST routes stay GET-only.
func TestMCPKeyAndMethods(t *testing.T) {
	m := newMCPServer(t)
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}`
	post := func(key, body string) (*http.Response, string) {
		req, _ := http.NewRequest(http.MethodPost, m.url+mcpPath, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		return send(t, req)
	}

	resp, body := post("", initialize)
	if resp.StatusCode != 401 || resp.Header.Get("WWW-Authenticate") != `Bearer realm="cardcat"` ||
		!strings.HasPrefix(body, `{"error":"API key required","message":"This endpoint needs an API key`) ||
		resp.Header.Get("X-RateLimit-Limit-Hour") != strconv.Itoa(DefaultGuardPerHour) ||
		resp.Header.Get("X-RateLimit-Remaining-Hour") != strconv.Itoa(DefaultGuardPerHour-1) {
		t.Errorf("POST /mcp without a key: %d %v\n%s\nwant the 401, counted in the guard bucket", resp.StatusCode, resp.Header, body)
	}
	if resp, body := post("pk_test_unknown0000000000000000000000000", initialize); resp.StatusCode != 401 || !strings.HasPrefix(body, `{"error":"Invalid API key"`) {
		t.Errorf("POST /mcp with an unknown key: %d %s", resp.StatusCode, body)
	}
	// The 401's example is a POST of the protocol, which works with a key.
	var unauthorized errorBody
	json.Unmarshal([]byte(body), &unauthorized)
	if !strings.Contains(unauthorized.Example, `-d '`+mcpserver.ListTools+`' "https://api.cardcat.test/mcp"`) {
		t.Errorf("the 401's example: %s", unauthorized.Example)
	}
	if resp, body := post(keyA1, mcpserver.ListTools); resp.StatusCode != 200 || !strings.Contains(body, `"name":"get_card"`) {
		t.Errorf("the example's request with a key: %d %.200s", resp.StatusCode, body)
	}
	if _, err := m.connect(t, "X-API-Key", ""); err == nil || !strings.Contains(err.Error(), "Unauthorized") {
		t.Errorf("the Go client without a key: %v, want a 401", err)
	}

	resp, body = post(keyA1, initialize)
	if resp.StatusCode != 200 || !strings.Contains(body, `"serverInfo":{"name":"cardcat"`) || resp.Header.Get("X-RateLimit-Remaining-Hour") != "100" {
		t.Errorf("initialize with a Bearer key: %d (remaining %s)\n%s", resp.StatusCode, resp.Header.Get("X-RateLimit-Remaining-Hour"), body)
	}
	// Stateless: a tool call needs no initialize before it.
	resp, body = post(keyA1, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_sets","arguments":{"game":"dbs"}}}`)
	if resp.StatusCode != 200 || !strings.Contains(body, `"structuredContent":{"success":true`) {
		t.Errorf("tools/call alone: %d\n%.300s", resp.StatusCode, body)
	}

	for _, method := range []string{http.MethodGet, http.MethodDelete, http.MethodPut, http.MethodHead} {
		req, _ := http.NewRequest(method, m.url+mcpPath+"/", nil)
		req.Header.Set("X-API-Key", keyA1)
		resp, body := send(t, req)
		if resp.StatusCode != 405 || resp.Header.Get("Allow") != "POST" || (method != http.MethodHead && !strings.HasPrefix(body, `{"error":"Method not allowed"`)) {
			t.Errorf("%s /mcp/: %d Allow %q\n%s\nwant 405, POST only", method, resp.StatusCode, resp.Header.Get("Allow"), body)
		}
	}
	if hour, _ := m.usedBy(t, "acct:1"); hour != 1 {
		t.Errorf("the account used %d requests; want 1, the tool call", hour)
	}

	req, _ := http.NewRequest(http.MethodOptions, m.url+mcpPath, nil)
	req.Header.Set("Origin", "https://agent.example")
	req.Header.Set("Access-Control-Request-Method", "POST")
	if resp, _ := send(t, req); resp.StatusCode != 204 || resp.Header.Get("Access-Control-Allow-Methods") != "POST" ||
		!strings.Contains(resp.Header.Get("Access-Control-Allow-Headers"), "Mcp-Protocol-Version") {
		t.Errorf("preflight of /mcp: %d %v", resp.StatusCode, resp.Header)
	}
	req, _ = http.NewRequest(http.MethodPost, m.url+"/dbs/sets", strings.NewReader("{}"))
	req.Header.Set("X-API-Key", keyA1)
	if resp, _ := send(t, req); resp.StatusCode != 405 || resp.Header.Get("Allow") != "GET" {
		t.Errorf("POST /dbs/sets: %d Allow %q, want 405 GET", resp.StatusCode, resp.Header.Get("Allow"))
	}
}

// BenchmarkMCPToolCall: one get_card call through POST /mcp against the
// same GET of the route, in process.
func BenchmarkMCPToolCall(b *testing.B) {
	h := mustServer(b, Config{}, testDeps(mustView(b, mustFixture(b))))
	goku := catalog.TCGCardID("dbs", 535600)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_card","arguments":{"game":"dbs","id":"` + goku + `"}}}`
	b.Run("mcp", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			r := httptest.NewRequest(http.MethodPost, mcpPath, strings.NewReader(body))
			r.Header.Set("X-API-Key", testKey)
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set("Accept", "application/json, text/event-stream")
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != 200 {
				b.Fatal(w.Code, w.Body)
			}
		}
	})
	b.Run("rest", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			r := httptest.NewRequest(http.MethodGet, "/dbs/cards/"+goku, nil)
			r.Header.Set("X-API-Key", testKey)
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != 200 {
				b.Fatal(w.Code)
			}
		}
	})
}

// TestMCPRefusalsAreJSON: what the HTTP layer of the protocol refuses
// before reading a message (its media type, its Accept, its protocol
// version, its size) is the API's JSON error, not the SDK's plain text, and
// is not counted. (A body that is no message the server takes is a
// JSON-RPC error: TestMCPProtocolErrors.)
func TestMCPRefusalsAreJSON(t *testing.T) {
	m := newMCPServer(t)
	for _, tt := range []struct {
		name, contentType, accept, version, body string
		status                                   int
		error                                    string
	}{
		{"another media type", "text/plain", "", "", mcpserver.ListTools, http.StatusUnsupportedMediaType, errUnsupportedMedia},
		{"an Accept without text/event-stream", "application/json", "application/json", "", mcpserver.ListTools, http.StatusBadRequest, errInvalidMCPRequest},
		{"a protocol version the server does not speak", "application/json", "", "1999-01-01", mcpserver.ListTools, http.StatusBadRequest, errInvalidMCPRequest},
		{"too large", "application/json", "", "", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", mcpserver.MaxBody) + `"}}`,
			http.StatusRequestEntityTooLarge, errRequestTooLarge},
	} {
		req, _ := http.NewRequest(http.MethodPost, m.url+mcpPath, strings.NewReader(tt.body))
		req.Header.Set("X-API-Key", keyB)
		req.Header.Set("Content-Type", tt.contentType)
		req.Header.Set("Accept", "application/json, text/event-stream")
		if tt.accept != "" {
			req.Header.Set("Accept", tt.accept)
		}
		if tt.version != "" {
			req.Header.Set("MCP-Protocol-Version", tt.version)
		}
		resp, body := send(t, req)
		var e errorBody
		if err := json.Unmarshal([]byte(body), &e); err != nil || resp.StatusCode != tt.status || e.Error != tt.error || e.Message == "" ||
			!strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
			t.Errorf("%s: %d %q %s, want %d with error %q", tt.name, resp.StatusCode, resp.Header.Get("Content-Type"), body, tt.status, tt.error)
		}
	}
	if _, body := m.rest(t, "/dbs/sets", keyB); !strings.Contains(body, `"success"`) {
		t.Fatalf("REST after the refusals: %s", body)
	}
	if resp, _ := m.rest(t, "/dbs/sets", keyB); resp.Header.Get("X-RateLimit-Remaining-Hour") != "6998" {
		t.Errorf("after 4 refusals and 2 REST requests: remaining %s, want 6998 (refusals not counted)", resp.Header.Get("X-RateLimit-Remaining-Hour"))
	}
}

// TestMCPProtocolErrors: a body that is no message this server takes is
// refused in the protocol's own words: a JSON-RPC 2.0 error whose message
// starts with the code's name (Parse error, Invalid Request, Method not
// found, Invalid params) and says what is wrong, naming the field; never
// the Go decoder's text. A refused request keeps its id and is answered 200
// (a JSON-RPC answer); a body without a valid id (not JSON, a batch, a
// notification) is the POST's 400. None is counted.
func TestMCPProtocolErrors(t *testing.T) {
	m := newMCPServer(t)
	const parse, invalid, notFound, params = -32700, -32600, -32601, -32602
	call := func(params string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":` + params + `}`
	}
	initialize := func(params string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"initialize","params":` + params + `}`
	}
	for _, tt := range []struct {
		name, body string
		status     int
		code       int
		id         string // as JSON
		msg        string // the message, or its start when it ends with "..."
	}{
		{"not JSON", "garbage", 400, parse, "null",
			"Parse error: the body is not JSON (at byte 1); send one JSON-RPC 2.0 message, a JSON object."},
		{"cut short", `{"jsonrpc":"2.0","id":1,"method":"tools/list"`, 400, parse, "null", "Parse error: the body is not JSON..."},
		{"two messages", `{"jsonrpc":"2.0","id":1,"method":"ping"} {"jsonrpc":"2.0","id":2,"method":"ping"}`, 400, parse, "null",
			"Parse error: the body is not JSON..."},
		{"empty", "", 400, parse, "null", "Parse error: the body is empty; send one JSON-RPC 2.0 message, a JSON object."},
		{"a batch", `[` + mcpserver.ListTools + `,{"jsonrpc":"2.0","method":"notifications/initialized"}]`, 400, invalid, "null",
			"Invalid Request: batches (a JSON array of messages) are not accepted: send one JSON-RPC message per POST."},
		{"an empty batch", `[]`, 400, invalid, "null", "Invalid Request: batches (a JSON array of messages) are not accepted..."},
		{"a number", `1`, 400, invalid, "null", "Invalid Request: the body must be one JSON-RPC 2.0 message, a JSON object, not the number 1."},
		{"null", `null`, 400, invalid, "null", "Invalid Request: the body must be one JSON-RPC 2.0 message, a JSON object, not null."},
		{"no jsonrpc", `{"id":1,"method":"ping"}`, 400, invalid, "1", `Invalid Request: the field jsonrpc must be "2.0".`},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":"a","method":"ping"}`, 400, invalid, `"a"`, `Invalid Request: the field jsonrpc must be "2.0".`},
		{"an object as id", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, 400, invalid, "null",
			"Invalid Request: the field id must be a string or an integer (of at most 2^53), not an object."},
		{"a fraction as id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, 400, invalid, "null",
			"Invalid Request: the field id must be a string or an integer (of at most 2^53), not the number 1.5."},
		{"null as id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, 400, invalid, "null", "Invalid Request: the field id must be ..."},
		{"a number as method", `{"jsonrpc":"2.0","id":1,"method":1}`, 400, invalid, "1",
			"Invalid Request: the field method must be a string, not the number 1."},
		{"no method", `{"jsonrpc":"2.0","id":1}`, 400, invalid, "1", "Invalid Request: the field method is missing."},
		{"a request without an id", `{"jsonrpc":"2.0","method":"tools/list"}`, 400, invalid, "null",
			"Invalid Request: tools/list is a request: send it with an id (a string or an integer)."},
		{"a notification with an id", `{"jsonrpc":"2.0","id":3,"method":"notifications/initialized"}`, 400, invalid, "3",
			"Invalid Request: notifications/initialized is a notification: send it without an id."},
		{"nested too deep", call(`{"name":"list_sets","arguments":{"game":"dbs","x":` + strings.Repeat("[", 200) + strings.Repeat("]", 200) + `}}`),
			400, invalid, "null", "Invalid Request: the message nests objects and arrays more than 100 levels deep."},

		{"an unknown method", `{"jsonrpc":"2.0","id":1,"method":"nope"}`, 200, notFound, "1",
			`Method not found: this server has no method "nope"; it answers initialize, ping, tools/list, tools/call, ...`},
		{"an unknown notification", `{"jsonrpc":"2.0","method":"notifications/nope"}`, 400, notFound, "null",
			`Method not found: this server has no method "notifications/nope"...`},
		{"a method of the protocol with nothing to serve", `{"jsonrpc":"2.0","id":"r","method":"resources/read","params":{"uri":"file:///etc/passwd"}}`,
			200, notFound, `"r"`, `Method not found: this server has no method "resources/read"...`},

		{"params a string", call(`"x"`), 200, params, "1", "Invalid params: params must be an object, not a string."},
		{"no params", `{"jsonrpc":"2.0","id":1,"method":"tools/call"}`, 200, params, "1", "Invalid params: params is required for tools/call: an object."},
		{"a number as tool name", call(`{"name":1}`), 200, params, "1", "Invalid params: params.name must be a string, not the number 1."},
		{"no tool name", call(`{"arguments":{"game":"dbs"}}`), 200, params, "1",
			"Invalid params: params.name is required: the name of the tool to call (tools/list lists them)."},
		{"an unknown tool", call(`{"name":"get_bulk","arguments":{"game":"dbs"}}`), 200, params, "1",
			`Invalid params: params.name: no tool is named "get_bulk"; tools/list lists them.`},
		{"arguments an array", call(`{"name":"list_sets","arguments":[1]}`), 200, params, "1",
			"Invalid params: params.arguments must be an object, not an array."},
		{"_meta a number", call(`{"name":"list_sets","arguments":{"game":"dbs"},"_meta":5}`), 200, params, "1",
			"Invalid params: params._meta must be an object, not the number 5."},
		{"cursor a number", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":5}}`, 200, params, "1",
			"Invalid params: params.cursor must be a string, not the number 5."},
		{"ping's params a number", `{"jsonrpc":"2.0","id":1,"method":"ping","params":5}`, 200, params, "1",
			"Invalid params: params must be an object, not the number 5."},
		{"protocolVersion a number", initialize(`{"protocolVersion":5}`), 200, params, "1",
			"Invalid params: params.protocolVersion must be a string, not the number 5."},
		{"initialize's params an array", initialize(`[]`), 200, params, "1", "Invalid params: params must be an object, not an array."},
		{"a capability a number", initialize(`{"protocolVersion":"2025-06-18","capabilities":{"roots":5},"clientInfo":{"name":"x","version":"1"}}`),
			200, params, "1", "Invalid params: params.capabilities.roots must be an object, not the number 5."},
		{"clientInfo a number", initialize(`{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":5}`), 200, params, "1",
			"Invalid params: params.clientInfo must be an object, not the number 5."},
		{"an icon's size a number", initialize(`{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1","icons":[{"src":"a","sizes":[1]}]}}`),
			200, params, "1", "Invalid params: params.clientInfo.icons[0].sizes[0] must be a string, not the number 1."},
		// A field the checks leave to the SDK (MCP's answers to a server's
		// requests for input, which this server never makes): the SDK's
		// refusal, in the protocol's words.
		{"an input response of another type", call(`{"name":"list_sets","arguments":{"game":"dbs"},"inputResponses":{"x":5}}`), 200, params, "1",
			`Invalid params: the params of "tools/call" do not have the types the protocol gives them.`},
		{"a notification's params a number", `{"jsonrpc":"2.0","method":"notifications/initialized","params":5}`, 400, params, "null",
			"Invalid params: params must be an object, not the number 5."},
		{"a progress past float64", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1e999}}`, 400, params, "null",
			"Invalid params: params.progress must be a number that a 64-bit float holds (at most 1.8e308)."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := m.post(t, keyB, tt.body)
			var a rpcAnswer
			if err := json.Unmarshal([]byte(body), &a); err != nil || a.Error == nil {
				t.Fatalf("%d %s: not a JSON-RPC error (%v)", resp.StatusCode, body, err)
			}
			prefix, open := strings.CutSuffix(tt.msg, "...")
			if resp.StatusCode != tt.status || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") || a.JSONRPC != "2.0" ||
				a.Error.Code != tt.code || string(a.ID) != tt.id || !strings.HasPrefix(a.Error.Message, prefix) || !open && a.Error.Message != tt.msg {
				t.Errorf("%d %q %s\nwant %d, code %d, id %s, message %q", resp.StatusCode, resp.Header.Get("Content-Type"), body, tt.status, tt.code, tt.id, tt.msg)
			}
			if goInnards.MatchString(body) {
				t.Errorf("the answer shows Go's innards: %s", body)
			}
		})
	}

	// What the checks let through is answered as before.
	if resp, body := m.post(t, keyB, `{"jsonrpc":"2.0","id":"p","method":"ping","params":{"_meta":{"progressToken":1}}}`); resp.StatusCode != 200 || body != `{"jsonrpc":"2.0","id":"p","result":{}}` {
		t.Errorf("ping: %d %s", resp.StatusCode, body)
	}
	if resp, body := m.post(t, keyB, `{"jsonrpc":"2.0","id":7,"result":{}}`); resp.StatusCode != http.StatusAccepted || body != "" {
		t.Errorf("a response: %d %s, want 202", resp.StatusCode, body)
	}
	if hour, _ := m.usedBy(t, "acct:2"); hour != 0 {
		t.Errorf("the refused messages used %d requests of the pool, want 0", hour)
	}
}
