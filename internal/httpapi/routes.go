package httpapi

import (
	"net/http"
	"strings"

	"github.com/cardcat/cardcat/internal/alertsapi"
	"github.com/cardcat/cardcat/internal/analytics"
	"github.com/cardcat/cardcat/internal/apiref"
	"github.com/cardcat/cardcat/internal/game"
)

// route is one endpoint: how it is served and what GET /, GET /openapi.json
// and GET /llms.txt say of it. routeTable is the one list of them; the mux,
// the OpenAPI document and the root's listing are all made from it, so a
// route cannot be served undocumented or documented unserved.
type route struct {
	Label  string // its key in GET /'s endpoints
	Path   string // OpenAPI path template; a path under /{game}/ is served once per game
	Access apiref.Access
	Op     apiref.Operation
	// serve is a public route's handler; reply a keyed or paid one's, for a
	// game ("" for a path without {game}).
	serve func(game string) apiHandler
	reply func(game string) keyedHandler
	// only, when set, is the games the route is served for (the base game's
	// set image); nil: every game.
	only func(game.Game) bool
	// last, when set, is Path's last segment, a literal that the mux does not
	// match: the route is registered with a wildcard in its place and
	// answers any other value as an unrouted path (muxPattern).
	last string
}

// muxPattern is the pattern the route is registered under: its pattern, or
// for a route with last, the pattern with a wildcard for that segment.
// ServeMux refuses two patterns that both match some path when neither is
// more specific: /{game}/cards/{id}/history and /{game}/cards/tcgplayer/{productId}
// both match /dbs/cards/tcgplayer/history. /{game}/cards/{id}/{last} is less
// specific than both, so the product lookup keeps that path (its id is no
// card id anyway) and the history route refuses the rest itself.
func (rt *route) muxPattern(prefix string) string {
	p := rt.pattern(prefix)
	if rt.last == "" {
		return p
	}
	return strings.TrimSuffix(p, "/"+rt.last) + "/{" + lastSegment + "}"
}

// lastSegment is the wildcard of a route's last segment (route.last).
const lastSegment = "last"

// ref is the route as the reference describes it.
func (rt *route) ref() apiref.Route {
	return apiref.Route{Label: rt.Label, Path: rt.Path, Access: rt.Access, Op: rt.Op, Only: rt.only}
}

// PerGame reports whether the route is served once per game.
func (rt *route) PerGame() bool { r := rt.ref(); return r.PerGame() }

// Paid reports whether the route needs paid access.
func (rt *route) Paid() bool { return rt.Access == apiref.Paid }

// ServedPrefixed reports whether the route is served at a path without a
// game prefix of its own or under some game's prefix (apiref.Route's).
func (rt *route) ServedPrefixed(games *game.Registry) bool {
	r := rt.ref()
	return r.ServedPrefixed(games)
}

// Method is the route's HTTP method: the API is read-only.
func (rt *route) Method() string { return http.MethodGet }

// pattern is the ServeMux pattern of the route under a game's path prefix
// ("/dbs", or "" for the base game and for a route not per game).
func (rt *route) pattern(prefix string) string {
	p := rt.Path
	if rt.PerGame() {
		p = prefix + strings.TrimPrefix(p, "/{game}")
	}
	if p == "/" {
		p = "/{$}"
	}
	return rt.Method() + " " + p
}

