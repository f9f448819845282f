package httpapi

import (
	"net/http"
	"strings"
)

// routes is the whole API in one place. Public routes need no key and are
// never counted; keyed routes are counted (429 past the pool's limit), then
// need a valid key (401); paid routes then the plan (403). A path that no
// route matches falls through to "/": the 404 with did_you_mean, counted
// like a keyed route's answer, which a caller without a key gets too.
func (s *Server) routes() *http.ServeMux {
	mux := http.NewServeMux()
	public := func(label, pattern string, h apiHandler) {
		mux.Handle(pattern, chain(s.adapt(h), s.withPublicLimits))
		s.document(label, pattern, "", false)
	}
	keyed := func(label, pattern, game string, h apiHandler) {
		mux.Handle(pattern, chain(s.adapt(h), s.withRateLimit, s.requireKey))
		s.document(label, pattern, game, true)
	}
	// The plan check comes after the count, so a 403 counts like any keyed
	// answer, and before the handler's own work.
	paid := func(label, pattern, game string, h apiHandler) {
		mux.Handle(pattern, chain(s.adapt(h), s.withRateLimit, s.requireKey, s.requirePaid))
		s.document(label, pattern, game, true)
	}

	public("root", "GET /{$}", s.handleRoot)
	public("games", "GET /games", s.handleGames)
	public("health", "GET /health", s.handleHealth)
	public("docs", "GET /docs", s.handleDocs)

	for _, g := range s.deps.Games.All() {
		p := "GET /" + g.Code
		keyed("sets", p+"/sets", g.Code, s.handleSets(g.Code))
		keyed("set_cards", p+"/sets/{set}", g.Code, s.handleSetCards(g.Code))
		keyed("card", p+"/cards/{id}", g.Code, s.handleCard(g.Code))
		keyed("search", p+"/search", g.Code, s.handleSearch(g.Code))

		keyed("image", p+"/images/{id}", g.Code, s.handleImage(g.Code))

		paid("prices", p+"/prices/{set}", g.Code, s.handlePrices(g.Code))
		paid("set_statistics", p+"/sets/{set}/statistics", g.Code, s.handleStatistics(g.Code))
		paid("set_completion_value", p+"/sets/{set}/completion-value", g.Code, s.handleCompletionValue(g.Code))
		// More specific than /sets/{set}, so ServeMux gives it "trending".
		paid("trending_sets", p+"/sets/trending", g.Code, s.handleTrending(g.Code))
		paid("top_cards", p+"/analytics/top-cards", g.Code, s.handleTopCards(g.Code))
	}

	// The docs site's pages and assets (handler_docs.go): parts of GET /docs,
	// public and never counted like it, not endpoints of their own.
	mux.Handle("GET /docs/{page}", chain(s.adapt(s.handleDocsPage), s.withPublicLimits))
	mux.Handle("GET /docs/assets/{file}", chain(s.adapt(s.handleDocsAsset), s.withPublicLimits))

	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { s.answerUnrouted(w, r, s.endpointNotFound(r)) })
	return mux
}

// endpointDoc is a route as GET / lists it.
type endpointDoc struct {
	Label        string
	Path         string // template: /{game}/sets/:set
	AuthRequired bool
}

// document records a route for GET /, once per label, with the game's
// prefix written as {game} and wildcards as :name.
func (s *Server) document(label, pattern, game string, auth bool) {
	for _, d := range s.docs {
		if d.Label == label {
			return
		}
	}
	path := strings.TrimPrefix(pattern, "GET ")
	path = strings.TrimSuffix(path, "{$}")
	if game != "" {
		path = "/{game}" + strings.TrimPrefix(path, "/"+game)
	}
	path = strings.NewReplacer("{set}", ":set", "{id}", ":id").Replace(path)
	s.docs = append(s.docs, endpointDoc{Label: label, Path: path, AuthRequired: auth})
}

// routed reports whether a GET of path reaches a route other than the 404.
func (s *Server) routed(path string) bool {
	r, err := http.NewRequest(http.MethodGet, path, nil)
	if err != nil {
		return false
	}
	_, pattern := s.mux.Handler(r)
	return pattern != "" && pattern != "/"
}
