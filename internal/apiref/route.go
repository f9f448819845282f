package apiref

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/cardcat/cardcat/internal/game"
)

// Access is what a route asks of its caller.
type Access int

const (
	// Public: no key, never counted, never refused.
	Public Access = iota
	// Keyed: counted (429 past the pool's limit), then a valid key (401).
	Keyed
	// Paid: keyed, then the Ultra or Business plan or a trial, or Pro for
	// the games it covers (game.Game.ProPaid) (403).
	Paid
)

// Route is one endpoint as the reference describes it: the REST API's route
// table (httpapi.Reference) is a list of them, with the handlers beside.
type Route struct {
	Label  string // its key in GET /'s endpoints
	Path   string // OpenAPI path template; a path under /{game}/ is served once per game
	Access Access
	Op     Operation
	// Only, when set, is the games the route is served for (the base game's
	// set image); nil: every game.
	Only func(game.Game) bool
}

// Deprecated are the deprecated routes of the table, by Route.Path, each
// announced in the changelog (docs/api.md, "Deprecation policy";
// deprecation.go): every answer of the route carries the Deprecation,
// Sunset and Link headers. None today; a mark goes with its changelog
// section, which TestDeprecations checks.
var Deprecated = map[string]Deprecation{}

// Method is the route's HTTP method: the API is read-only.
func (rt *Route) Method() string { return http.MethodGet }

// Paid reports whether the route needs paid access.
func (rt *Route) Paid() bool { return rt.Access == Paid }

// PerGame reports whether the route is served once per game, under each
// game's path prefix (game.Game.PathPrefix: none for the base game).
func (rt *Route) PerGame() bool { return strings.HasPrefix(rt.Path, "/{game}/") }

// ServedFor reports whether the route is served for the game.
func (rt *Route) ServedFor(g game.Game) bool { return rt.Only == nil || rt.Only(g) }

// ServedPrefixed reports whether the route is served at a path without a
// game prefix of its own (not per game) or under some game's prefix: what
// the document lists at rt.Path.
func (rt *Route) ServedPrefixed(games *game.Registry) bool {
	if !rt.PerGame() {
		return true
	}
	for _, g := range games.All() {
		if !g.Base && rt.ServedFor(g) {
			return true
		}
	}
	return false
}

// BasePath is the path of a per-game route for the base game: without
// /{game}.
func (rt *Route) BasePath() string { return strings.TrimPrefix(rt.Path, "/{game}") }

// ListedPath is the route's path as GET / lists it: {game} kept, other
// wildcards written :name.
func (rt *Route) ListedPath() string {
	return strings.NewReplacer("{set}", ":set", "{id}", ":id", "{productId}", ":productId", "{idProduct}", ":idProduct", "{name}", ":name").Replace(rt.Path)
}

// Operation is what the OpenAPI document says of a route. The answers every
// route of its access gives (401, 403, 429, 500, 503 while loading) are added
// by the document (openapi.go); Answers are the route's own.
type Operation struct {
	ID          string // operationId
	Tag         string
	Summary     string // one line; also the route's line in /llms.txt
	Description string
	Params      []Param // path and query parameters; {game} is added to game routes
	Answers     []Answer
}

// Param is a path or query parameter.
type Param struct {
	Name        string
	In          string // "path" or "query"
	Description string
	Required    bool
	Schema      ParamSchema
	// NotForTools leaves the parameter out of the route's MCP tool, whose
	// Answer is always JSON (format=csv is a download).
	NotForTools bool
}

// ParamSchema is a parameter's JSON Schema.
type ParamSchema struct {
	Type      string   `json:"type"`
	Format    string   `json:"format,omitempty"`
	Enum      []string `json:"enum,omitempty"`
	Default   any      `json:"default,omitempty"`
	Minimum   *int     `json:"minimum,omitempty"`
	Maximum   *int     `json:"maximum,omitempty"`
	MinLength *int     `json:"minLength,omitempty"`
	MaxLength *int     `json:"maxLength,omitempty"`
	Pattern   string   `json:"pattern,omitempty"`
}

// Answer is one status a route can Answer.
type Answer struct {
	Status      int
	Description string
	// Media is the body's media type: application/json unless set.
	Media string
	// Schemas are the component schemas of a Success body, several when the
	// body is one of them (a set's cards, or its disambiguation); none with
	// Errors for an error body, none without for a body the document does not
	// describe by a schema (an image).
	Schemas []string
	// Errors are the error values of an error body ({error, message, ...}).
	Errors []string
	// Required are the extra fields of the error body that this Answer always has.
	Required []string
	// Headers are the headers of the Answer beyond X-Request-Id and the four
	// X-RateLimit-* headers that every Answer has.
	Headers []string
	// NoBody: a 304.
	NoBody bool
	// AltMedia is a second media type of a Success body, a text the
	// document describes as a string (format=csv).
	AltMedia string
	// Shared names the document's shared Answer (components.responses) this
	// Answer is; the other fields are then unused.
	Shared string
}

func Success(description string, schemas ...string) Answer {
	return Answer{Status: http.StatusOK, Description: description, Schemas: schemas}
}

func Failure(status int, description string, errs ...string) Answer {
	return Answer{Status: status, Description: description, Errors: errs}
}

// WithHeaders is a with the headers it carries.
func WithHeaders(a Answer, headers ...string) Answer {
	a.Headers = headers
	return a
}

func LimitParam(def, max int, what string) Param {
	return Param{Name: "limit", In: "query",
		Description: "How many " + what + " to answer, from 1; above " + strconv.Itoa(max) + " it is taken as " + strconv.Itoa(max) + ".",
		Schema:      ParamSchema{Type: "integer", Default: def, Minimum: Ptr(1), Maximum: Ptr(max)}}
}

func EnumParam(name, def, description string, values ...string) Param {
	return Param{Name: name, In: "query", Description: description + " Matched without regard to case; an empty value is the default.",
		Schema: ParamSchema{Type: "string", Enum: values, Default: def}}
}

// Tags of the OpenAPI document.
const (
	TagService   = "Service"
	TagCatalogue = "Catalogue"
	TagPaid      = "Paid analytics"
	TagAlerts    = "Alerts"
)

// Ptr is a pointer to v, for the schemas' bounds.
func Ptr[T any](v T) *T { return &v }

// PublicPathsNote says which routes need no key: "GET /, /games, ... need no key."
func PublicPathsNote(routes []Route) string {
	var paths []string
	for _, rt := range routes {
		if rt.Access == Public {
			paths = append(paths, rt.Path)
		}
	}
	if len(paths) == 1 {
		return "GET " + paths[0] + " needs no key."
	}
	return "GET " + strings.Join(paths[:len(paths)-1], ", ") + " and " + paths[len(paths)-1] + " need no key."
}
