// Package mcpserver is POST /mcp, the API for AI agents, as MCP tools
// (Model Context Protocol, streamable HTTP transport, official Go SDK). A
// tool is one GET route of the REST API's route table: its input schema is
// made from the route's parameters, its description from the route's
// operation, and a call is answered by a GET of the route's URL sent through
// the whole API (Config.API), with the caller's key. So a tool answers byte
// for byte what the route answers, under the same key, rate limit and plan
// rules, and each call takes one request from the caller's pool, as the REST
// request would; the answer's body is the tool's result (an error result for
// any status but 200).
//
// The protocol's own requests (initialize, tools/list, notifications) need
// the key but are not counted: they are plumbing, not API requests. Without
// a valid key, /mcp answers the API's 401 and counts in the client's guard
// bucket like any keyless request (the API's admission, before New's
// handler).
//
// Stateless mode: no session is kept between POSTs, so no GET stream and no
// DELETE (405). Every tool call is one request-response; nothing the server
// would push needs a session.
package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cardcat/cardcat/internal/apiref"
	"github.com/cardcat/cardcat/internal/web"
)

// Tools are the tools, each with the label of the route it calls. The
// bulk files (bulk, bulk_file) are left out on purpose: a download of
// megabytes of gzip is no tool answer, and a listing of links an assistant
// cannot follow is of no use to it.
var Tools = []struct{ Name, Label string }{
	{"search_cards", "search"},
	{"get_card", "card"},
	{"get_cards", "cards"},
	{"get_card_by_tcgplayer_product", "card_by_tcgplayer"},
	{"get_card_by_cardmarket_product", "card_by_cardmarket"},
	{"list_sets", "sets"},
	{"get_set_cards", "set_cards"},
	{"set_statistics", "set_statistics"},
	{"completion_value", "set_completion_value"},
	{"top_cards", "top_cards"},
	{"trending_sets", "trending_sets"},
	{"price_history", "card_history"},
}

// MaxBody bounds a POST's JSON-RPC body: a tool call's arguments are a few
// short strings and numbers.
const MaxBody = 64 << 10

// mcpRequestKey carries the /mcp request to the tool handlers: in stateless
// mode the SDK serves each POST on a connection of its own whose context is
// the request's, so a call knows whose key to send (and the request's id).
type mcpRequestKey struct{}

// mcpEndpoint is the handler of /mcp: the key (401, counted in the guard
// bucket without one), then the method (POST only), then the SDK.
func (s *endpoint) handler() http.Handler {
	server := mcp.NewServer(&mcp.Implementation{Name: "cardcat", Title: "cardcat API", Version: s.cfg.Version},
		&mcp.ServerOptions{Instructions: s.mcpInstructions(), Logger: s.cfg.Log})
	for _, t := range Tools {
		rt := s.route(t.Label)
		server.AddTool(s.mcpTool(t.Name, rt), s.mcpCall(rt))
	}
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{
		Stateless:    true,
		JSONResponse: true, // one JSON answer per POST: nothing to stream
		Logger:       s.cfg.Log,
		// The SDK refuses a loopback connection whose Host is not loopback,
		// against DNS rebinding of keyless local servers. Every request here
		// needs a key, which a browser never adds by itself, and a server
		// behind a reverse proxy on the same machine receives exactly such
		// connections.
		DisableLocalhostProtection: true,
		MaxRequestBodyBytes:        MaxBody,
	})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			e := newError(http.StatusMethodNotAllowed, apiref.ErrMethodNotAllowed,
				"The MCP endpoint answers POST only (streamable HTTP, stateless: no GET stream, no session to DELETE); "+r.Method+" is not allowed.")
			e.header = map[string]string{"Allow": http.MethodPost}
			s.writeError(w, r, e)
			return
		}
		ew := &mcpErrorWriter{ResponseWriter: w, log: s.cfg.Log, requestID: s.cfg.RequestID, r: r}
		if mediaType(r.Header.Get("Content-Type")) == "application/json" { // any other is the SDK's 415
			method, refusal := s.readMCPMessage(w, r)
			if refusal != nil {
				refusal.answer(s, w, r)
				return
			}
			ew.method = method
		}
		sdk.ServeHTTP(ew, r.WithContext(context.WithValue(r.Context(), mcpRequestKey{}, r)))
		if ew.status != 0 {
			s.writeError(w, r, mcpRefusal(ew.status, ew.text))
		}
	})
	return h
}

