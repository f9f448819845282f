package httpapi

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/web"
)

// The chain's steps (compose.go puts them in order): the request (its id,
// the headers every answer has, its state, its access log line); panic
// recovery; the caller's identity (auth.go); the method check (405, CORS
// preflight); the path check (trailing slash, repeated slashes). Then the
// routes (routes.go), where keyed routes pass the admission step
// (admission.go).

type ctxKey int

const stateKey ctxKey = 0

// requestState is what the middlewares learn about a request, in one place
// its context leads to (its connection's request object, or one of its own:
// connRequest), not a context per fact.
// The arrays back header values, so that setting them allocates no slice.
type requestState struct {
	id       string
	idHeader [1]string // the X-Request-Id header's value slice, without its own allocation
	// start is when the request arrived: the rate-limit windows it counts in
	// and the access log's duration are taken from it (one clock read).
	start time.Time

	key     keyState         // what the request's key turned out to be (withIdentity)
	keyMemo *account.KeyMemo // the connection's memory of its key; nil for a request with an object of its own
	caller  account.Caller   // of a valid key
	authErr error            // the Authenticator's failure (key == keyFailed)

	remaining  [2]string // X-RateLimit-Remaining-* values
	retryAfter [1]string // Retry-After of a 429
	etag       [1]string // ETag of a keyed route's 200 or 304

	route int // the route number it reached (metrics.go); routeUnmatched until then

	pathValues  [maxPathValues]pathParam // the path's wildcards, when the router's tree matched it (pathValue)
	nPathValues int
	query       url.Values // the parsed query, once queryOf parsed it
}

func stateOf(ctx context.Context) *requestState {
	st, _ := ctx.Value(stateKey).(*requestState)
	return st
}

// queryOf is r.URL.Query(), parsed once per request (a set page's paging
// and its set's language both read it).
func queryOf(r *http.Request) url.Values {
	st := stateOf(r.Context())
	if st == nil {
		return r.URL.Query()
	}
	if st.query == nil {
		st.query = r.URL.Query()
	}
	return st.query
}

// requestID returns the request's id ("" outside a request).
func requestID(ctx context.Context) string {
	if st := stateOf(ctx); st != nil {
		return st.id
	}
	return ""
}

var (
	corsOrigin = []string{"*"}
	// corsExposed names every response header the OpenAPI document names, so
	// that a page can read them (TestCORSExposesDocumentedHeaders); listed
	// rather than "*", which older browsers do not know.
	corsExposed = []string{"X-RateLimit-Limit-Hour, X-RateLimit-Remaining-Hour, X-RateLimit-Limit-Day, " +
		"X-RateLimit-Remaining-Day, Retry-After, ETag, X-Request-Id, Content-Encoding, Vary, Content-Disposition, " +
		"Last-Modified, Accept-Ranges, Content-Range, X-Image-Size, WWW-Authenticate, Allow, Deprecation, Sunset, Link"}
	// privateNoCache is a keyed answer's (sendReply) without
	// Config.KeyedMaxAge: for one account (its X-RateLimit-* headers say so),
	// never for a shared cache; the caller's own cache may keep it but must
	// ask again before reusing it.
	privateNoCache = []string{"private, no-cache"}
	// noStore is every error answer's (writeError): a 429, 401 or 503 kept
	// by any cache would outlive its cause.
	noStore = []string{"no-store"}
)

// request is what the chain keeps of one request, in one object: the
// request's state, the context that carries it (when it is not its
// connection's: connRequest), and the recorder of its answer for the access
// log.
type request struct {
	context.Context // the request's own, when the request has an object of its own
	st              requestState
	rec             web.Response
}

// Value gives the request state to stateOf, everything else to the
// request's own context.
func (c *request) Value(key any) any {
	if key == stateKey {
		return &c.st
	}
	return c.Context.Value(key)
}

// connKey finds a connection's connRequest in a request's context.
const connKey ctxKey = 1

