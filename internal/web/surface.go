package web

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"time"
)

// Surface is the chain of a surface served beside the API (the account
// portal): what every answer of the server has, without the API's CORS
// headers, key, limits or counting. The API's own chain (httpapi) does the
// same and more.
type Surface struct {
	Now   func() time.Time // time.Now when nil
	IDs   *RequestIDs      // makes the ids of requests that bring none (a new one when nil)
	HTTPS bool             // callers reach the server over https: Strict-Transport-Security
	Log   *slog.Logger     // panics, and the access line as an Info record "request" without AccessLog
	// AccessLog, when set, receives the access log's line of every request.
	AccessLog func(AccessEntry)
	// Metrics, when set, is told every answer.
	Metrics func(method string, status int, d time.Duration)
}

type surfaceIDKey struct{}

// SurfaceRequestID is the id Surface gave the request ctx is of ("" when
// none).
func SurfaceRequestID(ctx context.Context) string {
	id, _ := ctx.Value(surfaceIDKey{}).(string)
	return id
}

// Wrap returns next behind the surface's chain: the request id
// (X-Request-Id, the caller's when it is plain, else a new one), nosniff,
// Strict-Transport-Security over https, the access log line and the
// metrics after the answer, and a panic answered 500 with its id (logged
// with its stack).
func (c *Surface) Wrap(next http.Handler) http.Handler {
	now := c.Now
	if now == nil {
		now = time.Now
	}
	ids := c.IDs
	if ids == nil {
		ids = NewRequestIDs()
	}
	log := c.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := now()
		id := r.Header.Get("X-Request-Id")
		if !ValidRequestID(id) {
			id = ids.Next()
		}
		rec := &Response{}
		rec.Reset(w, nil, nil)
		StartHeaders(rec, r, []string{id}, c.HTTPS)
		r = r.WithContext(context.WithValue(r.Context(), surfaceIDKey{}, id))
		func() {
			defer c.recover(rec, r, id, log)
			next.ServeHTTP(rec, r)
		}()
		end := now()
		if c.Metrics != nil {
			c.Metrics(r.Method, rec.Status, end.Sub(start))
		}
		e := EntryOf(r, id, rec)
		e.Time, e.Duration = end, end.Sub(start)
		if c.AccessLog != nil {
			c.AccessLog(e)
			return
		}
		log.LogAttrs(r.Context(), slog.LevelInfo, "request", e.Attrs(e.Duration)...)
	})
}

// recover turns a panic of the handler into a logged 500.
func (c *Surface) recover(rec *Response, r *http.Request, id string, log *slog.Logger) {
	v := recover()
	if v == nil {
		return
	}
	if v == http.ErrAbortHandler {
		panic(v)
	}
	LogPanic(log, r, id, v)
	if rec.Written() {
		return // too late for an error answer; the client sees a cut response
	}
	h := rec.Header()
	h["Cache-Control"] = []string{"no-store"}
	h["Content-Type"] = []string{"text/plain; charset=utf-8"}
	rec.WriteHeader(http.StatusInternalServerError)
	rec.WriteString("The server failed to answer this request; it has been logged (request id " + id + "). Please try again later.\n")
}

// Mount serves the paths under prefix ("/account": itself and below) with
// surface and every other path with rest. It is a prefix test, not a
// ServeMux: rest sees every path as it was sent (the API answers unclean
// paths itself).
func Mount(prefix string, surface, rest http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := r.URL.Path; p == prefix || strings.HasPrefix(p, prefix+"/") {
			surface.ServeHTTP(w, r)
			return
		}
		rest.ServeHTTP(w, r)
	})
}
