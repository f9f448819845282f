package httpapi

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"net/http"
	"net/netip"
	"runtime"
	"strconv"
	"time"

	"github.com/cardcat/cardcat/internal/apiref"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/images"
	"github.com/cardcat/cardcat/internal/mcpserver"
	"github.com/cardcat/cardcat/internal/metrics"
	"github.com/cardcat/cardcat/internal/ratelimit"
	"github.com/cardcat/cardcat/internal/serving"
	"github.com/cardcat/cardcat/internal/site"
	"github.com/cardcat/cardcat/internal/web"
)

// Config holds the API's tunables; zero values take the defaults.
type Config struct {
	// SearchTimeout bounds one search; past it the answer is 503 "Search
	// temporarily unavailable". Default 2 s.
	SearchTimeout time.Duration
	// SearchConcurrency is how many searches run at once. Default 4 per CPU.
	SearchConcurrency int
	// SearchQueueWait is how long a search waits for a free slot before it is
	// refused with 503. Default 100 ms.
	SearchQueueWait time.Duration
	// SearchRetryAfter is the Retry-After of a refused search. Default 1 s.
	SearchRetryAfter time.Duration
	// HealthTimeout bounds each health check. Default 2 s.
	HealthTimeout time.Duration
	// ChangesTimeout bounds the store read of a page of the change feed;
	// past it the answer is 503 "Service unavailable". Default 2 s.
	ChangesTimeout time.Duration
	// HistoryTimeout bounds the store read of a price history; past it the
	// answer is 503 "Service unavailable". Default 2 s.
	HistoryTimeout time.Duration
	// GuardPerHour is the hourly quota of the guard bucket, which counts the
	// requests without a valid key per client IP (so that keys cannot be
	// guessed at speed); its daily quota is 24 times as much. Default
	// DefaultGuardPerHour (1,000).
	GuardPerHour int64
	// TrustedProxies are the peers whose X-Forwarded-For names the client
	// (see ParseTrustedProxies). Without them the client is the peer.
	TrustedProxies []netip.Prefix
	// KeyedMaxAge is how long a caller may reuse a keyed route's answer
	// without asking again: Cache-Control: private, max-age of it in whole
	// seconds. cmd/cardcat sets the catalogue refresh interval, within which
	// a new catalogue version reaches this server. Zero: private, no-cache
	// (always revalidate, which costs nothing).
	KeyedMaxAge time.Duration
	// CompressCacheBytes bounds the compressed variants of answers kept in
	// memory (web.EncodedCache). Default web.DefaultCompressCacheBytes.
	CompressCacheBytes int
	// BulkStallTimeout is how long a bulk download waits for the client to
	// take the next piece of the file: each piece taken moves the write
	// deadline on by it, so that a slow download takes as long as it needs
	// while it progresses, and one whose client stopped reading is cut.
	// Default 30 s.
	BulkStallTimeout time.Duration
}

func (c Config) withDefaults() Config {
	if c.SearchTimeout <= 0 {
		c.SearchTimeout = 2 * time.Second
	}
	if c.SearchConcurrency <= 0 {
		c.SearchConcurrency = 4 * runtime.GOMAXPROCS(0)
	}
	if c.SearchQueueWait <= 0 {
		c.SearchQueueWait = 100 * time.Millisecond
	}
	if c.SearchRetryAfter <= 0 {
		c.SearchRetryAfter = time.Second
	}
	if c.HealthTimeout <= 0 {
		c.HealthTimeout = 2 * time.Second
	}
	if c.ChangesTimeout <= 0 {
		c.ChangesTimeout = 2 * time.Second
	}
	if c.HistoryTimeout <= 0 {
		c.HistoryTimeout = 2 * time.Second
	}
	if c.CompressCacheBytes <= 0 {
		c.CompressCacheBytes = web.DefaultCompressCacheBytes
	}
	if c.BulkStallTimeout <= 0 {
		c.BulkStallTimeout = 30 * time.Second
	}
	if c.GuardPerHour <= 0 {
		c.GuardPerHour = DefaultGuardPerHour
	}
	return c
}