// mcpBodyRefusal is a POST's body refused: an API error (too large, not
// read) or a JSON-RPC error (not a message this server takes).
type mcpBodyRefusal struct {
	api *apiError
	rpc *rpcRefusal
}

func (e *mcpBodyRefusal) answer(s *endpoint, w http.ResponseWriter, r *http.Request) {
	if e.api != nil {
		s.writeError(w, r, e.api)
		return
	}
	writeRPCRefusal(w, e.rpc)
}

// readMCPMessage reads a POST's body, checks it (checkMCPMessage) and puts
// it back for the SDK; it returns the message's method.
func (s *endpoint) readMCPMessage(w http.ResponseWriter, r *http.Request) (string, *mcpBodyRefusal) {
	var body []byte
	if r.Body != nil {
		var err error
		body, err = io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
		var tooLarge *http.MaxBytesError
		switch {
		case errors.As(err, &tooLarge):
			return "", &mcpBodyRefusal{api: mcpRefusal(http.StatusRequestEntityTooLarge, nil)}
		case err != nil:
			return "", &mcpBodyRefusal{api: newError(http.StatusBadRequest, apiref.ErrInvalidMCPRequest,
				"The body could not be read: send one JSON-RPC 2.0 message with its Content-Length.")}
		}
	}
	method, refusal := checkMCPMessage(body)
	if refusal != nil {
		return "", &mcpBodyRefusal{rpc: refusal}
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return method, nil
}

// mcpErrorWriter holds back the SDK's plain-text refusals (a header it
// refuses: Accept, MCP-Protocol-Version, Content-Type), so that /mcp
// answers them as JSON errors like every other answer of the API; JSON
// answers pass through, but for a JSON-RPC error in the SDK's decoder's
// words (sdkDecoderText), whose message is replaced.
type mcpErrorWriter struct {
	http.ResponseWriter
	status int    // a refusal held back
	text   []byte // its plain text

	log       *slog.Logger
	requestID func(context.Context) string
	r         *http.Request
	method    string // of the message (checkMCPMessage)
	wrote     bool
}

func (w *mcpErrorWriter) WriteHeader(code int) {
	if code >= 400 && !strings.HasPrefix(w.Header().Get("Content-Type"), "application/json") {
		w.status = code
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *mcpErrorWriter) Write(b []byte) (int, error) {
	if w.status != 0 {
		if len(w.text) < 512 {
			w.text = append(w.text, b...)
		}
		return len(b), nil
	}
	if !w.wrote {
		w.wrote = true
		if plain := w.plainRPCError(b); plain != nil {
			if _, err := w.ResponseWriter.Write(plain); err != nil {
				return 0, err
			}
			return len(b), nil
		}
	}
	return w.ResponseWriter.Write(b)
}

// plainRPCError is the answer b, the SDK's whole JSON answer, with the
// message of its JSON-RPC error in the protocol's words when the SDK wrote
// it in its decoder's; nil for any other answer. checkMCPMessage refuses
// what the SDK's decoder would, field by field: one that reaches here is a
// field it does not know, logged so that it learns it.
func (w *mcpErrorWriter) plainRPCError(b []byte) []byte {
	if len(b) > 4<<10 || !bytes.Contains(b, []byte(`"error"`)) {
		return nil
	}
	var resp struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *rpcErrorObject `json:"error"`
	}
	if json.Unmarshal(b, &resp) != nil || resp.Error == nil || !sdkDecoderText(resp.Error.Message) {
		return nil
	}
	w.log.LogAttrs(w.r.Context(), slog.LevelWarn, "an MCP message the JSON-RPC checks passed and the SDK refused",
		slog.String("request_id", w.requestID(w.r.Context())), slog.String("method", w.method), slog.String("error", resp.Error.Message))
	resp.Error.Message = rpcPhrase(resp.Error.Code) + ": the params of " + strconv.Quote(w.method) +
		" do not have the types the protocol gives them."
	if resp.ID == nil {
		resp.ID = json.RawMessage("null")
	}
	plain, err := json.Marshal(resp)
	if err != nil {
		return nil
	}
	return plain
}

// sdkDecoderText reports whether a message of the SDK is its JSON
// decoder's text, which names Go types.
func sdkDecoderText(msg string) bool {
	for _, mark := range []string{"json: ", "unmarshal", "Go struct", "Go value", "interface {}", "mcp."} {
		if strings.Contains(msg, mark) {
			return true
		}
	}
	return false
}

func (w *mcpErrorWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// mcpRefusal is the API's error for a refusal of the protocol layer.
func mcpRefusal(status int, text []byte) *apiError {
	why := strings.TrimSpace(string(text))
	if len(why) > 200 {
		why = why[:200]
	}
	switch status {
	case http.StatusRequestEntityTooLarge:
		return newError(status, apiref.ErrRequestTooLarge, "The body is over "+strconv.Itoa(MaxBody>>10)+" KiB: send one JSON-RPC message of MCP.")
	case http.StatusUnsupportedMediaType:
		return newError(status, apiref.ErrUnsupportedMedia, "Send the message with Content-Type: application/json.")
	}
	msg := "This is not an MCP request this endpoint accepts: one JSON-RPC 2.0 message, with Content-Type: application/json and Accept: application/json, text/event-stream."
	if why != "" {
		msg += " The protocol layer says: " + why
	}
	return newError(status, apiref.ErrInvalidMCPRequest, msg)
}

// ListTools is the body of the example request of /mcp's 401: a
// tools/list, which needs no initialize before it in stateless mode.
const ListTools = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`

func (s *endpoint) mcpInstructions() string {
	return "cardcat: trading-card catalogues with TCGplayer (USD) and Cardmarket (EUR) prices, for " + apiref.GameNames(s.cfg.Games) + ". " +
		"Each tool answers exactly the JSON of the REST endpoint its description names. Each tool call counts as one request " +
		"against the rate limit of the key's account (X-RateLimit-* of the call are in the result's _meta); listing tools does not. " +
		"A failed call is an error result carrying the API's error body, {error, message, ...}: its message says what to do. " +
		"Set tools take a set_id (unique) or a set_code; a code several sets share answers a disambiguation listing their set_ids. " +
		"Tools marked paid need the Ultra or Business plan or an active 7-day trial" + apiref.ProGamesNote(s.cfg.Games) + "."
}

// mcpTool is the tool of route rt.
func (s *endpoint) mcpTool(name string, rt *apiref.Route) *mcp.Tool {
	desc := []string{rt.Op.Summary + "."}
	if rt.Op.Description != "" {
		desc = append(desc, rt.Op.Description)
	}
	if rt.Paid() {
		desc = append(desc, "Paid: needs the Ultra or Business plan or an active 7-day trial"+apiref.ProGamesNote(s.cfg.Games)+"; otherwise the error `Plan upgrade required` (with redeem_url or upgrade_url).")
	}
	desc = append(desc, "Answers the JSON of GET "+rt.Path+"; counts as one request.")
	return &mcp.Tool{
		Name:        name,
		Title:       rt.Op.Summary,
		Description: strings.Join(desc, " "),
		InputSchema: s.mcpInputSchema(rt),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: apiref.Ptr(false)},
	}
}

// mcpSchema is a tool's input schema: an object of the route's path and
// query parameters, {game} first.
type mcpSchema struct {
	Type       string                 `json:"type"`
	Properties map[string]mcpProperty `json:"properties"`
	Required   []string               `json:"required,omitempty"`
}

type mcpProperty struct {
	Description string `json:"description,omitempty"`
	apiref.ParamSchema
}

func (s *endpoint) mcpInputSchema(rt *apiref.Route) *mcpSchema {
	sc := &mcpSchema{Type: "object", Properties: map[string]mcpProperty{}}
	if rt.PerGame() {
		var codes []string
		for _, g := range s.cfg.Games.All() {
			codes = append(codes, g.Code)
		}
		sc.Properties["game"] = mcpProperty{Description: "The game: " + apiref.GameNames(s.cfg.Games) + ".",
			ParamSchema: apiref.ParamSchema{Type: "string", Enum: codes}}
		sc.Required = append(sc.Required, "game")
	}
	for _, p := range rt.Op.Params {
		if p.In != "path" && p.In != "query" || p.NotForTools {
			continue
		}
		sc.Properties[p.Name] = mcpProperty{Description: p.Description, ParamSchema: p.Schema}
		if p.Required {
			sc.Required = append(sc.Required, p.Name)
		}
	}
	return sc
}

// mcpCall is the handler of route rt's tool: its arguments become the
// route's URL, which is served by the whole API for the /mcp request's
// caller.
func (s *endpoint) mcpCall(rt *apiref.Route) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		outer, _ := ctx.Value(mcpRequestKey{}).(*http.Request)
		if outer == nil {
			return nil, errors.New("mcpserver: an MCP tool call outside a request to /mcp")
		}
		target, err := s.mcpTarget(rt, req.Params.Arguments)
		if err != nil {
			var ae *apiError
			if !errors.As(err, &ae) {
				return nil, err
			}
			return mcpResult(ae.status, nil, ae.body()), nil
		}
		w := s.serveInternal(ctx, outer, target)
		return mcpResult(w.status, w.header, w.body.Bytes()), nil
	}
}

// mcpTarget is the URL of route rt for a tool's arguments: path parameters
// in the path, escaped; the others in the query. The route checks the values
// itself, as it checks a REST request's, so the answers are the same; only
// arguments that make no URL are refused here (not counted: nothing was
// asked of the API).
func (s *endpoint) mcpTarget(rt *apiref.Route, raw json.RawMessage) (string, error) {
	var args map[string]json.RawMessage
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &args); err != nil {
			return "", newError(http.StatusBadRequest, apiref.ErrInvalidParameter, "The arguments must be a JSON object.")
		}
	}
	path := rt.Path
	if rt.PerGame() {
		game, ok, err := mcpArg(args, "game")
		if err != nil {
			return "", err
		}
		if _, known := s.cfg.Games.Get(game); !ok || !known {
			var codes []string
			for _, g := range s.cfg.Games.All() {
				codes = append(codes, g.Code)
			}
			return "", newError(http.StatusBadRequest, apiref.ErrInvalidParameter,
				"The argument game is required, one of: "+strings.Join(codes, ", ")+".")
		}
		g, _ := s.cfg.Games.Get(game)
		path = g.PathPrefix() + strings.TrimPrefix(path, "/{game}")
	}
	query := url.Values{}
	for _, p := range rt.Op.Params {
		if p.NotForTools {
			continue // not in the tool's schema: an argument of that name is ignored
		}
		v, ok, err := mcpArg(args, p.Name)
		if err != nil {
			return "", err
		}
		switch p.In {
		case "path":
			if !ok || v == "" {
				return "", newError(http.StatusBadRequest, apiref.ErrInvalidParameter, "The argument "+p.Name+" is required: "+p.Description)
			}
			path = strings.Replace(path, "{"+p.Name+"}", url.PathEscape(v), 1)
		case "query":
			if ok {
				query.Set(p.Name, v)
			}
		}
	}
	if len(query) > 0 {
		path += "?" + query.Encode()
	}
	return path, nil
}

// mcpArg is the argument name as its text in a URL: a string as it is, a
// number as written (an integral one without fraction or exponent), true or
// false; absent or null is not ok.
func mcpArg(args map[string]json.RawMessage, name string) (v string, ok bool, err error) {
	raw, found := args[name]
	if !found {
		return "", false, nil
	}
	var x any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&x); err != nil {
		return "", false, newError(http.StatusBadRequest, apiref.ErrInvalidParameter, "The argument "+name+" is not valid JSON.")
	}
	switch x := x.(type) {
	case nil:
		return "", false, nil
	case string:
		return x, true, nil
	case bool:
		return strconv.FormatBool(x), true, nil
	case json.Number:
		if f, err := x.Float64(); err == nil && f == float64(int64(f)) && strings.ContainsAny(x.String(), ".eE") {
			return strconv.FormatInt(int64(f), 10), true, nil
		}
		return x.String(), true, nil
	default:
		return "", false, newError(http.StatusBadRequest, apiref.ErrInvalidParameter,
			"The argument "+name+" must be a string or a number, not "+jsonType(raw)+".")
	}
}

// internalAnswer is the answer of a request served in process.
type internalAnswer struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (w *internalAnswer) Header() http.Header { return w.header }

func (w *internalAnswer) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}

func (w *internalAnswer) Write(b []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.body.Write(b)
}

func (w *internalAnswer) WriteString(s string) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.body.WriteString(s)
}

// serveInternal serves a GET of target through the whole API (request id,
// access log, key, count, plan, handler) for the caller of outer: the same
// key headers, client address and request id.
func (s *endpoint) serveInternal(ctx context.Context, outer *http.Request, target string) *internalAnswer {
	r, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		panic("mcpserver: an internal request to " + target + ": " + err.Error()) // the target is built from the route table
	}
	r.Host, r.RemoteAddr = outer.Host, outer.RemoteAddr
	for _, name := range []string{"X-Api-Key", "Authorization", "X-Forwarded-For"} {
		if v, ok := outer.Header[name]; ok {
			r.Header[name] = v
		}
	}
	if id := s.cfg.RequestID(outer.Context()); id != "" {
		r.Header["X-Request-Id"] = []string{id} // the tool call's access log line shares the /mcp request's id
	}
	w := &internalAnswer{header: http.Header{}}
	s.cfg.API.ServeHTTP(w, r)
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w
}

// mcpResultHeaders are the headers of a route's answer a tool result's
// _meta repeats: the caller's pool after the call, and when to retry.
// Each is its canonical key and the name the documentation gives it.
var mcpResultHeaders = [][2]string{
	{apiref.HeaderLimitHour, "X-RateLimit-Limit-Hour"}, {apiref.HeaderRemainingHour, "X-RateLimit-Remaining-Hour"},
	{apiref.HeaderLimitDay, "X-RateLimit-Limit-Day"}, {apiref.HeaderRemainingDay, "X-RateLimit-Remaining-Day"},
	{apiref.HeaderRetryAfter, "Retry-After"},
}

// mcpResult is the tool result of a route's answer: its body as text and as
// structured content (every answer of a tool's route is a JSON object); any
// status but 200 is an error result. _meta gives the status and the headers
// a caller paces itself by.
func mcpResult(status int, header http.Header, body []byte) *mcp.CallToolResult {
	res := &mcp.CallToolResult{
		Content: []mcp.Content{&mcp.TextContent{Text: string(body)}},
		IsError: status != http.StatusOK,
		Meta:    mcp.Meta{"cardcat/status": status},
	}
	if len(body) > 0 && body[0] == '{' { // JSON, as every answer of a tool's route
		res.StructuredContent = json.RawMessage(body)
	}
	headers := map[string]string{}
	for _, h := range mcpResultHeaders {
		if v := web.FirstValue(header, h[0]); v != "" {
			headers[h[1]] = v
		}
	}
	if len(headers) > 0 {
		res.Meta["cardcat/headers"] = headers
	}
	return res
}