// connRequest is a connection's request object, reused by each request the
// connection carries: HTTP/1.x serves them one after the other. A request
// then needs neither an object of its own nor a copy of its *http.Request
// to carry it (r.WithContext), which were 640 of a card detail's 888 bytes
// allocated (bench/README.md, "The request object of a connection").
//
// Its state is the request's only while active: a context kept past its
// request (context.WithoutCancel in a goroutine left running) reads no state
// once the request is answered, and the connection's next request's while
// that one runs, so whatever outlives a request copies what it needs of the
// state first. MCP's SDK runs its session in goroutines of its own: /mcp
// requests get objects of their own (withRequest).
type connRequest struct {
	context.Context // the connection's
	req             request
	keys            account.KeyMemo // the key the connection's requests sent, for withIdentity
	conn            net.Conn        // for web.Response.SendsOn
	// active is atomic so that a kept context's read never races with the
	// connection's next request.
	active atomic.Bool
}

// Value gives the request state of the active request to stateOf, the
// connRequest to withRequest, everything else to the connection's context.
func (c *connRequest) Value(key any) any {
	switch key {
	case stateKey:
		if c.active.Load() {
			return &c.req.st
		}
		return nil
	case connKey:
		return c
	}
	return c.Context.Value(key)
}

// ConnContext is the http.Server's ConnContext of a server whose handler
// is the API's: each connection gets the request object its requests reuse.
func (s *Server) ConnContext(ctx context.Context, c net.Conn) context.Context {
	return &connRequest{Context: ctx, conn: c}
}

// requestObject returns the request object of r: its connection's, made ready
// for it, when the connection has one free (a server without ConnContext,
// HTTP/2 and /mcp never do), else a new one, which r is then copied to
// carry.
func requestObject(r *http.Request) (*request, *connRequest, *http.Request) {
	if cr, ok := r.Context().Value(connKey).(*connRequest); ok && !cr.active.Load() && r.ProtoMajor == 1 && !isMCPPath(r.URL.Path) {
		cr.req = request{}
		cr.req.st.keyMemo = &cr.keys
		cr.active.Store(true)
		return &cr.req, cr, r
	}
	c := &request{Context: r.Context()}
	return c, nil, r.WithContext(c)
}

// withRequest starts every request: the headers every answer has
// (web.StartHeaders) and the CORS headers, so that every answer has them
// (5xx and panics included), its state, and after the answer its access log
// line.
func (s *Server) withRequest(next http.Handler) http.Handler {
	https := web.IsHTTPS(s.deps.PublicURL)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, cr, r := requestObject(r)
		if cr != nil {
			defer cr.active.Store(false)
		}
		st := &c.st
		st.start = s.now()
		st.id = r.Header.Get("X-Request-Id")
		if !web.ValidRequestID(st.id) {
			st.id = s.ids.Next()
		}
		st.idHeader[0] = st.id
		rec := &c.rec
		rec.Reset(w, r.Header["Accept-Encoding"], s.encoded)
		if cr != nil {
			rec.SendsOn(cr.conn, r)
		}
		web.StartHeaders(rec, r, st.idHeader[:], https)
		web.SetField(rec, web.FieldAccessControlAllowOrigin, corsOrigin)
		web.SetField(rec, web.FieldAccessControlExposeHeaders, corsExposed)
		next.ServeHTTP(rec, r)
		var end time.Time // one clock read for the metrics and the access log
		if s.metrics != nil || s.deps.AccessLog != nil {
			end = s.now()
		}
		if s.metrics != nil {
			s.metrics.Request(st.route, r.Method, rec.Status, end.Sub(st.start))
		}
		s.logAccess(r, c, end)
	})
}

