package apiref

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/web"
	"github.com/cardcat/cardcat/samples"
)

// The OpenAPI document (GET /openapi.json) is made from three parts:
//
//   - the route table (routes.go): paths, operations, parameters, the
//     answers of each route and their error values;
//   - the answers and headers every route of an access level shares, the
//     security schemes and the {game} parameter (below): they belong to the
//     middleware, so they are written next to the code that knows them;
//   - the shapes of the bodies, openapi_schemas.json: JSON Schema written as
//     JSON, the one place a body's fields are described, read as it is by
//     anyone who knows JSON Schema. The game fields of card_info are added
//     from the game registry, and the examples from openapi_examples.json,
//     which a test writes from the sample's golden files.
//
// It is rendered once, in New, and served as bytes.

//go:embed openapi_schemas.json
var openapiSchemas []byte

//go:embed openapi_examples.json
var openapiExamples []byte

const openapiVersion = "3.1.0"

type openapiDoc struct {
	OpenAPI    string                     `json:"openapi"`
	Info       openapiInfo                `json:"info"`
	Servers    []openapiServer            `json:"servers"`
	Security   []map[string][]string      `json:"security"`
	Tags       []openapiTag               `json:"tags"`
	Paths      map[string]openapiPathItem `json:"paths"`
	Components openapiComponents          `json:"components"`
}

type openapiInfo struct {
	Title       string         `json:"title"`
	Version     string         `json:"version"`
	Summary     string         `json:"summary"`
	Description string         `json:"description"`
	Contact     map[string]any `json:"contact,omitempty"`
}

type openapiServer struct {
	URL         string `json:"url"`
	Description string `json:"description"`
}

type openapiTag struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

type openapiPathItem struct {
	Get  *openapiOperation `json:"get,omitempty"`
	Post *openapiOperation `json:"post,omitempty"` // POST /mcp only (mcp.go)
}

type openapiOperation struct {
	OperationID string                     `json:"operationId"`
	Tags        []string                   `json:"tags"`
	Summary     string                     `json:"summary"`
	Description string                     `json:"description"`
	Deprecated  bool                       `json:"deprecated,omitempty"` // Deprecated (deprecation.go)
	Security    json.RawMessage            `json:"security,omitempty"`   // [] on public routes
	Parameters  []any                      `json:"parameters,omitempty"`
	RequestBody json.RawMessage            `json:"requestBody,omitempty"` // POST /mcp's
	Responses   map[string]json.RawMessage `json:"responses"`
	Paid        bool                       `json:"x-paid,omitempty"`
	CodeSamples []samples.Sample           `json:"x-codeSamples,omitempty"` // codesamples.go
}

type openapiParam struct {
	Name        string      `json:"name"`
	In          string      `json:"in"`
	Description string      `json:"description"`
	Required    bool        `json:"required,omitempty"`
	Schema      ParamSchema `json:"schema"`
	Example     any         `json:"example,omitempty"` // the reference's "Test Request" starts with it
}

// paramExamples are the values of the path and required query parameters
// that the reference's "Test Request" starts with, so that it answers 200
// as it opens: by game (exampleGame for the document's /{game}/ paths, the
// base game for its own), then by parameter name. They are the bundled
// sample's, those its examples show (openapi_examples.json); httpapi's
// TestParamExamples sends every operation with them to the sample.
var paramExamples = map[string]map[string]any{
	"dbs": {"set": "FB01", "id": "dbs_3ef29751ae2b88a4", "ids": "dbs_3ef29751ae2b88a4",
		"productId": 629023, "idProduct": 624949, "q": "Ultimate Sparking", "name": "cards.jsonl.gz", "since": changesSince},
	"pkm": {"set": "BS", "id": "pkm_7dfccec2b4149d0f", "ids": "pkm_7dfccec2b4149d0f",
		"productId": 42346, "idProduct": 273696, "q": "Alakazam", "name": "cards.jsonl.gz", "since": changesSince},
}