// Deps are what the API needs from the rest of the program.
type Deps struct {
	// View returns the catalogue version being served, nil before the first
	// one is loaded: its snapshot and its paid answers, built and published
	// together (serving.Build). It is called once per request, so that one
	// answer never mixes two catalogue versions.
	View func() *serving.View
	// Games are the games served, each under /{code}/.
	Games  *game.Registry
	Logger *slog.Logger
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Version is the build's version, shown by GET / and /health.
	Version string
	// Region is the deployment's region, shown by /health.
	Region string
	// Data says what a catalogue version was made from (apiref.DataSample,
	// DataLive, DataMirror), which GET / and /health show: the bundled
	// sample's prices are generated. It is asked once per version served
	// (handler_public.go), within HealthTimeout; after an error the version
	// shows apiref.DataUnknown, and is asked again dataRetry later. Nil:
	// every version is DataUnknown. serving.DataFromReports reads it from
	// the reports the store keeps.
	Data func(ctx context.Context, version int64) (string, error)
	// PublicURL is the base URL callers use (no trailing slash), for the
	// docs link and the example request of a 401.
	PublicURL string
	// Docs holds the callers' documentation, api.md and changelog.md, from
	// which GET /docs and the pages below it are rendered at start
	// (handler_docs.go); without it /docs is 404.
	Docs fs.FS
	// Images serves card images; without it every image is 404.
	Images ImageSource
	// SetLogos are the base game's set logos (GET /sets/{set}/image), by
	// TCGplayer group; without it every set image is 404.
	SetLogos *images.SetLogos
	// Health are the dependency checks of /health: database, cache, storage.
	Health []HealthCheck
	// Auth decides whether a request's API key is good and who the caller is
	// (account.Authenticator; tests use accounttest.KeyFormat). Required.
	Auth Authenticator
	// Limiter counts requests in the callers' pools and the guard buckets and
	// gives every answer its X-RateLimit-* headers (ratelimit.go). Nil turns
	// rate limiting off: nothing is counted, no header is sent.
	Limiter ratelimit.Limiter
	// Usage, when set, counts every keyed request the rate-limit step counts,
	// 429s included, per account and hour (ratelimit.go). Nil counts nothing.
	Usage UsageRecorder
	// AccessLog, when set, receives the access log's line of every request
	// instead of Logger (which then logs it as an Info record "request"): a
	// writer made for the one line every request writes (cmd/cardcat formats
	// it like the slog handler it configured, at a fraction of the cost).
	AccessLog func(web.AccessEntry)
	// Changes reads the change feed of GET /{game}/changes from the store,
	// per request; without it that route answers 503.
	Changes ChangeFeed
	// Bulk are the bulk files of each catalogue version (internal/bulk);
	// without it GET /{game}/bulk lists none and a download is 503.
	Bulk BulkFiles
	// History reads the price points of GET /{game}/cards/{id}/history
	// from the store, per request; without it that route answers 503.
	History PriceHistory
	// Metrics, when set, counts every request by route number (metrics.go)
	// and the rate limiter's decisions; nil counts nothing.
	Metrics *metrics.Metrics
	// Alerts answers GET /alerts (internal/alertsapi, surface.go); without
	// it that route answers 503.
	Alerts KeyedSurface
}

// AccessEntry is web.AccessEntry, for the callers that still name it here.
type AccessEntry = web.AccessEntry

// ParseTrustedProxies and ClientGroup are web's, for the callers that still
// name them here.
var (
	ParseTrustedProxies = web.ParseTrustedProxies
	ClientGroup         = web.ClientGroup
)

// HealthCheck is one dependency check of /health.
type HealthCheck struct {
	Name  string // database, cache or storage
	Check func(ctx context.Context) error
	// Critical checks make the whole service unhealthy (503) when they fail;
	// a failing non-critical check is reported but the service stays healthy.
	Critical bool
}

