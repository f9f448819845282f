package httpapi

import (
	"log/slog"
	"net/http"
	"net/netip"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/apiref"
	"github.com/cardcat/cardcat/internal/metrics"
	"github.com/cardcat/cardcat/internal/ratelimit"
	"github.com/cardcat/cardcat/internal/web"
)

// Rate limiting (DECISIONS.md, "Keys, plans, limits"; docs/api.md, "Rate
// limits", has every rule). It is one step of the chain, after the request's
// key is identified (withIdentity) and before a keyed route checks it:
//
//   - keyed routes (the admission step, admission.go): a valid key takes one
//     request from its account's pool, any other request one from its client
//     IP's guard bucket; 429 past either, else on to the key check (401) and
//     the route. A valid key's request with If-None-Match is counted once its
//     reply is known, and not at all when that reply is a 304.
//   - answers given before or instead of routing (405, the 404 of an unknown
//     or non-canonical path) are counted the same way (answerUnrouted).
//   - public routes (GET /, /games, /health, /docs) and CORS preflights are
//     never counted: with a valid key the headers show its pool, without one
//     the Free plan's limits with nothing used (withPublicLimits).
//   - a key the Authenticator could not check (a 500) is not counted; the
//     headers show the client's guard bucket.
//
// The X-RateLimit-* headers are set before the answer is written, so every
// answer has them, a 403 of a paid route and a 500 after a panic included.
// Without a Deps.Limiter the step is noLimits: nothing counted, no headers.
//
// Every request of a valid key that the step counts (or would count, without
// a limiter), its 429s included, is also told to Deps.Usage: the account's
// hourly usage, whatever the limiter backend.

// DefaultGuardPerHour is the guard bucket's hourly quota: requests without a
// valid key per client IP. Its daily quota is 24 times the hourly one.
const DefaultGuardPerHour = 1000

const errRateLimited = apiref.ErrRateLimited

// UsageRecorder counts the requests of valid keys per account (the
// production one is *account.Meter). Record runs on every keyed request:
// it takes the caller's store ids, so that nothing is parsed per request.
type UsageRecorder interface {
	Record(accountRef, keyRef int64, refused bool, at time.Time)
}

// limits is the rate-limit step's counter: poolLimits with a limiter,
// noLimits without one.
type limits interface {
	// take counts the request in the pool it draws on and sets its headers;
	// refused when the pool is exhausted (nothing counted; res says how), and
	// guard when the pool was the client's guard bucket.
	take(w http.ResponseWriter, r *http.Request, st *requestState) (res ratelimit.Result, refused, guard bool)
	// show sets the headers of the request's pool without counting.
	show(w http.ResponseWriter, r *http.Request, st *requestState)
}

// noLimits counts nothing and sends no header.
type noLimits struct{}

func (noLimits) take(http.ResponseWriter, *http.Request, *requestState) (ratelimit.Result, bool, bool) {
	return ratelimit.Result{}, false, false
}
func (noLimits) show(http.ResponseWriter, *http.Request, *requestState) {}

// answerUnrouted writes an answer given before or instead of a route (405,
// 404), counted like a keyed route's: the 429 instead once the pool is
// exhausted.
func (s *Server) answerUnrouted(w http.ResponseWriter, r *http.Request, answer error) {
	if s.take(w, r) {
		s.writeError(w, r, answer)
	}
}

// withPublicLimits gives a public route's answer its pool's headers, counting
// nothing and refusing nothing.
func (s *Server) withPublicLimits(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.limits.show(w, r, stateOf(r.Context()))
		next.ServeHTTP(w, r)
	})
}

// take counts the request; false when it was refused with a 429, written.
func (s *Server) take(w http.ResponseWriter, r *http.Request) bool {
	st := stateOf(r.Context())
	res, refused, guard := s.count(w, r, st)
	if !refused {
		return true
	}
	s.writeTooMany(w, r, st, &res, guard)
	return false
}

// count takes the request from its pool and sets the headers, and tells a
// valid key's request to Deps.Usage; refused (nothing counted) when the pool
// is exhausted.
func (s *Server) count(w http.ResponseWriter, r *http.Request, st *requestState) (res ratelimit.Result, refused, guard bool) {
	res, refused, guard = s.limits.take(w, r, st)
	if st.key == keyValid && s.deps.Usage != nil {
		s.deps.Usage.Record(st.caller.AccountRef, st.caller.KeyRef, refused, st.start)
	}
	return res, refused, guard
}