// logAccess writes the access log's line of a request, whose answer ended
// at end (read when Deps.AccessLog is set): to Deps.AccessLog, or as an
// Info record "request" of the Logger.
func (s *Server) logAccess(r *http.Request, c *request, end time.Time) {
	e := web.EntryOf(r, c.st.id, &c.rec)
	if c.st.key == keyValid {
		e.Account = c.st.caller.AccountID // the account, never the key
	}
	if s.deps.AccessLog != nil {
		e.Time = end
		e.Duration = e.Time.Sub(c.st.start)
		s.deps.AccessLog(e) // by value: an entry on the heap per request would be garbage to collect
		return
	}
	if !s.log.Enabled(r.Context(), slog.LevelInfo) {
		return
	}
	s.log.LogAttrs(r.Context(), slog.LevelInfo, "request", e.Attrs(s.now().Sub(c.st.start))...)
}

// withRecover turns a panic into a logged 500.
func (s *Server) withRecover(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler {
				panic(v)
			}
			id := requestID(r.Context())
			web.LogPanic(s.log, r, id, v)
			if rec := web.ResponseOf(w); rec != nil && rec.Written() {
				return // too late for an error answer; the client sees a cut response
			}
			web.SetField(w, web.FieldCacheControl, noStore)
			writeJSON(w, http.StatusInternalServerError, internalError(id).Body)
		}()
		next.ServeHTTP(w, r)
	})
}

// withGETOnly answers CORS preflights and refuses every method but GET,
// except on the MCP endpoint (mcp.go), JSON-RPC over POST, which checks its
// method itself, after the key.
func (s *Server) withGETOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		preflight := r.Method == http.MethodOptions && r.Header.Get("Origin") != "" && r.Header.Get("Access-Control-Request-Method") != ""
		if isMCPPath(r.URL.Path) {
			if preflight {
				stateOf(r.Context()).route = routePreflight
				s.preflight(w, r, http.MethodPost, "X-API-Key, Authorization, Content-Type, Accept, X-Request-Id, Mcp-Protocol-Version")
				return
			}
			next.ServeHTTP(w, r)
			return
		}
		if r.Method == http.MethodGet {
			next.ServeHTTP(w, r)
			return
		}
		if preflight {
			stateOf(r.Context()).route = routePreflight
			s.preflight(w, r, http.MethodGet, "X-API-Key, Authorization, Content-Type, X-Request-Id")
			return
		}
		stateOf(r.Context()).route = routeMethodNotAllowed
		e := newError(http.StatusMethodNotAllowed, errMethodNotAllowed,
			"This API is read-only and answers GET only; "+r.Method+" is not allowed.")
		e.Header = allowGET
		s.answerUnrouted(w, r, e)
	})
}

// allowGET is every 405's Allow.
var allowGET = http.Header{"Allow": {http.MethodGet}}

// preflight answers a CORS preflight, never counted.
func (s *Server) preflight(w http.ResponseWriter, r *http.Request, methods, headers string) {
	s.limits.show(w, r, stateOf(r.Context()))
	h := w.Header()
	h.Set("Access-Control-Allow-Methods", methods)
	h.Set("Access-Control-Allow-Headers", headers)
	h.Set("Access-Control-Max-Age", "86400")
	w.WriteHeader(http.StatusNoContent)
}

// withPathCheck ignores one trailing slash and refuses, with a 404 that
// names the clean path, paths that are not in canonical form (repeated
// slashes, "." or ".." segments), which ServeMux would otherwise redirect.
func (s *Server) withPathCheck(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		if len(p) > 1 && p[len(p)-1] == '/' && p[len(p)-2] != '/' {
			r2 := new(http.Request)
			*r2 = *r
			u := *r.URL
			u.Path = p[:len(p)-1]
			u.RawPath = strings.TrimSuffix(u.RawPath, "/")
			r2.URL = &u
			r = r2
			p = u.Path
		}
		if !web.CanonicalPath(p) {
			s.answerUnrouted(w, r, s.endpointNotFound(r))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// elapsedMillis returns d in milliseconds, rounded to 0.01 ms.
func elapsedMillis(d time.Duration) float64 {
	return float64(d.Round(10*time.Microsecond).Microseconds()) / 1000
}