// Parameters shared by several routes.
var (
	pageParam = apiref.Param{Name: "page", In: "query", Description: "The page, from 1. A page past the end is an empty list with the true totals.",
		Schema: apiref.ParamSchema{Type: "integer", Default: 1, Minimum: apiref.Ptr(1)}}
	languageParam = apiref.Param{Name: "language", In: "query",
		Description: "Narrows a set code to the sets of this language (`en`, `ja`: Pokémon has both; the other games' sets are `en`), matched without regard to case. A set_id needs none.",
		Schema:      apiref.ParamSchema{Type: "string", MinLength: apiref.Ptr(2), MaxLength: apiref.Ptr(8)}}
	sizeParam = apiref.Param{Name: "size", In: "query",
		Description: "The base game's (Pokémon's) images: `low` (TCGplayer's 400-pixel image, the default) or `high` (1000 x 1000); `X-Image-Size` says which. The other games have one resolution and ignore it (`X-Image-Size: unsized`).",
		Schema:      apiref.ParamSchema{Type: "string", Enum: []string{"low", "high"}}}
	setParam = apiref.Param{Name: "set", In: "path", Required: true,
		Description: "A set's `set_id` (recommended: unique) or its `set_code` (any case). A code that several sets share answers the disambiguation.",
		Schema:      apiref.ParamSchema{Type: "string"}}
	productIDParam = apiref.Param{Name: "productId", In: "path", Required: true,
		Description: "A TCGplayer productId (`market_t.product_id`; the number in a tcgplayer.com/product/ URL): digits only, no sign, no leading zero, 1 to 9223372036854775807.",
		Schema:      apiref.ParamSchema{Type: "integer", Minimum: apiref.Ptr(1)}}
	idProductParam = apiref.Param{Name: "idProduct", In: "path", Required: true,
		Description: "A Cardmarket idProduct (`market_c.product_id`; the idProduct of Cardmarket's product and price guide files): digits only, no sign, no leading zero, 1 to 9223372036854775807.",
		Schema:      apiref.ParamSchema{Type: "integer", Minimum: apiref.Ptr(1)}}
	idsParam = apiref.Param{Name: "ids", In: "query", Required: true,
		Description: "1 to 100 card ids separated by commas, each in any form GET /{game}/cards/{id} takes; spaces around an id are ignored. A repeated `ids` parameter adds to the list.",
		Schema:      apiref.ParamSchema{Type: "string", MinLength: apiref.Ptr(1)}}
	bulkNameParam = apiref.Param{Name: "name", In: "path", Required: true,
		Description: "A bulk file's name, as GET /{game}/bulk lists it.",
		Schema:      apiref.ParamSchema{Type: "string", Enum: []string{"cards.jsonl.gz", "prices.csv.gz"}}}
	cardIDParam = apiref.Param{Name: "id", In: "path", Required: true,
		Description: "A card id: `{game}_` and 16 hex digits, or a card's 64-hex Cardmarket id (hex digits in either case).",
		Schema:      apiref.ParamSchema{Type: "string", Pattern: `^([a-z]+_[0-9A-Fa-f]{16}|[0-9A-Fa-f]{64})$`}}
)

// Answers shared by several routes.
var (
	setNotFound404 = apiref.Answer{Status: http.StatusNotFound, Errors: []string{errSetNotFound},
		Description: "No set has that set_id or set_code. When `set` does not look like a set_id, `suggestions` lists the sets whose name matches it."}
	cardID400 = apiref.Answer{Status: http.StatusBadRequest, Errors: []string{errInvalidCardID},
		Description: "The id is malformed, or belongs to the other game (then with `did_you_mean`, the right path)."}
	productID400 = apiref.Failure(http.StatusBadRequest, "The product number is not a whole number from 1 to 9223372036854775807 written with digits only.", errInvalidParameter)
	formatParam  = func() apiref.Param {
		p := apiref.EnumParam("format", formatJSON, "The answer's format: JSON, or CSV (`text/csv`, RFC 4180, a header row, an empty field for a null).", formatJSON, formatCSV)
		p.NotForTools = true
		return p
	}()
	invalidParameter400 = apiref.Failure(http.StatusBadRequest, "A parameter's value is not allowed; the message names it and its allowed values.", errInvalidParameter)
)