// poolLimits counts in a ratelimit.Limiter: a valid key's requests in its
// account's pool, others in the guard bucket of their client IP.
type poolLimits struct {
	limiter     ratelimit.Limiter
	free        ratelimit.Limits // the Free plan's, shown to a request without a valid key that is not counted
	limitValues limitCache       // X-RateLimit-* values of the limits seen
	guard       ratelimit.Limits // of each client IP's guard bucket
	clients     web.Clients      // who a request without a valid key is
	log         *slog.Logger
	metrics     *metrics.HTTP // the decisions; nil counts none
}

func newPoolLimits(l ratelimit.Limiter, guardPerHour int64, trusted []netip.Prefix, log *slog.Logger) *poolLimits {
	return &poolLimits{limiter: l, free: account.FreeLimits(), guard: ratelimit.Limits{Hour: guardPerHour, Day: 24 * guardPerHour},
		clients: web.NewClients(trusted), log: log}
}

func (p *poolLimits) take(w http.ResponseWriter, r *http.Request, st *requestState) (ratelimit.Result, bool, bool) {
	switch st.key {
	case keyValid:
		res, refused := p.count(w, r, st, st.caller.Pool, st.caller.Limits, false)
		return res, refused, false
	case keyFailed:
		p.peek(w, r, st, p.guardPool(r), p.guard)
		return ratelimit.Result{}, false, false
	default:
		res, refused := p.count(w, r, st, p.guardPool(r), p.guard, true)
		return res, refused, true
	}
}

func (p *poolLimits) show(w http.ResponseWriter, r *http.Request, st *requestState) {
	if st.key != keyValid {
		p.setFreeHeaders(w)
		return
	}
	p.peek(w, r, st, st.caller.Pool, st.caller.Limits)
}

// count takes one request from pool (the client's guard bucket when
// guard) and sets the headers; refused when the pool is exhausted.
func (p *poolLimits) count(w http.ResponseWriter, r *http.Request, st *requestState, pool string, lim ratelimit.Limits, guard bool) (res ratelimit.Result, refused bool) {
	res, err := p.limiter.Take(r.Context(), pool, lim, st.start)
	if err != nil {
		// Fail open: a limiter fault must not take the API down with it.
		p.failed(r, err)
		p.setUnknownHeaders(w, st, lim)
		p.metrics.RateLimit(guard, metrics.Unchecked)
		return res, false
	}
	p.setLimitHeaders(w, st, &res)
	if res.Allowed {
		p.metrics.RateLimit(guard, metrics.Admitted)
	} else {
		p.metrics.RateLimit(guard, metrics.Refused)
	}
	return res, !res.Allowed
}

// peek sets pool's headers without counting.
func (p *poolLimits) peek(w http.ResponseWriter, r *http.Request, st *requestState, pool string, lim ratelimit.Limits) {
	res, err := p.limiter.Peek(r.Context(), pool, lim, st.start)
	if err != nil {
		p.failed(r, err)
		p.setUnknownHeaders(w, st, lim)
		return
	}
	p.setLimitHeaders(w, st, &res)
}

func (p *poolLimits) failed(r *http.Request, err error) {
	level := slog.LevelError
	if r.Context().Err() != nil {
		level = slog.LevelDebug // the client went away; nobody waits for the answer
	}
	p.log.LogAttrs(r.Context(), level, "rate limiter failed; request served without counting",
		slog.String("request_id", requestID(r.Context())), slog.Any("error", err))
}

// setFreeHeaders writes the Free plan's limits with nothing used: the
// limits' own values, made once (limitCache).
func (p *poolLimits) setFreeHeaders(w http.ResponseWriter) {
	hour, day := p.limitValues.values(p.free.Hour, p.free.Day)
	web.SetField(w, web.FieldXRatelimitLimitHour, hour)
	web.SetField(w, web.FieldXRatelimitRemainingHour, hour)
	web.SetField(w, web.FieldXRatelimitLimitDay, day)
	web.SetField(w, web.FieldXRatelimitRemainingDay, day)
}