// changesSince is the change feed's example since: a time after every
// change, whose answer is the feed's shape with nothing in it (a time before
// the server's first ingest would be the 400 of a history not kept).
const changesSince = "2099-01-01T00:00:00Z"

// exampleGame is the {game} of the examples of the /{game}/ paths.
const exampleGame = "dbs"

// openapi is the parameter as the document says it (NotForTools is the
// MCP tools' business).
func (p Param) openapi() openapiParam {
	return openapiParam{Name: p.Name, In: p.In, Description: p.Description, Required: p.Required, Schema: p.Schema}
}

type openapiResponse struct {
	Description string                  `json:"description"`
	Headers     map[string]openapiRef   `json:"headers,omitempty"`
	Content     map[string]openapiMedia `json:"content,omitempty"`
}

type openapiMedia struct {
	Schema   any                        `json:"schema,omitempty"`
	Examples map[string]json.RawMessage `json:"examples,omitempty"`
}

type openapiRef struct {
	Ref string `json:"$ref"`
}

type openapiHeader struct {
	Description string `json:"description"`
	Required    bool   `json:"required"`
	Schema      any    `json:"schema"`
}

type openapiComponents struct {
	Schemas         map[string]any             `json:"schemas"`
	Parameters      map[string]openapiParam    `json:"parameters"`
	Headers         map[string]openapiHeader   `json:"headers"`
	Responses       map[string]openapiResponse `json:"responses"`
	SecuritySchemes map[string]any             `json:"securitySchemes"`
}

// Headers of every answer, in the order they are listed.
var everyAnswerHeaders = []string{"X-Request-Id",
	"X-RateLimit-Limit-Hour", "X-RateLimit-Remaining-Hour", "X-RateLimit-Limit-Day", "X-RateLimit-Remaining-Day"}

