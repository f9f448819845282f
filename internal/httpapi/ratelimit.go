package httpapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/cardcat/cardcat/internal/ratelimit"
)

// Rate limiting (DECISIONS.md, "Keys, plans, limits"; the README, "API behaviour", has every rule).
//
// Each request is metered at most once, where the chain learns what it is:
//
//   - keyed routes: requireKey, then withRateLimit. A valid key takes one
//     request from its account's pool (429 past it); a request without a
//     valid key takes one from its client IP's guard bucket (429 past it,
//     else the 401).
//   - public routes (GET /, /games, /health) and CORS preflights: never
//     counted. With a valid key the headers show its pool (Peek), without one
//     the Free plan's limits with nothing used.
//   - answers decided before routing or instead of it (405, the 404 of an
//     unknown or non-canonical path): counted like a keyed route, in the
//     account's pool with a valid key, else in the guard bucket.
//
// The X-RateLimit-* headers are set before the answer is written, so every
// answer has them, the 403 of a paid route and a 500 after a panic included.
// A nil Deps.Limiter turns all of it off: nothing counted, no headers.

// The headers, in canonical form (Go's http.Header keys; header names are
// case-insensitive on the wire).
const (
	hdrLimitHour     = "X-Ratelimit-Limit-Hour"
	hdrRemainingHour = "X-Ratelimit-Remaining-Hour"
	hdrLimitDay      = "X-Ratelimit-Limit-Day"
	hdrRemainingDay  = "X-Ratelimit-Remaining-Day"
	hdrRetryAfter    = "Retry-After"
)

// DefaultGuardPerHour is the guard bucket's hourly quota: requests without a
// valid key per client IP. Its daily quota is 24 times the hourly one.
const DefaultGuardPerHour = 1000

const errRateLimited = "Rate limit exceeded"

// limitsOf returns a caller's pool and quotas.
func (s *Server) limitsOf(c *Caller) (string, ratelimit.Limits) {
	pool := c.Pool
	if pool == "" {
		pool = "acct:" + c.AccountID
	}
	lim := c.Limits
	if lim == (ratelimit.Limits{}) {
		lim = s.freeLimits
	}
	return pool, lim
}

// keyState is what a request's key turned out to be.
type keyState uint8

const (
	keyMissing   keyState = iota // no key sent
	keyMalformed                 // not pk_live_/pk_test_ + 32 [A-Za-z0-9]
	keyInvalid                   // well formed, but unknown or revoked
	keyFailed                    // the Authenticator failed (500)
	keyValid
)

// identify resolves the request's key once per request, with the request
// state it is kept in (created when the request did not pass
// withRequest: a middleware tested alone).
func (s *Server) identify(r *http.Request) (*http.Request, *requestState) {
	st := stateOf(r.Context())
	if st == nil {
		st = &requestState{start: s.now()}
		r = r.WithContext(context.WithValue(r.Context(), stateKey, st))
	}
	if st.identified {
		return r, st
	}
	st.identified = true
	key := requestKey(r)
	switch {
	case key == "":
		st.key = keyMissing
	case !WellFormedKey(key):
		st.key = keyMalformed
	default:
		caller, err := s.deps.Auth.Authenticate(r.Context(), key)
		switch {
		case err == nil:
			st.caller, st.hasCaller, st.key = caller, true, keyValid
		case errors.Is(err, ErrInvalidKey):
			st.key = keyInvalid
		default:
			st.key, st.authErr = keyFailed, err
		}
	}
	return r, st
}

// withRateLimit counts a keyed request in its account's pool: 429 past
// either limit. It runs after requireKey, so the caller is known. The
// Deps.RateLimit hook, when set, runs after it.
func (s *Server) withRateLimit(next http.Handler) http.Handler {
	if s.deps.RateLimit != nil {
		next = s.deps.RateLimit(next)
	}
	if s.limiter == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := stateOf(r.Context())
		if st == nil || !st.hasCaller {
			s.writeError(w, r, errors.New("httpapi: rate limit reached without a caller"))
			return
		}
		if s.countCaller(w, r, st) {
			next.ServeHTTP(w, r)
		}
	})
}