// setLimitHeaders writes the four X-RateLimit-* headers of res. The limits'
// values are the pool's plan's, made once (limitCache); the remaining
// counts are cut out of one string, and their header slices point into the
// request state: one small allocation per request.
func (p *poolLimits) setLimitHeaders(w http.ResponseWriter, st *requestState, res *ratelimit.Result) {
	hourLimit, dayLimit := p.limitValues.values(res.Hour.Limit, res.Day.Limit)
	var buf [2 * 20]byte
	b := strconv.AppendInt(buf[:0], res.Hour.Remaining, 10)
	e := len(b)
	b = strconv.AppendInt(b, res.Day.Remaining, 10)
	all := string(b)
	st.remaining = [2]string{all[:e], all[e:]}
	web.SetField(w, web.FieldXRatelimitLimitHour, hourLimit)
	web.SetField(w, web.FieldXRatelimitRemainingHour, st.remaining[0:1:1])
	web.SetField(w, web.FieldXRatelimitLimitDay, dayLimit)
	web.SetField(w, web.FieldXRatelimitRemainingDay, st.remaining[1:2:2])
}

// limitCache keeps the X-RateLimit-Limit-* header values of the few limits
// pools have (a plan's, the guard bucket's), each made once and shared by
// every answer (never changed): formatting them per request was a fifth
// of the limit headers' cost. An immutable list, copied when a pair is
// added, up to maxCachedLimits pairs; limits past those (accounts with
// limits of their own) are formatted per request.
type limitCache struct {
	list atomic.Pointer[[]limitValues]
}

type limitValues struct {
	hour, day         int64
	hourVals, dayVals []string
}

const maxCachedLimits = 32

// values returns the header values of the limits hour and day.
func (c *limitCache) values(hour, day int64) (hourVals, dayVals []string) {
	old := c.list.Load()
	if old != nil {
		for i := range *old {
			if v := &(*old)[i]; v.hour == hour && v.day == day {
				return v.hourVals, v.dayVals
			}
		}
	}
	v := limitValues{hour: hour, day: day,
		hourVals: []string{strconv.FormatInt(hour, 10)}, dayVals: []string{strconv.FormatInt(day, 10)}}
	if old == nil || len(*old) < maxCachedLimits {
		var list []limitValues
		if old != nil {
			list = append(list, *old...)
		}
		list = append(list, v)
		c.list.CompareAndSwap(old, &list) // lost to another: this pair is added on a later call
	}
	return v.hourVals, v.dayVals
}

// setUnknownHeaders shows lim with nothing used: the limiter failed and the
// request was served without counting.
func (p *poolLimits) setUnknownHeaders(w http.ResponseWriter, st *requestState, lim ratelimit.Limits) {
	p.setLimitHeaders(w, st, &ratelimit.Result{
		Hour: ratelimit.Window{Limit: lim.Hour, Remaining: max(lim.Hour, 0)},
		Day:  ratelimit.Window{Limit: lim.Day, Remaining: max(lim.Day, 0)},
	})
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

// appendJSON appends the limits as json.Marshal writes them.
func (l *limitsBody) appendJSON(b []byte) []byte {
	b = append(b, `{"hourly":`...)
	b = l.Hourly.appendJSON(b)
	b = append(b, `,"daily":`...)
	b = l.Daily.appendJSON(b)
	return append(b, '}')
}

func (w *windowBody) appendJSON(b []byte) []byte {
	b = append(b, `{"limit":`...)
	b = strconv.AppendInt(b, w.Limit, 10)
	b = append(b, `,"used":`...)
	b = strconv.AppendInt(b, w.Used, 10)
	b = append(b, `,"remaining":`...)
	b = strconv.AppendInt(b, w.Remaining, 10)
	return append(b, '}')
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
	web.SetField(w, web.FieldRetryAfter, st.retryAfter[:])
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

// guardPool is the guard bucket of the request's client (web.Clients.Group).
func (p *poolLimits) guardPool(r *http.Request) string {
	var b [64]byte
	return string(p.clients.AppendGroup(append(b[:0], "ip:"...), r))
}