// Server is the HTTP API. Its Handler serves every route.
type Server struct {
	cfg     Config
	deps    Deps
	log     *slog.Logger
	now     func() time.Time
	mux     *router
	handler http.Handler
	table   []route           // routeTable, as the mux serves it
	docs    []apiref.Endpoint // routes as GET / lists them
	served  []servedRoute     // every pattern registered on the mux
	slots   chan struct{}     // the search concurrency limiter
	ids     *web.RequestIDs
	// memoAuth is Deps.Auth when it can remember a connection's key
	// (account.Authenticator), else nil.
	memoAuth memoAuthenticator

	limits limits // the rate-limit step: poolLimits, or noLimits without a Limiter

	routeLabels []metrics.Route // of each route number (metrics.go)
	metrics     *metrics.HTTP   // nil without Deps.Metrics

	keyedCacheControl []string // the Cache-Control of a keyed route's answer (sendReply)

	rootBody    map[apiref.DataSource][]byte // GET /, by the source of the data served
	gamesBody   []byte
	data        dataSources       // the source of the version served, for GET / and /health
	site        *site.Site        // GET /docs and below; nil without Deps.Docs
	ref         *apiref.Reference // the route table as the reference says it
	openapiBody []byte            // GET /openapi.json, rendered once
	mcp         http.Handler      // POST /mcp (internal/mcpserver)
	llmsBody    []byte            // GET /llms.txt, rendered once

	encoded *web.EncodedCache // compressed variants of answers
}

// New returns the API server.
func New(cfg Config, deps Deps) (*Server, error) {
	if deps.View == nil || deps.Games == nil || deps.Auth == nil {
		return nil, errors.New("httpapi: Deps.View, Deps.Games and Deps.Auth are required")
	}
	s := &Server{cfg: cfg.withDefaults(), deps: deps, log: deps.Logger, now: deps.Now}
	s.memoAuth, _ = deps.Auth.(memoAuthenticator)
	s.encoded = web.NewEncodedCache(s.cfg.CompressCacheBytes)
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.limits = noLimits{}
	if deps.Limiter != nil {
		s.limits = newPoolLimits(deps.Limiter, s.cfg.GuardPerHour, s.cfg.TrustedProxies, s.log)
	}
	s.keyedCacheControl = privateNoCache
	if secs := int64(s.cfg.KeyedMaxAge / time.Second); secs > 0 {
		s.keyedCacheControl = []string{"private, max-age=" + strconv.FormatInt(secs, 10)}
	}
	s.slots = make(chan struct{}, s.cfg.SearchConcurrency)
	s.ids = web.NewRequestIDs()
	s.routeLabels = append([]metrics.Route(nil), fixedRoutes[:]...)
	s.table = s.routeTable()
	s.ref = reference(s.table, deps.Games, deps.PublicURL, deps.Version)
	var err error
	s.mcp, err = mcpserver.New(mcpserver.Config{
		Routes: s.ref.Routes, Games: deps.Games, Version: deps.Version, Log: s.log,
		// Late bound: the handler is made below, with /mcp on its mux.
		API: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }),
		WriteError: func(w http.ResponseWriter, r *http.Request, status int, code, message string, header map[string]string) {
			e := newError(status, code, message)
			e.Header = headerOf(header)
			s.writeError(w, r, e)
		},
		RequestID: requestID,
	})
	if err != nil {
		return nil, err
	}
	s.mux = s.routes()
	s.metrics = deps.Metrics.HTTP(s.routeLabels)
	if p, ok := s.limits.(*poolLimits); ok {
		p.metrics = s.metrics
	}
	s.handler = s.compose()
	s.rootBody = map[apiref.DataSource][]byte{}
	for _, source := range apiref.DataSources {
		if s.rootBody[source], err = apiref.Root(s.ref, source); err != nil {
			return nil, err
		}
	}
	if s.gamesBody, err = apiref.Games(s.ref); err != nil {
		return nil, err
	}
	if deps.Docs != nil {
		if s.site, err = site.New(deps.Docs, deps.Version, deps.PublicURL); err != nil {
			return nil, err
		}
	}
	if s.openapiBody, err = apiref.OpenAPI(s.ref); err != nil {
		return nil, err
	}
	s.llmsBody = apiref.LLMs(s.ref)
	return s, nil
}

// Handler returns the handler of the whole API.
func (s *Server) Handler() http.Handler { return s.handler }

// CompressedBytes is the size of the compressed answers kept
// (Config.CompressCacheBytes bounds it), for the memory footprint.
func (s *Server) CompressedBytes() int64 { return int64(s.encoded.Bytes()) }

// chain wraps h in the middlewares, the first outermost.
func chain(h http.Handler, mws ...func(http.Handler) http.Handler) http.Handler {
	for i := len(mws) - 1; i >= 0; i-- {
		h = mws[i](h)
	}
	return h
}

func (s *Server) docsURL() string { return s.deps.PublicURL + "/docs" }