// withPublicLimits gives a public route's answer the headers of the
// caller's pool when it sent a valid key, else the Free plan's limits with
// nothing used. Nothing is counted and nothing is refused.
func (s *Server) withPublicLimits(next http.Handler) http.Handler {
	if s.limiter == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r = s.publicLimits(w, r)
		next.ServeHTTP(w, r)
	})
}

func (s *Server) publicLimits(w http.ResponseWriter, r *http.Request) *http.Request {
	if !sendsKey(r) {
		s.setFreeHeaders(w)
		return r
	}
	r, st := s.identify(r)
	if st.key != keyValid {
		s.setFreeHeaders(w)
		return r
	}
	pool, lim := s.limitsOf(&st.caller)
	res, err := s.limiter.Peek(r.Context(), pool, lim, st.start)
	if err != nil {
		s.limiterFailed(r, err)
		s.setUnknownHeaders(w, st, lim)
		return r
	}
	s.setLimitHeaders(w, st, &res)
	return r
}

// withUnroutedCount counts the 404 of a path no route serves: in the
// caller's pool with a valid key, else in the guard bucket. The 404 itself is
// decided before authentication: a caller without a key learns the right
// path (until its guard bucket is exhausted).
func (s *Server) withUnroutedCount(next http.Handler) http.Handler {
	if s.limiter == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r, ok := s.countUnrouted(w, r); ok {
			next.ServeHTTP(w, r)
		}
	})
}

// countUnrouted counts an answer given before or instead of routing (405,
// 404); false when the answer is a 429, already written.
func (s *Server) countUnrouted(w http.ResponseWriter, r *http.Request) (*http.Request, bool) {
	if s.limiter == nil {
		return r, true
	}
	r, st := s.identify(r)
	if st.key == keyValid {
		return r, s.countCaller(w, r, st)
	}
	return r, s.countGuard(w, r, st)
}

// countCaller takes one request from the caller's pool; false when it was
// refused with a 429, already written.
func (s *Server) countCaller(w http.ResponseWriter, r *http.Request, st *requestState) bool {
	pool, lim := s.limitsOf(&st.caller)
	res, err := s.limiter.Take(r.Context(), pool, lim, st.start)
	if err != nil {
		// Fail open: a limiter fault must not take the API down with it.
		s.limiterFailed(r, err)
		s.setUnknownHeaders(w, st, lim)
		return true
	}
	s.setLimitHeaders(w, st, &res)
	if !res.Allowed {
		s.writeTooMany(w, r, st, &res, false)
		return false
	}
	return true
}

// countGuard takes one request from the client IP's guard bucket; false when
// it was refused with a 429, already written.
func (s *Server) countGuard(w http.ResponseWriter, r *http.Request, st *requestState) bool {
	res, err := s.limiter.Take(r.Context(), s.guardPool(r), s.guard, st.start)
	if err != nil {
		s.limiterFailed(r, err)
		s.setUnknownHeaders(w, st, s.guard)
		return true
	}
	s.setLimitHeaders(w, st, &res)
	if !res.Allowed {
		s.writeTooMany(w, r, st, &res, true)
		return false
	}
	return true
}

// peekGuard sets the guard bucket's headers without counting: the answer of
// a request whose key could not be checked (the Authenticator failed).
func (s *Server) peekGuard(w http.ResponseWriter, r *http.Request, st *requestState) {
	res, err := s.limiter.Peek(r.Context(), s.guardPool(r), s.guard, st.start)
	if err != nil {
		s.limiterFailed(r, err)
		s.setUnknownHeaders(w, st, s.guard)
		return
	}
	s.setLimitHeaders(w, st, &res)
}