// routeTable is the API: every route, in the order GET / and /llms.txt list
// them. A new route is one entry here (its handler, access and operation),
// its handler_{endpoint}.go, goldens, and its section of docs/api.md.
func (s *Server) routeTable() []route {
	public := func(h apiHandler) func(string) apiHandler { return func(string) apiHandler { return h } }
	return []route{
		{Label: "root", Path: "/", Access: apiref.Public, serve: public(s.handleRoot), Op: apiref.Operation{
			ID: "getRoot", Tag: apiref.TagService, Summary: "What the service is, how to authenticate, every endpoint",
			Answers: []apiref.Answer{apiref.Success("The service's description.", "Root")},
		}},
		{Label: "games", Path: "/games", Access: apiref.Public, serve: public(s.handleGames), Op: apiref.Operation{
			ID: "listGames", Tag: apiref.TagService, Summary: "The games served, with their route templates",
			Answers: []apiref.Answer{apiref.Success("The games.", "Games")},
		}},
		{Label: "health", Path: "/health", Access: apiref.Public, serve: public(s.handleHealth), Op: apiref.Operation{
			ID: "getHealth", Tag: apiref.TagService, Summary: "Whether the service and its dependencies work",
			Description: "`status` says whether this server can answer the API: unhealthy (503) only before its catalogue is loaded or when its API keys could not be refreshed for too long. A failing `database`, `cache` or `storage` shows in `checks` while `status` stays `healthy`: the catalogue and keys are served from memory. `catalogue` gives the version served and when it was written (`updated_at`), so that a monitor sees stale data.",
			Answers: []apiref.Answer{
				apiref.Success("Healthy.", "Health"),
				{Status: http.StatusServiceUnavailable, Description: "Unhealthy: the same body, with `status: unhealthy` and a `message`.", Schemas: []string{"Health"}},
			},
		}},
		{Label: "docs", Path: "/docs", Access: apiref.Public, serve: public(s.handleDocs), Op: apiref.Operation{
			ID: "getDocs", Tag: apiref.TagService, Summary: "The API reference and guides, as an HTML page",
			Description: "The reference is rendered in the browser from /openapi.json; the guide pages are under /docs/, and the guide as Markdown at /docs/api.md.",
			Params:      []apiref.Param{{Name: "If-None-Match", In: "header", Description: "The ETag of an earlier answer.", Schema: apiref.ParamSchema{Type: "string"}}},
			Answers: []apiref.Answer{
				{Status: http.StatusOK, Description: "The page.", Media: "text/html", Schemas: []string{"Text"}, Headers: []string{"ETag", "Cache-Control"}},
				{Status: http.StatusNotModified, Description: "The page has not changed since the ETag sent in `If-None-Match`.", NoBody: true, Headers: []string{"ETag", "Cache-Control"}},
				{Status: http.StatusNotFound, Shared: apiref.RespEndpointNotFound},
			},
		}},
		{Label: "openapi", Path: "/openapi.json", Access: apiref.Public, serve: public(s.handleOpenAPI), Op: apiref.Operation{
			ID: "getOpenAPI", Tag: apiref.TagService, Summary: "The OpenAPI 3.1 document of this API",
			Answers: []apiref.Answer{{Status: http.StatusOK, Description: "The OpenAPI document of every route this server serves.", Schemas: []string{"OpenAPIDocument"}, Headers: []string{"Cache-Control"}}},
		}},
		{Label: "llms", Path: "/llms.txt", Access: apiref.Public, serve: public(s.handleLLMs), Op: apiref.Operation{
			ID: "getLLMsTxt", Tag: apiref.TagService, Summary: "A plain-text guide to the API for AI assistants",
			Answers: []apiref.Answer{{Status: http.StatusOK, Description: "The guide (the llms.txt convention): auth, each route in one line, limits, errors.", Media: "text/plain", Schemas: []string{"Text"}, Headers: []string{"Cache-Control"}}},
		}},
		// POST /mcp is registered beside the table (routes): not a GET route.

		{Label: "sets", Path: "/{game}/sets", Access: apiref.Keyed, reply: s.handleSets, Op: apiref.Operation{
			ID: "listSets", Tag: apiref.TagCatalogue, Summary: "Every set of the game that has products, newest first",
			Answers: []apiref.Answer{apiref.Success("The sets.", "SetList")},
		}},
		{Label: "set_cards", Path: "/{game}/sets/{set}", Access: apiref.Keyed, reply: s.handleSetCards, Op: apiref.Operation{
			ID: "getSetCards", Tag: apiref.TagCatalogue, Summary: "The products of one set, paginated (prices empty)",
			Description: "Cards first, then sealed products, in card-number order. `market_t.prices` and `market_c.prices` are empty here: card detail and search fill them.",
			Params:      []apiref.Param{setParam, languageParam, pageParam, apiref.LimitParam(setPageDefault, setPageMax, "products")},
			Answers: []apiref.Answer{
				apiref.Success("A page of the set's products; or, when `set` is a code that several sets share, the disambiguation: repeat the request with one of their set_ids.", "SetCards", "Disambiguation"),
				invalidParameter400, setNotFound404,
			},
		}},
		{Label: "card", Path: "/{game}/cards/{id}", Access: apiref.Keyed, reply: s.handleCard, Op: apiref.Operation{
			ID: "getCard", Tag: apiref.TagCatalogue, Summary: "One card with all its prices",
			Description: "Asked by its Cardmarket id, a card that also has a TCGplayer product answers the same body, with its canonical `{game}_` id in `id`.",
			Params:      []apiref.Param{cardIDParam},
			Answers: []apiref.Answer{
				apiref.Success("The card, prices filled.", "Card"), cardID400,
				apiref.Failure(http.StatusNotFound, "A well-formed id of no card.", errCardNotFound),
			},
		}},
		{Label: "card_by_tcgplayer", Path: "/{game}/cards/tcgplayer/{productId}", Access: apiref.Keyed, reply: s.handleCardByTCGplayer, Op: apiref.Operation{
			ID: "getCardByTCGplayerProduct", Tag: apiref.TagCatalogue, Summary: "The card of a TCGplayer product, by its productId",
			Description: "The same body as GET /{game}/cards/{id} of that card, canonical id in `id`: a product is one card, its finishes included.",
			Params:      []apiref.Param{productIDParam},
			Answers: []apiref.Answer{
				apiref.Success("The card, prices filled.", "Card"), productID400,
				apiref.Failure(http.StatusNotFound, "No card of the game is that product. When a card of another game is, `did_you_mean` is its path.", errCardNotFound),
			},
		}},
		{Label: "card_by_cardmarket", Path: "/{game}/cards/cardmarket/{idProduct}", Access: apiref.Keyed, reply: s.handleCardByCardmarket, Op: apiref.Operation{
			ID: "getCardByCardmarketProduct", Tag: apiref.TagCatalogue, Summary: "The card of a Cardmarket product, by its idProduct",
			Description: "The same body as GET /{game}/cards/{id} of that card: a Cardmarket product linked to a TCGplayer product answers the linked card, with its canonical `{game}_` id in `id`; one only on Cardmarket, the Cardmarket-only card.",
			Params:      []apiref.Param{idProductParam},
			Answers: []apiref.Answer{
				apiref.Success("The card, prices filled.", "Card"), productID400,
				apiref.Failure(http.StatusNotFound, "No card of the game is that product. When a card of another game is, `did_you_mean` is its path.", errCardNotFound),
			},
		}},
		{Label: "cards", Path: "/{game}/cards", Access: apiref.Keyed, reply: s.handleCardsBatch, Op: apiref.Operation{
			ID: "getCards", Tag: apiref.TagCatalogue, Summary: "Up to 100 cards by their ids, in one request",
			Description: "Counts as one request. `data` holds the cards in the order of `ids`, each the body GET /{game}/cards/{id} answers; a card asked twice (by the same id, or by its canonical and its Cardmarket id) comes once, where it was first asked. `not_found` lists, as sent and once each, the ids that find no card of the game: unknown, malformed, or another game's.",
			Params:      []apiref.Param{idsParam},
			Answers: []apiref.Answer{
				apiref.Success("The cards found, and the ids that found none.", "CardBatch"),
				apiref.Failure(http.StatusBadRequest, "`ids` is missing or empty, holds an empty id, or lists more than 100 ids.", errInvalidParameter),
			},
		}},
		{Label: "changes", Path: "/{game}/changes", Access: apiref.Keyed, reply: s.handleChanges, Op: apiref.Operation{
			ID: "listChanges", Tag: apiref.TagCatalogue, Summary: "The cards whose detail body changed after a time, to keep a copy in sync",
			Description: "Every card whose GET /{game}/cards/{id} body changed (its data or its prices) in a catalogue version created after `since`, once (at its latest change), oldest change first, then by id; a card that left the catalogue comes with `removed: true`. `changed_at` is the creation time of the version that changed it. Keep `until` (the creation time of the newest version the feed covers) and send it as the next `since`. A `since` older than the change history kept is a 400 that points at the bulk files (GET /{game}/bulk).",
			Params: []apiref.Param{
				{Name: "since", In: "query", Required: true, Description: "An RFC 3339 time (`2026-01-31T06:00:00Z`; a `+` offset must be sent as `%2B`, or it reads as a space, which is taken as `+`): the `until` of your last answer, or the time of your copy.",
					Schema: apiref.ParamSchema{Type: "string", Format: "date-time"}},
				pageParam, apiref.LimitParam(changesPageDefault, changesPageMax, "cards"),
			},
			Answers: []apiref.Answer{
				apiref.Success("A page of the changed cards.", "Changes"),
				apiref.Failure(http.StatusBadRequest, "`since` is missing, not an RFC 3339 time, or older than the change history kept (the message says where it starts and points at GET /{game}/bulk); or `page` or `limit` is not an integer of 1 or more.", errInvalidParameter),
				{Status: http.StatusServiceUnavailable, Errors: []string{errServiceUnavailable}, Headers: []string{"Retry-After"},
					Description: "The change feed cannot be read right now. Retry after `Retry-After` seconds."},
			},
		}},
		{Label: "card_history", Path: "/{game}/cards/{id}/history", last: "history", Access: apiref.Paid, reply: s.handleHistory, Op: apiref.Operation{
			ID: "getCardHistory", Tag: apiref.TagPaid, Summary: "A card's daily prices on one marketplace, oldest first",
			Description: "One point per finish and UTC day, from the daily price points ingest keeps, over the last `days` UTC days ending on the day of the catalogue version served (`to`, the latest day with points); oldest first, then by finish. A day without a point is absent, never filled in. TCGplayer points are in USD, one per finish (`variant` is its name); Cardmarket points in EUR, `normal` and `foil`. `format=csv` answers the same rows as CSV, with a header row.",
			Params: []apiref.Param{cardIDParam,
				apiref.EnumParam("source", analytics.SourceTCG, "Which marketplace's prices: TCGplayer (`tcg`) or Cardmarket (`cm`).", analytics.SourceTCG, analytics.SourceCM),
				{Name: "days", In: "query", Description: "How many UTC days, ending on the catalogue's day, from 1 to 365. An empty value is the default.",
					Schema: apiref.ParamSchema{Type: "integer", Default: historyDaysDefault, Minimum: apiref.Ptr(1), Maximum: apiref.Ptr(historyDaysMax)}},
				formatParam,
			},
			Answers: []apiref.Answer{
				{Status: http.StatusOK, Description: "The card's points (its canonical id in `id`), possibly none; with `format=csv`, the same rows as CSV, as an attachment (`Content-Disposition`).",
					Schemas: []string{"PriceHistory"}, AltMedia: "text/csv", Headers: []string{"Content-Disposition"}},
				apiref.Failure(http.StatusBadRequest, "`source`, `days` or `format` is not allowed (the message names it and its allowed values); or the id is malformed, or belongs to the other game (then with `did_you_mean`, the right path).",
					errInvalidParameter, errInvalidCardID),
				apiref.Failure(http.StatusNotFound, "A well-formed id of no card.", errCardNotFound),
				{Status: http.StatusServiceUnavailable, Errors: []string{errServiceUnavailable}, Headers: []string{"Retry-After"},
					Description: "The price history cannot be read right now, or the catalogue is still loading. Retry after `Retry-After` seconds."},
			},
		}},
		{Label: "search", Path: "/{game}/search", Access: apiref.Keyed, reply: s.handleSearch, Op: apiref.Operation{
			ID: "searchCards", Tag: apiref.TagCatalogue, Summary: "Cards by name or card number, with their prices",
			Description: "A `q` of 3 characters or more matches the names that contain every word of it, in any order, and the card numbers that start with it; a shorter one matches names and numbers that start with it. Case, accents and quote characters do not matter; `*`, `%`, `_` are plain text.",
			Params: []apiref.Param{
				{Name: "q", In: "query", Required: true, Description: "The name or card number to find; 2 to 100 characters after trimming surrounding spaces.",
					Schema: apiref.ParamSchema{Type: "string", MinLength: apiref.Ptr(queryMin), MaxLength: apiref.Ptr(queryMax)}},
				pageParam, apiref.LimitParam(searchPageDefault, searchPageMax, "cards"),
			},
			Answers: []apiref.Answer{
				apiref.Success("The matching cards, prices filled.", "SearchResult"),
				apiref.Failure(http.StatusBadRequest, "`q` is missing, too short, too long or only quotes; it looks like SQL; or `page` or `limit` is not an integer of 1 or more.",
					errQueryRequired, errQueryRejected, errInvalidParameter),
				{Status: http.StatusServiceUnavailable, Errors: []string{errSearchUnavailable, errServiceUnavailable}, Headers: []string{"Retry-After"},
					Description: "Too many searches at once, or this one took too long; or the catalogue is still loading. Retry after `Retry-After` seconds."},
			},
		}},
		{Label: "image", Path: "/{game}/images/{id}", Access: apiref.Keyed, reply: s.handleImage, Op: apiref.Operation{
			ID: "getCardImage", Tag: apiref.TagCatalogue, Summary: "The card's image, cacheable for 24 hours",
			Description: "One resolution (`X-Image-Size: unsized`), except the base game's: `size` `low` or `high`. Send the `ETag` back in `If-None-Match` and an unchanged image is a 304 without a body (it still needs the key, and is never counted).",
			Params: []apiref.Param{cardIDParam, sizeParam,
				{Name: "If-None-Match", In: "header", Description: "An ETag of this image from an earlier answer.", Schema: apiref.ParamSchema{Type: "string"}}},
			Answers: []apiref.Answer{
				{Status: http.StatusOK, Description: "The image, of the type its source gives (`image/jpeg`).", Media: "image/*", Headers: []string{"ETag", "Cache-Control", "X-Image-Size"}},
				{Status: http.StatusNotModified, Description: "The image has not changed since the ETag sent in `If-None-Match`.", NoBody: true, Headers: []string{"ETag", "Cache-Control", "X-Image-Size"}},
				cardID400,
				apiref.Failure(http.StatusNotFound, "A well-formed id of no card, or a card without an image (Cardmarket-only cards, products without a picture).", errCardNotFound, errImageNotFound),
				apiref.WithHeaders(apiref.Failure(http.StatusBadGateway, "The image source cannot be reached right now; ask again after `Retry-After` seconds.", errImageUnavailable), "Retry-After"),
			},
		}},
		{Label: "bulk", Path: "/{game}/bulk", Access: apiref.Keyed, reply: s.handleBulk, Op: apiref.Operation{
			ID: "listBulkFiles", Tag: apiref.TagCatalogue, Summary: "The whole-catalogue download files of the game",
			Description: "Built once per catalogue version, in the background while the version is already served: a file not built yet is not listed (GET its `url` answers 503 until it is). `updated_at` is the time of the catalogue version the files hold. `cards.jsonl.gz`: every card's detail body, one per line, exactly as GET /{game}/cards/{id} answers it. `prices.csv.gz`: one CSV row (RFC 4180, header row) per card and finish of both marketplaces.",
			Answers:     []apiref.Answer{apiref.Success("The files built for the catalogue version being served.", "BulkFiles")},
		}},
		{Label: "bulk_file", Path: "/{game}/bulk/{name}", Access: apiref.Keyed, reply: s.handleBulkFile, Op: apiref.Operation{
			ID: "getBulkFile", Tag: apiref.TagCatalogue, Summary: "One bulk file, as gzip bytes, resumable",
			Description: "Served as the gzip file it is (`Content-Type: application/gzip`, no `Content-Encoding`): save it as is. The `ETag` is the file's sha256; `Range` (one range) and `If-Range` resume a download, `If-None-Match` answers 304 (never counted). Every other request counts once, a resumed one too.",
			Params: []apiref.Param{bulkNameParam,
				{Name: "Range", In: "header", Description: "One byte range, `bytes=FIRST-` or `bytes=FIRST-LAST`, to resume a download.", Schema: apiref.ParamSchema{Type: "string"}},
				{Name: "If-Range", In: "header", Description: "The file's ETag: the Range applies only while the file is still that one, else the whole file is answered.", Schema: apiref.ParamSchema{Type: "string"}},
				{Name: "If-None-Match", In: "header", Description: "An ETag of this file from an earlier answer.", Schema: apiref.ParamSchema{Type: "string"}}},
			Answers: []apiref.Answer{
				{Status: http.StatusOK, Description: "The whole file.", Media: "application/gzip", Headers: []string{"ETag", "Cache-Control", "Last-Modified", "Accept-Ranges", "Content-Disposition"}},
				{Status: http.StatusPartialContent, Description: "The byte range asked for.", Media: "application/gzip", Headers: []string{"ETag", "Cache-Control", "Last-Modified", "Accept-Ranges", "Content-Disposition", "Content-Range"}},
				{Status: http.StatusNotModified, Description: "The file has not changed since the ETag sent in `If-None-Match`.", NoBody: true, Headers: []string{"ETag", "Cache-Control"}},
				{Status: http.StatusNotFound, Errors: []string{errEndpointNotFound}, Required: []string{"did_you_mean", "docs"},
					Description: "No bulk file has that name; `did_you_mean` is the listing, GET /{game}/bulk."},
				apiref.WithHeaders(apiref.Failure(http.StatusRequestedRangeNotSatisfiable, "The Range asks for no byte of the file.", errInvalidParameter), "Content-Range"),
				{Status: http.StatusServiceUnavailable, Errors: []string{errServiceUnavailable}, Headers: []string{"Retry-After"},
					Description: "The file of the catalogue version being served is still being built, or the catalogue is still loading. Retry after `Retry-After` seconds."},
			},
		}},

		{Label: "prices", Path: "/{game}/prices/{set}", Access: apiref.Paid, reply: s.handlePrices, Op: apiref.Operation{
			ID: "getSetPrices", Tag: apiref.TagPaid, Summary: "The prices of every product of a set, one row per finish",
			Description: "Not paginated. Every priced TCGplayer finish is a row; Cardmarket `normal` joins the `Normal` row, `foil` joins `Foil` (else `Holofoil`); a Cardmarket price that joins no TCGplayer finish is a row of its own.",
			Params: []apiref.Param{setParam, languageParam, apiref.EnumParam("source", analytics.SourceBoth, "Which marketplace's prices: both, TCGplayer (`tcg`) or Cardmarket (`cm`).",
				analytics.SourceBoth, analytics.SourceTCG, analytics.SourceCM)},
			Answers: []apiref.Answer{apiref.Success("The rows; or the disambiguation of a shared set code.", "PricesBySet", "Disambiguation"), invalidParameter400, setNotFound404},
		}},
		{Label: "set_statistics", Path: "/{game}/sets/{set}/statistics", Access: apiref.Paid, reply: s.handleStatistics, Op: apiref.Operation{
			ID: "getSetStatistics", Tag: apiref.TagPaid, Summary: "Price statistics of a set's cards in one finish, and its rarity breakdown",
			Description: "Products of type `card` only. TCGplayer: each card's `market_price` in the finish; Cardmarket: its `avg`, else `trend`.",
			Params: []apiref.Param{setParam, languageParam, apiref.EnumParam("variant", analytics.VariantNormal, "The finish.",
				analytics.VariantNormal, analytics.VariantFoil)},
			Answers: []apiref.Answer{apiref.Success("The statistics; or the disambiguation of a shared set code.", "SetStatistics", "Disambiguation"), invalidParameter400, setNotFound404},
		}},
		{Label: "set_completion_value", Path: "/{game}/sets/{set}/completion-value", Access: apiref.Paid, reply: s.handleCompletionValue, Op: apiref.Operation{
			ID: "getSetCompletionValue", Tag: apiref.TagPaid, Summary: "What one copy of every card of a set costs",
			Description: "One copy of every card in its base finish, in USD (TCGplayer) and EUR (Cardmarket); the two are not comparable.",
			Params:      []apiref.Param{setParam, languageParam},
			Answers:     []apiref.Answer{apiref.Success("The estimate; or the disambiguation of a shared set code.", "CompletionValue", "Disambiguation"), invalidParameter400, setNotFound404},
		}},
		{Label: "set_image", Path: "/{game}/sets/{set}/image", only: func(g game.Game) bool { return g.SetImages },
			Access: apiref.Keyed, reply: s.handleSetImage, Op: apiref.Operation{
				ID: "getSetImage", Tag: apiref.TagCatalogue, Summary: "The set's logo, cacheable for 24 hours",
				Description: "The base game's sets only. `set` resolves as for the set's cards, narrowed by `language`; a code that still matches several sets is 409 `Ambiguous set code` with `matches`, not a disambiguation. Logos come from TCGdex, for the sets TCGdex pairs with a TCGplayer set; another set is 404 `Image not available`. Send the `ETag` back in `If-None-Match` and an unchanged image is a 304 without a body (never counted).",
				Params: []apiref.Param{setParam, languageParam,
					{Name: "If-None-Match", In: "header", Description: "An ETag of this image from an earlier answer.", Schema: apiref.ParamSchema{Type: "string"}}},
				Answers: []apiref.Answer{
					{Status: http.StatusOK, Description: "The logo, of the type its source gives (`image/png`).", Media: "image/*", Headers: []string{"ETag", "Cache-Control", "X-Image-Size"}},
					{Status: http.StatusNotModified, Description: "The image has not changed since the ETag sent in `If-None-Match`.", NoBody: true, Headers: []string{"ETag", "Cache-Control", "X-Image-Size"}},
					invalidParameter400,
					apiref.Failure(http.StatusNotFound, "No set has that set_id or set_code (`Set not found`, with `suggestions`, as for the set's cards); or the set has no logo (`Image not available`).", errSetNotFound, errImageUnavailable),
					apiref.Failure(http.StatusConflict, "The set code matches several sets: `matches` lists them (`set_id`, `set_code`, `name`, `language`); add `language` or ask by set_id.", errAmbiguousSetCode),
					apiref.WithHeaders(apiref.Failure(http.StatusBadGateway, "The image source cannot be reached right now; ask again after `Retry-After` seconds.", errImageUnavailable), "Retry-After"),
				},
			}},
		// More specific than /sets/{set}, so ServeMux gives it "trending".
		{Label: "trending_sets", Path: "/{game}/sets/trending", Access: apiref.Paid, reply: s.handleTrending, Op: apiref.Operation{
			ID: "getTrendingSets", Tag: apiref.TagPaid, Summary: "The sets whose Cardmarket prices moved most (7-day against 30-day average)",
			Description: "Cards from 1 EUR up. Always this endpoint: a set whose code is \"trending\" is reached by its set_id.",
			Params: []apiref.Param{apiref.EnumParam("period", analytics.Period7d, "The period.", analytics.Period7d),
				apiref.LimitParam(analytics.TrendingDefaultLimit, analytics.TrendingMaxLimit, "sets")},
			Answers: []apiref.Answer{apiref.Success("The sets, largest move first.", "TrendingSets"), invalidParameter400},
		}},
		{Label: "top_cards", Path: "/{game}/analytics/top-cards", Access: apiref.Paid, reply: s.handleTopCards, Op: apiref.Operation{
			ID: "getTopCards", Tag: apiref.TagPaid, Summary: "The most expensive cards, or the fastest-growing ones",
			Description: "`growth` is computed from Cardmarket 7- and 30-day averages (cards from 1 EUR up) and works with `source=cm` only, its default; `price` defaults to `source=tcg`.",
			Params: []apiref.Param{
				apiref.EnumParam("metric", analytics.MetricPrice, "What to rank by.", analytics.MetricPrice, analytics.MetricGrowth),
				{Name: "source", In: "query", Description: "Which marketplace: `tcg` (the default for `price`) or `cm` (the default for, and the only one allowed with, `growth`). Matched without regard to case; an empty value is the default.",
					Schema: apiref.ParamSchema{Type: "string", Enum: []string{analytics.SourceTCG, analytics.SourceCM}}},
				apiref.LimitParam(analytics.TopCardsDefaultLimit, analytics.TopCardsMaxLimit, "cards"),
			},
			Answers: []apiref.Answer{apiref.Success("The cards, first the highest.", "TopCards"), invalidParameter400},
		}},

		// A surface of its own (internal/alertsapi, surface.go).
		{Label: "alerts", Path: "/alerts", Access: apiref.Keyed, Op: alertsapi.Operation,
			reply: s.surfaceReply(func() KeyedSurface { return s.deps.Alerts })},
	}
}

