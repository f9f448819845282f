package httpapi

import (
	"maps"
	"net/http"
	"sync"

	"github.com/cardcat/cardcat/internal/etag"
)

// Revalidation (DECISIONS.md, "Beyond the spec (wave 2)"; docs/api.md,
// "Caching and revalidation"). Every 200 JSON answer of a keyed route carries
// a strong ETag, etag.Of of its bytes: the same on every replica and after a
// restart. A request whose If-None-Match names the tag of the answer it would
// get is answered 304 without a body; it still needs a valid key, and it is
// never counted: it is answered even when the pool is exhausted, its
// X-RateLimit-* headers showing the pool as it stands.
//
// Whether an answer is a 304 is known only once the handler has its body,
// after the rate-limit step has run. So for a valid key with If-None-Match
// (and only then: every other request is counted up front, as before) the
// count waits for the answer's status: keyedWriter.WriteHeader peeks at the
// pool for a 304, takes from it for any other status, and when the pool
// refuses, answers the 429 in place of the handler's answer, which is
// dropped. The order of the checks is otherwise unchanged: no key or a bad
// one is counted in the guard bucket and gets its 401; a paid route without
// paid access gets its 403 (counted) before its handler can answer a 304.
// The price of deciding after the handler: a request with If-None-Match on an
// exhausted pool runs its handler before its 429 (most bodies are ready-made
// per catalogue version; a search is computed, within the search limits).
//
// Public routes carry no ETag (GET /docs has its own): they are never
// counted, so a 304 there would save bytes, not quota.

// keyedWriter is the ResponseWriter of a keyed route's handler. It lives in
// the request's state, so wrapping allocates nothing.
type keyedWriter struct {
	http.ResponseWriter
	s  *Server
	r  *http.Request
	st *requestState

	noneMatch []string       // the request's If-None-Match field values
	deferred  bool           // the count waits for the answer's status
	dropped   bool           // the pool refused the answer: the handler's writes go nowhere
	before    *beforeHeaders // the headers before the handler, restored for a 429
}

// beforeHeaders are a request's headers before its handler: their names and
// value slices (set whole, never written in place), noted without copying
// the map; m holds a copy when there are more than fit. Pooled, so that
// neither a revalidation nor the requestState of every request pays for it.
type beforeHeaders struct {
	fields [8]headerField
	n      int
	m      http.Header
}

type headerField struct {
	name   string
	values []string
}

var beforePool = sync.Pool{New: func() any { return new(beforeHeaders) }}

// keepBefore notes the headers set so far (before the handler).
func (w *keyedWriter) keepBefore(h http.Header) {
	b := beforePool.Get().(*beforeHeaders)
	w.before = b
	if len(h) > len(b.fields) {
		b.m = h.Clone()
		return
	}
	for name, values := range h {
		b.fields[b.n] = headerField{name, values}
		b.n++
	}
}

// restoreBefore makes h the headers noted by keepBefore.
func (w *keyedWriter) restoreBefore(h http.Header) {
	clear(h)
	b := w.before
	if b.m != nil {
		maps.Copy(h, b.m)
		return
	}
	for _, f := range b.fields[:b.n] {
		h[f.name] = f.values
	}
}

// done settles a deferred count the handler never made (a panic, a client
// gone: counted as an answer, like any request counted up front) and gives
// the noted headers back to the pool.
func (w *keyedWriter) done() {
	w.settle(0)
	if b := w.before; b != nil {
		w.before = nil
		*b = beforeHeaders{}
		beforePool.Put(b)
	}
}

// withRateLimit counts a keyed route's request (429 past its pool's limit)
// and gives its handler the keyedWriter that tags its 200s: up front, or,
// for a valid key with If-None-Match, once the answer's status is known.
func (s *Server) withRateLimit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := stateOf(r.Context())
		kw := &st.writer
		*kw = keyedWriter{ResponseWriter: w, s: s, r: r, st: st}
		if inm := r.Header["If-None-Match"]; len(inm) > 0 && st.key == keyValid {
			kw.noneMatch, kw.deferred = inm, true
			kw.keepBefore(w.Header())
			defer kw.done()
		} else if !s.admit(w, r) {
			return
		}
		next.ServeHTTP(kw, r)
	})
}

// notModified gives a 200 answer its ETag, and answers 304 instead when the
// request's If-None-Match names it.
func (w *keyedWriter) notModified(tag string) bool {
	w.st.etag[0] = tag
	w.Header()["Etag"] = w.st.etag[:]
	if len(w.noneMatch) == 0 || !etag.NoneMatch(w.noneMatch, tag) {
		return false
	}
	w.WriteHeader(http.StatusNotModified)
	return true
}

func (w *keyedWriter) WriteHeader(code int) {
	if w.deferred && !w.settle(code) {
		return
	}
	if !w.dropped {
		w.ResponseWriter.WriteHeader(code)
	}
}

func (w *keyedWriter) Write(b []byte) (int, error) {
	if w.deferred {
		w.WriteHeader(http.StatusOK)
	}
	if w.dropped {
		return len(b), nil
	}
	return w.ResponseWriter.Write(b)
}

func (w *keyedWriter) WriteString(str string) (int, error) {
	if w.deferred {
		w.WriteHeader(http.StatusOK)
	}
	if w.dropped {
		return len(str), nil
	}
	return w.ResponseWriter.(interface{ WriteString(string) (int, error) }).WriteString(str)
}

func (w *keyedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// settle makes the deferred count once the answer's status is known: a 304
// is shown the pool, anything else takes from it. False when the pool
// refused: the 429 is written in place of the answer, whose writes are then
// dropped. Status 0 is an answer the handler never wrote.
func (w *keyedWriter) settle(code int) bool {
	if !w.deferred {
		return true
	}
	w.deferred = false
	if code == http.StatusNotModified {
		w.s.limits.show(w.ResponseWriter, w.r, w.st)
		return true
	}
	res, refused, guard := w.s.count(w.ResponseWriter, w.r, w.st)
	if !refused {
		return true
	}
	w.dropped = true
	if code == 0 {
		return false
	}
	// The 429 keeps the headers every answer has and the pool's, not the
	// answer's (its ETag, Content-Type, Cache-Control).
	h := w.Header()
	names := [...]string{hdrLimitHour, hdrRemainingHour, hdrLimitDay, hdrRemainingDay}
	var limit [len(names)][]string
	for i, name := range names {
		limit[i] = h[name]
	}
	w.restoreBefore(h)
	for i, name := range names {
		if limit[i] != nil {
			h[name] = limit[i]
		}
	}
	w.s.writeTooMany(w.ResponseWriter, w.r, w.st, &res, guard)
	return false
}