func (s *Server) limiterFailed(r *http.Request, err error) {
	level := slog.LevelError
	if r.Context().Err() != nil {
		level = slog.LevelDebug // the client went away; nobody waits for the answer
	}
	s.log.LogAttrs(r.Context(), level, "rate limiter failed; request served without counting",
		slog.String("request_id", requestID(r.Context())), slog.Any("error", err))
}

// setLimitHeaders writes the four X-RateLimit-* headers of res. Their
// values are cut out of one string, and the header slices point into the
// request state: one small allocation per request.
func (s *Server) setLimitHeaders(w http.ResponseWriter, st *requestState, res *ratelimit.Result) {
	var buf [4 * 20]byte
	b := strconv.AppendInt(buf[:0], res.Hour.Limit, 10)
	e0 := len(b)
	b = strconv.AppendInt(b, res.Hour.Remaining, 10)
	e1 := len(b)
	b = strconv.AppendInt(b, res.Day.Limit, 10)
	e2 := len(b)
	b = strconv.AppendInt(b, res.Day.Remaining, 10)
	all := string(b)
	st.limitValues = [4]string{all[:e0], all[e0:e1], all[e1:e2], all[e2:]}
	h := w.Header()
	h[hdrLimitHour] = st.limitValues[0:1:1]
	h[hdrRemainingHour] = st.limitValues[1:2:2]
	h[hdrLimitDay] = st.limitValues[2:3:3]
	h[hdrRemainingDay] = st.limitValues[3:4:4]
}

// setUnknownHeaders shows lim with nothing used: the limiter failed and the
// request was served without counting.
func (s *Server) setUnknownHeaders(w http.ResponseWriter, st *requestState, lim ratelimit.Limits) {
	s.setLimitHeaders(w, st, &ratelimit.Result{
		Hour: ratelimit.Window{Limit: lim.Hour, Remaining: max(lim.Hour, 0)},
		Day:  ratelimit.Window{Limit: lim.Day, Remaining: max(lim.Day, 0)},
	})
}

// setFreeHeaders writes the Free plan's limits with nothing used, from
// values made once.
func (s *Server) setFreeHeaders(w http.ResponseWriter) {
	h := w.Header()
	h[hdrLimitHour] = s.freeHeader[0]
	h[hdrRemainingHour] = s.freeHeader[1]
	h[hdrLimitDay] = s.freeHeader[2]
	h[hdrRemainingDay] = s.freeHeader[3]
}

// limitsBody is the "limits" object of a 429.
type limitsBody struct {
	Hourly windowBody `json:"hourly"`
	Daily  windowBody `json:"daily"`
}

type windowBody struct {
	Limit     int64 `json:"limit"`
	Used      int64 `json:"used"`
	Remaining int64 `json:"remaining"`
}

// writeTooMany answers 429 with Retry-After (whole seconds, rounded up, at
// least 1) to the end of the exhausted window.
func (s *Server) writeTooMany(w http.ResponseWriter, r *http.Request, st *requestState, res *ratelimit.Result, guard bool) {
	e := newError(http.StatusTooManyRequests, errRateLimited, tooManyMessage(res, guard))
	e.Body.Limits = &limitsBody{
		Hourly: windowBody{Limit: res.Hour.Limit, Used: res.Hour.Used, Remaining: res.Hour.Remaining},
		Daily:  windowBody{Limit: res.Day.Limit, Used: res.Day.Used, Remaining: res.Day.Remaining},
	}
	st.retryAfter[0] = strconv.FormatInt(retryAfterSeconds(res.RetryAfter), 10)
	w.Header()[hdrRetryAfter] = st.retryAfter[:]
	s.writeError(w, r, e)
}

func retryAfterSeconds(d time.Duration) int64 {
	return max(int64((d+time.Second-1)/time.Second), 1)
}