// routes registers routeTable on a mux: public routes need no key and are
// never counted; keyed routes are counted (429 past the pool's limit), then
// need a valid key (401); paid routes then the plan (403). A path that no
// route matches falls through to "/": the 404 with did_you_mean, counted
// like a keyed route's answer, which a caller without a key gets too.
func (s *Server) routes() *router {
	mux := newRouter()
	for i := range s.table {
		rt := &s.table[i]
		games := []game.Game{{}}
		if rt.PerGame() {
			games = s.deps.Games.All()
		}
		for _, g := range games {
			if rt.only != nil && !rt.only(g) {
				continue
			}
			game, prefix := g.Code, g.PathPrefix()
			if !rt.PerGame() {
				prefix = ""
			}
			var h http.Handler
			if rt.Access == apiref.Public {
				h = chain(s.adapt(rt.serve(game)), s.withPublicLimits)
			} else {
				h = s.admit(rt.Access, g, rt.reply(game))
			}
			h = s.numbered(rt.Path, game, apiref.WithDeprecation(apiref.DeprecationOf(rt.Path), s.deps.PublicURL, h))
			if rt.last != "" {
				h = s.onlyLast(rt.last, h)
			}
			p, mp := rt.pattern(prefix), rt.muxPattern(prefix)
			mux.Handle(mp, h)
			s.served = append(s.served, servedRoute{Pattern: p, Mux: mp, Game: game, Route: rt})
		}
	}
	// The docs site's pages and assets (handler_docs.go): parts of GET /docs,
	// public and never counted like it, not endpoints of their own.
	mux.Handle("GET /docs/{page}", s.numbered("/docs/{page}", "", chain(s.adapt(s.handleDocsPage), s.withPublicLimits)))
	mux.Handle("GET /docs/assets/{file}", s.numbered("/docs/assets/{file}", "", chain(s.adapt(s.handleDocsAsset), s.withPublicLimits)))

	// The MCP endpoint (mcp.go): JSON-RPC over POST, whose tools are the
	// table's routes; not a GET route itself, so registered beside them.
	mux.Handle(mcpPath, s.numbered(mcpPath, "", chain(s.mcp, s.admitMCP)))
	s.docs = apiref.Endpoints(s.ref)

	mux.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s.answerUnrouted(w, r, s.endpointNotFound(r)) }))
	return mux
}

// onlyLast answers a path whose last segment is not last as the mux answers
// an unrouted one (404 with did_you_mean, before any key check), for a
// route registered with a wildcard there (route.muxPattern).
func (s *Server) onlyLast(last string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if pathValue(r, lastSegment) != last {
			s.answerUnrouted(w, r, s.endpointNotFound(r))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// servedRoute is one pattern registered on the mux.
type servedRoute struct {
	Pattern string // "GET /dbs/sets/{set}"
	Mux     string // the pattern the mux has: Pattern, or route.muxPattern's
	Game    string // "" for a route without {game}
	Route   *route
}

// routed reports whether a GET of path reaches a route other than the 404.
func (s *Server) routed(path string) bool {
	r, err := http.NewRequest(http.MethodGet, path, nil)
	if err != nil {
		return false
	}
	_, pattern := s.mux.Handler(r)
	if pattern == "" || pattern == "/" {
		return false
	}
	// A route registered with a wildcard for its last segment serves only
	// its own (onlyLast).
	for i := range s.served {
		if sr := &s.served[i]; sr.Mux == pattern && sr.Route.last != "" {
			return strings.HasSuffix(r.URL.Path, "/"+sr.Route.last)
		}
	}
	return true
}