// DocumentedHeaders are the names of the response headers the document
// describes (a page on another origin must be allowed to read each).
func DocumentedHeaders() []string {
	var names []string
	for name := range openapiHeaders() {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// openapiHeaders are the response headers the document names.
func openapiHeaders() map[string]openapiHeader {
	count := map[string]any{"type": "integer", "minimum": 0}
	return map[string]openapiHeader{
		"X-Request-Id": {Required: true, Schema: map[string]any{"type": "string", "pattern": `^[A-Za-z0-9._-]{1,64}$`},
			Description: "The request's id: the one sent in X-Request-Id when it is 1 to 64 characters of `A-Z a-z 0-9 . _ -`, else one the server makes up. Quote it when you report a problem."},
		"X-RateLimit-Limit-Hour": {Required: true, Schema: count,
			Description: "The pool's hourly limit: the account's with a valid key; the Free plan's on a public route without a key; the client address's guard bucket otherwise."},
		"X-RateLimit-Remaining-Hour": {Required: true, Schema: count, Description: "Requests left in this UTC hour, after this one."},
		"X-RateLimit-Limit-Day":      {Required: true, Schema: count, Description: "The pool's daily limit."},
		"X-RateLimit-Remaining-Day":  {Required: true, Schema: count, Description: "Requests left this UTC day, after this one."},
		"Retry-After": {Required: true, Schema: map[string]any{"type": "integer", "minimum": 1},
			Description: "Whole seconds to wait before retrying."},
		"WWW-Authenticate": {Required: true, Schema: map[string]any{"type": "string", "const": `Bearer realm="cardcat"`},
			Description: "The authentication scheme."},
		"Allow": {Required: true, Schema: map[string]any{"type": "string", "const": http.MethodGet},
			Description: "The one method the API answers."},
		"ETag": {Required: true, Schema: map[string]any{"type": "string"},
			Description: "The answer's strong entity tag, made from its bytes (the same on every server and after a restart): send it back in If-None-Match to get a 304, which is never counted, while the answer is unchanged. A compressed answer's is the uncompressed answer's with `-br`, `-zst` or `-gz` added: each coding is its own representation."},
		"Vary": {Required: true, Schema: map[string]any{"type": "string", "const": "Accept-Encoding"},
			Description: "The answer depends on Accept-Encoding (compressed or not): a shared cache keeps one copy per coding."},
		"Content-Encoding": {Schema: map[string]any{"type": "string", "enum": []string{"br", "zstd", "gzip"}},
			Description: "The body's compression, when the request's Accept-Encoding accepts br, zstd or gzip (q-values honoured; on a tie br, then zstd, then gzip for an answer that is the same for a catalogue version, zstd first for one made per request: search, batch lookup, change feed, price history) and the body is 1 KB or more; absent otherwise."},
		"Cache-Control": {Required: true, Schema: map[string]any{"type": "string"},
			Description: "How the answer may be cached: `no-store` for every error; `private, max-age=N` for a keyed route's answer (for your account only; N is at most the server's catalogue refresh interval; after it, revalidate with the ETag, free), or `private, no-cache` where the server has no refresh interval; `public, max-age=86400` for an image, `public, max-age=3600` for /openapi.json and /llms.txt, `no-cache` (revalidate with the ETag) for /docs."},
		"Last-Modified": {Required: true, Schema: map[string]any{"type": "string"},
			Description: "When the catalogue version the file holds was made."},
		"Accept-Ranges": {Required: true, Schema: map[string]any{"type": "string", "const": "bytes"},
			Description: "A download can be resumed with Range."},
		"Content-Disposition": {Schema: map[string]any{"type": "string"},
			Description: "The file name to save it as: `attachment; filename=\"{game}-{name}\"` for a bulk file (always sent); `attachment; filename=\"{id}_{source}_{days}d.csv\"` for a price history with `format=csv` (only then)."},
		"Content-Range": {Required: true, Schema: map[string]any{"type": "string"},
			Description: "The range answered (`bytes FIRST-LAST/SIZE`), or the file's size after a refused Range (`bytes */SIZE`)."},
		"X-Image-Size": {Required: true, Schema: map[string]any{"type": "string", "enum": []string{"unsized", "low", "high"}},
			Description: "The image's resolution: `unsized` where there is one only (set logos, the prefixed games' cards); the base game's cards `low` or `high`, as `size` asked."},
	}
}

// errorSchema is the error body with the given error values and fields.
func errorSchema(errs []string, required []string) map[string]any {
	refine := map[string]any{"properties": map[string]any{"error": map[string]any{"enum": errs}}}
	if len(required) > 0 {
		refine["required"] = required
	}
	return map[string]any{"allOf": []any{openapiRef{"#/components/schemas/Error"}, refine}}
}

// Answers every route of an access level gives, as components.responses.
const (
	RespUnauthorized       = "Unauthorized"
	RespPlanRequired       = "PlanRequired"
	RespTooManyRequests    = "TooManyRequests"
	RespInternalError      = "InternalError"
	RespServiceUnavailable = "ServiceUnavailable"
	RespEndpointNotFound   = "EndpointNotFound"
	RespMethodNotAllowed   = "MethodNotAllowed"
	RespNotModified        = "NotModified"
)

// ifNoneMatchParam is the If-None-Match parameter of every keyed route
// (httpapi's admission.go), components.parameters.IfNoneMatch.
var ifNoneMatchParam = Param{Name: "If-None-Match", In: "header",
	Description: "ETags of earlier answers of this request (a list, or `*`; W/ is ignored). When one is the ETag of the answer, the answer is a 304 without a body, which is never counted and is answered even when the rate limit is used up. It still needs a valid key.",
	Schema:      ParamSchema{Type: "string"}}

func (ref *Reference) openapiSharedResponses() map[string]openapiResponse {
	planRequired := errorSchema([]string{ErrPlanRequired}, nil)
	url := map[string]any{"type": "string", "format": "uri"}
	planRequired["oneOf"] = []any{
		map[string]any{"properties": map[string]any{"redeem_url": url}, "required": []string{"redeem_url"},
			"not": map[string]any{"properties": map[string]any{"upgrade_url": url}, "required": []string{"upgrade_url"}}},
		map[string]any{"properties": map[string]any{"upgrade_url": url}, "required": []string{"upgrade_url"},
			"not": map[string]any{"properties": map[string]any{"redeem_url": url}, "required": []string{"redeem_url"}}},
	}
	return map[string]openapiResponse{
		RespUnauthorized: ref.errorResponse(Answer{Status: http.StatusUnauthorized, Headers: []string{"WWW-Authenticate"},
			Errors: []string{ErrKeyRequired, ErrKeyInvalid}, Required: []string{"example"},
			Description: "No key, or a key that is malformed, unknown or revoked (the message tells which). `example` is a curl line for this request with the key header in place."}),
		RespPlanRequired: {Description: "A paid endpoint without the Ultra or Business plan or an active trial (or the Pro plan, for the games it covers). `redeem_url` when the account never started its 7-day trial, `upgrade_url` when it has ended. Decided after the key and the count, before anything else.",
			Headers: ref.answerHeaders(errorHeaders), Content: map[string]openapiMedia{"application/json": {Schema: planRequired}}},
		RespTooManyRequests: ref.errorResponse(Answer{Status: http.StatusTooManyRequests, Headers: []string{"Retry-After"},
			Errors: []string{ErrRateLimited}, Required: []string{"limits"},
			Description: "The account's hourly or daily limit, or the guard bucket of requests without a valid key, is used up. A 429 is never counted."}),
		RespInternalError: ref.errorResponse(Answer{Status: http.StatusInternalServerError, Errors: []string{ErrInternal},
			Description: "A fault on the server; the message gives the request id and nothing else."}),
		RespServiceUnavailable: ref.errorResponse(Answer{Status: http.StatusServiceUnavailable, Headers: []string{"Retry-After"},
			Errors: []string{ErrServiceUnavailable}, Description: "The server is still loading its catalogue (`Retry-After: 5`)."}),
		RespEndpointNotFound: ref.errorResponse(Answer{Status: http.StatusNotFound, Errors: []string{ErrEndpointNotFound}, Required: []string{"did_you_mean", "docs"},
			Description: "No endpoint has this path (any path the document does not list), answered before the key is checked. `did_you_mean` is the path you probably meant, or null."}),
		RespMethodNotAllowed: ref.errorResponse(Answer{Status: http.StatusMethodNotAllowed, Headers: []string{"Allow"}, Errors: []string{ErrMethodNotAllowed},
			Description: "Any method but GET, HEAD included, on any path (an OPTIONS CORS preflight is answered 204)."}),
		RespNotModified: {Description: "The answer has not changed since the ETag sent in If-None-Match: no body. Never counted, answered even when the rate limit is used up; the X-RateLimit-* headers show the pool as it stands.",
			Headers: ref.answerHeaders(notModifiedHeaders)},
	}
}

func (ref *Reference) answerHeaders(extra []string) map[string]openapiRef {
	h := map[string]openapiRef{}
	for _, name := range append(slices.Clone(everyAnswerHeaders), extra...) {
		h[name] = openapiRef{"#/components/headers/" + name}
	}
	return h
}

// errorHeaders are the headers every error answer has beyond everyAnswerHeaders
// (writeError), and keyedHeaders those of every keyed route's success
// (httpapi's sendReply; a route's own Cache-Control, an image's, replaces it).
var (
	errorHeaders = []string{"Cache-Control"}
	keyedHeaders = []string{"Cache-Control"}
	// keyedSuccessHeaders are those of a keyed route's 200 JSON answer
	// (httpapi's reply.go), and notModifiedHeaders those of its 304.
	keyedSuccessHeaders = []string{"ETag", "Cache-Control", "Vary", "Content-Encoding"}
	notModifiedHeaders  = []string{"ETag", "Cache-Control", "Vary"}
)

func (ref *Reference) errorResponse(a Answer) openapiResponse {
	return openapiResponse{Description: a.Description, Headers: ref.answerHeaders(append(slices.Clone(a.Headers), errorHeaders...)),
		Content: map[string]openapiMedia{"application/json": {Schema: errorSchema(a.Errors, a.Required)}}}
}

// sharedAnswers are the components.responses every route of rt's access gives.
func sharedAnswers(rt *Route) map[int]string {
	m := map[int]string{http.StatusInternalServerError: RespInternalError}
	if rt.Access == Public {
		return m
	}
	m[http.StatusNotModified] = RespNotModified
	m[http.StatusUnauthorized] = RespUnauthorized
	m[http.StatusTooManyRequests] = RespTooManyRequests
	m[http.StatusServiceUnavailable] = RespServiceUnavailable
	if rt.Access == Paid {
		m[http.StatusForbidden] = RespPlanRequired
	}
	return m
}

// examples are openapi_examples.json: operationId → status → name → Example Object.
type examples map[string]map[string]map[string]json.RawMessage

// OpenAPI renders the OpenAPI document of the reference (GET /openapi.json).
func OpenAPI(ref *Reference) ([]byte, error) {
	var schemas map[string]any
	if err := json.Unmarshal(openapiSchemas, &schemas); err != nil {
		return nil, fmt.Errorf("apiref: openapi_schemas.json: %w", err)
	}
	if err := ref.addGameFields(schemas); err != nil {
		return nil, err
	}
	var ex examples
	if err := json.Unmarshal(openapiExamples, &ex); err != nil {
		return nil, fmt.Errorf("apiref: openapi_examples.json: %w", err)
	}
	var games []string // the {game} of the prefixed paths
	for _, g := range ref.Games.All() {
		if !g.Base {
			games = append(games, g.Code)
		}
	}
	var gameExample any
	if g, ok := ref.Games.Get(exampleGame); ok && !g.Base {
		gameExample = exampleGame
	}
	server := ref.PublicURL
	if server == "" {
		server = "/"
	}
	doc := openapiDoc{
		OpenAPI: openapiVersion,
		Info: openapiInfo{
			Title: "cardcat API", Version: ref.Version,
			Summary:     "Trading-card catalogues and marketplace prices: " + GameNames(ref.Games) + ".",
			Description: ref.openapiDescription(),
		},
		Servers:  []openapiServer{{URL: server, Description: "This server"}},
		Security: []map[string][]string{{"ApiKeyAuth": {}}, {"BearerAuth": {}}},
		Tags: []openapiTag{
			{Name: TagService, Description: "Public routes: no key, never counted, never refused."},
			{Name: TagCatalogue, Description: "Sets, cards, search and images: every plan, with a key."},
			{Name: TagPaid, Description: "Paid endpoints: the Ultra or Business plan, or an active 7-day trial" + ProGamesNote(ref.Games) + "; otherwise 403 `Plan upgrade required`."},
			{Name: TagAlerts, Description: "Your account's price alerts, read with the key (every plan); they are managed in the account portal's Alerts and Webhooks pages."},
			{Name: tagAgents, Description: "The catalogue and paid endpoints as MCP tools, for AI agents (POST /mcp)."},
		},
		Paths: map[string]openapiPathItem{},
		Components: openapiComponents{
			Schemas: schemas,
			Parameters: map[string]openapiParam{"game": {Name: "game", In: "path", Required: true,
				Description: "The game: " + ref.prefixedGameNames() + ".", Schema: ParamSchema{Type: "string", Enum: games},
				Example: gameExample},
				"IfNoneMatch": ifNoneMatchParam.openapi()},
			Headers:   openapiHeaders(),
			Responses: ref.openapiSharedResponses(),
			SecuritySchemes: map[string]any{
				"ApiKeyAuth": map[string]any{"type": "apiKey", "in": "header", "name": "X-API-Key",
					"description": "`pk_live_` or `pk_test_` followed by 32 letters and digits. Read first."},
				"BearerAuth": map[string]any{"type": "http", "scheme": "bearer",
					"description": "The same key as `Authorization: Bearer <key>`, read when X-API-Key is absent."},
			},
		},
	}
	base, hasBase := ref.Games.Base()
	for i := range ref.Routes {
		rt := &ref.Routes[i]
		if rt.ServedPrefixed(ref.Games) {
			op, err := ref.openapiOperation(rt, ex[rt.Op.ID], nil)
			if err != nil {
				return nil, err
			}
			doc.Paths[rt.Path] = openapiPathItem{Get: op}
		}
		if hasBase && rt.PerGame() && rt.ServedFor(base) {
			// The base game's own path and operation: no {game}, its id
			// prefixed with the game's code (pkmListSets).
			id := base.Code + strings.ToUpper(rt.Op.ID[:1]) + rt.Op.ID[1:]
			op, err := ref.openapiOperation(rt, ex[id], &base)
			if err != nil {
				return nil, err
			}
			delete(ex, id)
			doc.Paths[rt.BasePath()] = openapiPathItem{Get: op}
		}
		delete(ex, rt.Op.ID)
	}
	for id := range ex {
		// A base game's operation (pkmGetCard) of a registry without that
		// base game is not stale: the examples are the default registry's.
		if i := strings.IndexFunc(id, func(r rune) bool { return r >= 'A' && r <= 'Z' }); i > 0 &&
			slices.ContainsFunc(ref.Routes, func(rt Route) bool { return strings.EqualFold(rt.Op.ID, id[i:]) }) {
			continue
		}
		return nil, fmt.Errorf("apiref: openapi_examples.json has examples of %s, which no route has", id)
	}
	// The MCP endpoint, registered beside the table (routes.go).
	mcpOp, err := ref.mcpOperation()
	if err != nil {
		return nil, err
	}
	mcpOp.CodeSamples = codeSamples(mcpOp.OperationID)
	doc.Paths[ref.MCP.Path] = openapiPathItem{Post: mcpOp}
	return json.Marshal(doc)
}

// addGameFields adds every game's own card_info fields to CardInfo.
func (ref *Reference) addGameFields(schemas map[string]any) error {
	ci, _ := schemas["CardInfo"].(map[string]any)
	props, _ := ci["properties"].(map[string]any)
	if props == nil {
		return fmt.Errorf("apiref: openapi_schemas.json: no CardInfo.properties")
	}
	games := map[string][]string{}
	list := map[string]bool{}
	var order []string
	for _, g := range ref.Games.All() {
		for _, f := range g.Extra {
			if _, ok := games[f.Key]; !ok {
				order = append(order, f.Key)
			}
			games[f.Key] = append(games[f.Key], g.Code)
			list[f.Key] = list[f.Key] || f.List
		}
	}
	for _, k := range order {
		if _, ok := props[k]; ok {
			return fmt.Errorf("apiref: the game field %s is a common field of CardInfo", k)
		}
		props[k] = map[string]any{"type": "string", "description": "Of " + strings.Join(games[k], ", ") + " cards that have it."}
		if list[k] {
			props[k] = map[string]any{"type": "array", "items": map[string]any{"type": "string"},
				"description": "Of " + strings.Join(games[k], ", ") + " cards that have it, in the card's order."}
		}
	}
	return nil
}

// GameNames names the games: "Dragon Ball Super (`dbs`), ...".
func GameNames(games *game.Registry) string {
	var names []string
	for _, g := range games.All() {
		names = append(names, g.Name+" (`"+g.Code+"`)")
	}
	return strings.Join(names, ", ")
}

// prefixedGameNames names the games served under a prefix, the {game} of
// the document's paths.
func (ref *Reference) prefixedGameNames() string {
	var names []string
	for _, g := range ref.Games.All() {
		if !g.Base {
			names = append(names, g.Name+" (`"+g.Code+"`)")
		}
	}
	return strings.Join(names, ", ")
}

// openapiOperation is the document's operation of rt: under /{game}/ when
// base is nil, else the base game's own, at the unprefixed path.
func (ref *Reference) openapiOperation(rt *Route, ex map[string]map[string]json.RawMessage, base *game.Game) (*openapiOperation, error) {
	o := rt.Op
	op := &openapiOperation{OperationID: o.ID, Tags: []string{o.Tag}, Summary: o.Summary, Paid: rt.Paid(),
		Deprecated: rt.Deprecation() != nil, Responses: map[string]json.RawMessage{}}
	if base != nil {
		op.OperationID = base.Code + strings.ToUpper(o.ID[:1]) + o.ID[1:]
		op.Summary = base.Name + ": " + strings.ToLower(o.Summary[:1]) + o.Summary[1:]
	}
	var desc []string
	switch rt.Access {
	case Public:
		desc = append(desc, "Public: no key needed; never counted.")
		op.Security = json.RawMessage("[]")
	case Paid:
		needs := "**Paid**: needs the Ultra or Business plan, or an active 7-day trial"
		if base != nil && base.ProPaid {
			needs = "**Paid**: needs the Pro, Ultra or Business plan, or an active 7-day trial"
		} else if base == nil && rt.PerGame() {
			needs += ProGamesNote(ref.Games)
		}
		desc = append(desc, needs+"; otherwise 403 `Plan upgrade required`. Counted like every keyed request.")
	default:
		desc = append(desc, "Needs a key (every plan); counted.")
	}
	if o.Description != "" {
		desc = append(desc, o.Description)
	}
	op.Description = strings.Join(desc, " ")
	if rt.PerGame() && base == nil {
		op.Parameters = append(op.Parameters, openapiRef{"#/components/parameters/game"})
	}
	ownINM := false
	var exampleOf map[string]any
	if base != nil {
		exampleOf = paramExamples[base.Code]
	} else if g, ok := ref.Games.Get(exampleGame); ok && !g.Base {
		exampleOf = paramExamples[exampleGame]
	}
	for _, p := range o.Params {
		param := p.openapi()
		if p.In == "path" || p.Required {
			param.Example = exampleOf[p.Name]
		}
		op.Parameters = append(op.Parameters, param)
		ownINM = ownINM || p.Name == ifNoneMatchParam.Name
	}
	if rt.Access != Public && !ownINM {
		op.Parameters = append(op.Parameters, openapiRef{"#/components/parameters/IfNoneMatch"})
	}
	add := func(status int, v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		op.Responses[strconv.Itoa(status)] = b
		return nil
	}
	own := map[int]bool{}
	for _, a := range o.Answers {
		own[a.Status] = true
		if a.Shared != "" {
			if err := add(a.Status, openapiRef{"#/components/responses/" + a.Shared}); err != nil {
				return nil, err
			}
			continue
		}
		if rt.Access != Public && a.Status/100 == 2 {
			extra := keyedHeaders
			if a.Media == "" { // a JSON Answer, tagged by writeBody
				extra = keyedSuccessHeaders
			}
			a.Headers = append(slices.Clone(a.Headers), extra...)
		}
		resp, err := ref.answerResponse(a, ex[strconv.Itoa(a.Status)])
		if err != nil {
			return nil, fmt.Errorf("apiref: %s %d: %w", o.ID, a.Status, err)
		}
		delete(ex, strconv.Itoa(a.Status))
		if err := add(a.Status, resp); err != nil {
			return nil, err
		}
	}
	for status := range ex {
		return nil, fmt.Errorf("apiref: openapi_examples.json has examples of %s %s, which it does not answer", o.ID, status)
	}
	for status, name := range sharedAnswers(rt) {
		if !own[status] {
			if err := add(status, openapiRef{"#/components/responses/" + name}); err != nil {
				return nil, err
			}
		}
	}
	op.CodeSamples = codeSamples(op.OperationID)
	return op, nil
}

func (ref *Reference) answerResponse(a Answer, ex map[string]json.RawMessage) (openapiResponse, error) {
	if len(a.Errors) > 0 {
		if len(ex) > 0 {
			return openapiResponse{}, fmt.Errorf("examples of an error answer")
		}
		return ref.errorResponse(a), nil
	}
	resp := openapiResponse{Description: a.Description, Headers: ref.answerHeaders(a.Headers)}
	if a.NoBody {
		return resp, nil
	}
	media := a.Media
	if media == "" {
		media = "application/json"
	}
	var m openapiMedia
	switch len(a.Schemas) {
	case 0: // a body the document leaves to its media type (an image)
	case 1:
		m.Schema = openapiRef{"#/components/schemas/" + a.Schemas[0]}
	default:
		var refs []any
		for _, name := range a.Schemas {
			refs = append(refs, openapiRef{"#/components/schemas/" + name})
		}
		m.Schema = map[string]any{"oneOf": refs}
	}
	m.Examples = ex
	resp.Content = map[string]openapiMedia{media: m}
	if a.AltMedia != "" {
		resp.Content[a.AltMedia] = openapiMedia{Schema: openapiRef{"#/components/schemas/Text"}}
	}
	return resp, nil
}

// openapiDescription is the document's introduction (Markdown).
func (ref *Reference) openapiDescription() string {
	var b strings.Builder
	b.WriteString("A read-only REST API for trading-card catalogues and their marketplace prices: TCGplayer in USD " +
		"(one price per finish) and Cardmarket in EUR (`normal` and `foil`), linked card by card and refreshed daily.\n\n")
	b.WriteString("**Authentication.** [Get a key](" + ref.PublicURL + "/account/signup) (free, by email), then send it in `X-API-Key`, or as `Authorization: Bearer <key>`; " +
		"in the reference at /docs, paste it into the authentication's Value field, where your browser keeps it. " + PublicPathsNote(ref.Routes) + "\n\n")
	b.WriteString("**Rate limits.** Per account, in two fixed UTC windows (hour and day). Every answer carries " +
		"`X-RateLimit-Limit-Hour`, `X-RateLimit-Remaining-Hour`, `X-RateLimit-Limit-Day` and `X-RateLimit-Remaining-Day`; " +
		"past either limit the answer is 429 with `Retry-After`.\n\n")
	b.WriteString("**Errors.** Every error is JSON `{error, message, ...}`: test on `error`, which is stable. " +
		"A path that no route serves is 404 `Endpoint not found`, with the paths you may have meant in `did_you_mean` and a link to these docs in `docs`; " +
		"any method but GET, HEAD included, is 405 `Method not allowed` with `Allow: GET` (a CORS preflight, OPTIONS, is answered 204).\n\n")
	b.WriteString("Every answer also carries `X-Request-Id`, `X-Content-Type-Options: nosniff` and `Access-Control-Allow-Origin: *`")
	if web.IsHTTPS(ref.PublicURL) {
		b.WriteString(", and `Strict-Transport-Security: max-age=31536000`")
	}
	b.WriteString(". Every error is `Cache-Control: no-store`; the other answers of keyed routes are `private, max-age=N`, N the server's catalogue refresh interval, except images (`public, max-age=86400`) and GET /alerts (`private, no-cache`: always revalidate). " +
		"**Revalidation is free**: a keyed route's 200 carries a strong `ETag`; sent back in `If-None-Match`, an unchanged answer is a 304 without a body, never counted and answered even past the rate limit (it still needs a valid key). " +
		"**Compression**: with `Accept-Encoding`, JSON answers of 1 KB and more come in br, zstd or gzip (`Content-Encoding`, `Vary: Accept-Encoding`, an ETag per coding). " +
		"The guide: " + ref.PublicURL + "/docs; for AI assistants: " + ref.PublicURL + "/llms.txt.")
	return b.String()
}