// tooManyMessage says which limit is exhausted, when it resets and what to do.
func tooManyMessage(res *ratelimit.Result, guard bool) string {
	hour, day := strconv.FormatInt(res.Hour.Limit, 10), strconv.FormatInt(res.Day.Limit, 10)
	var which, quota string
	reset := res.Hour.Reset
	switch hourOut, dayOut := res.Hour.Remaining == 0, res.Day.Remaining == 0; {
	case hourOut && dayOut:
		which, quota, reset = "Hourly and daily rate limits exceeded", hour+" requests per hour and "+day+" per day (UTC)", res.Day.Reset
	case dayOut:
		which, quota, reset = "Daily rate limit exceeded", day+" requests per day (UTC)", res.Day.Reset
	default:
		which, quota = "Hourly rate limit exceeded", hour+" requests per hour (UTC)"
	}
	at := reset.UTC().Format(time.RFC3339)
	if guard {
		return which + " for requests without a valid API key from this address, which may make " + quota +
			". Send a valid key in X-API-Key or Authorization: Bearer, or retry after " + at + " (Retry-After gives the seconds to wait)."
	}
	return which + ": this account may make " + quota + ", shared by all of its keys, both games and every route. Retry after " +
		at + " (Retry-After gives the seconds to wait), or upgrade the plan for higher limits."
}

// guardPool is the guard bucket of the request's client: its IPv4 address,
// or the /64 of its IPv6 address (one subscriber's usual allocation, so that
// rotating addresses within it buys no extra guesses).
func (s *Server) guardPool(r *http.Request) string {
	a := s.clientAddr(r)
	switch {
	case !a.IsValid():
		return "ip:unknown"
	case a.Is4():
		return "ip:" + a.String()
	default:
		p, _ := a.Prefix(64)
		return "ip:" + p.String()
	}
}

// clientAddr is the address the request came from: the peer's, or, when
// the peer is a trusted proxy, the right-most X-Forwarded-For entry that is
// not a trusted proxy itself (entries further left are the client's to
// invent).
func (s *Server) clientAddr(r *http.Request) netip.Addr {
	peer := parseAddr(r.RemoteAddr)
	if len(s.trusted) == 0 || !s.isTrusted(peer) {
		return peer
	}
	addr := peer
	vals := r.Header.Values("X-Forwarded-For")
	for i := len(vals) - 1; i >= 0; i-- {
		list := vals[i]
		for list != "" {
			var hop string
			if j := strings.LastIndexByte(list, ','); j >= 0 {
				hop, list = list[j+1:], list[:j]
			} else {
				hop, list = list, ""
			}
			hop = strings.TrimSpace(hop)
			if hop == "" {
				continue
			}
			a := parseAddr(hop)
			if !a.IsValid() {
				return addr // garbage: the last proxy we trust saw addr
			}
			addr = a
			if !s.isTrusted(a) {
				return a
			}
		}
	}
	return addr
}

func (s *Server) isTrusted(a netip.Addr) bool {
	if !a.IsValid() {
		return false
	}
	for _, p := range s.trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// parseAddr reads "ip", "ip:port" or "[ipv6]:port"; an IPv4-mapped IPv6
// address is its IPv4 address. The zero Addr when it is none of these.
func parseAddr(s string) netip.Addr {
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap().WithZone("")
	}
	if a, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")); err == nil {
		return a.Unmap().WithZone("")
	}
	return netip.Addr{}
}

// ParseTrustedProxies reads a list of CIDRs or single addresses separated
// by commas or spaces ("10.0.0.0/8, 192.0.2.7"), the proxies whose
// X-Forwarded-For the server believes.
func ParseTrustedProxies(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' }) {
		if strings.Contains(f, "/") {
			p, err := netip.ParsePrefix(f)
			if err != nil {
				return nil, fmt.Errorf("trusted proxies: %q is not a CIDR: %w", f, err)
			}
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(f)
		if err != nil {
			return nil, fmt.Errorf("trusted proxies: %q is not an address or CIDR: %w", f, err)
		}
		a = a.Unmap()
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}
