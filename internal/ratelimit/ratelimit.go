// Package ratelimit counts requests against an hourly and a daily quota per
// pool, in fixed UTC calendar windows. It defines the Limiter interface; the
// in-process implementation lives in ratelimit/memory, the one shared by many
// replicas in ratelimit/redis, and both pass the suite in ratelimit/limitertest.
//
// A pool is whatever the caller keys it by: an account (so that all of its keys,
// both games and every route draw on one quota) or a client IP for requests
// without a valid key. The limiter does not know plans: the caller passes the
// pool's Limits on every call, so a plan change applies to the very next request.
package ratelimit

import (
	"context"
	"errors"
	"time"
)

// ErrClosed is returned by a Limiter used after Close.
var ErrClosed = errors.New("ratelimit: limiter closed")

// Limits are the quotas of one pool. A quota of zero or less admits nothing.
type Limits struct {
	Hour int64
	Day  int64
}

// Admits reports whether a pool that has used hourUsed and dayUsed in the
// current windows may take one more request. Every backend decides with this
// rule (the Redis script repeats it in Lua), so that they cannot drift apart.
func (l Limits) Admits(hourUsed, dayUsed int64) bool {
	return hourUsed < l.Hour && dayUsed < l.Day
}

// Window is the state of one quota window as the API reports it in the
// X-RateLimit-* headers and the 429 body.
type Window struct {
	Limit int64
	// Used can exceed Limit after the limit was lowered (a plan downgrade): the
	// requests really were served, and reporting them keeps the 429 body honest.
	Used      int64
	Remaining int64     // never negative
	Reset     time.Time // end of the window, UTC
}

// Result is the answer of a Take or Peek.
type Result struct {
	Allowed bool
	Hour    Window
	Day     Window
	// RetryAfter is the time from now to the end of the exhausted window, the
	// later one when both are exhausted, because only then does a request get
	// through again. It is zero when Allowed.
	RetryAfter time.Duration
}

// Limiter counts requests per pool.
//
// Implementations are safe for concurrent use. now is passed in rather than
// read from a clock so that callers (and tests) decide which window a request
// falls in; pass time.Now() in production.
type Limiter interface {
	// Take counts one request of the pool key at now when both windows have
	// room, and reports the windows after it. When either window is exhausted
	// nothing is counted (a 429 does not count) and Allowed is false.
	Take(ctx context.Context, key string, lim Limits, now time.Time) (Result, error)
	// Peek reports the windows without counting; Allowed says whether a Take
	// at now would be admitted.
	Peek(ctx context.Context, key string, lim Limits, now time.Time) (Result, error)
	// Refund gives back up to n requests counted for the pool key in the
	// windows of now, never below zero: a caller that must count before it
	// knows whether a request should count (the portal's login throttle
	// counts every attempt before checking its password, and gives back the
	// ones that succeed) passes the now of its Take. n of math.MaxInt64
	// clears the pool's windows. Counts of windows other than now's are left
	// alone.
	Refund(ctx context.Context, key string, n int64, now time.Time) error
	// Close releases the limiter's resources and, where it keeps state, saves it.
	Close() error
}

// HealthChecker is implemented by limiters whose backing store can fail, so
// that /health can report it (the "cache" check) without knowing the backend.
type HealthChecker interface {
	Healthy(ctx context.Context) error
}

// NewResult builds the Result of a pool that has used hourUsed and dayUsed in
// the windows of p, as seen at now. allowed is passed in rather than derived
// because after an admitted Take the windows may be exhausted yet the request
// itself was allowed.
func NewResult(lim Limits, p Period, hourUsed, dayUsed int64, allowed bool, now time.Time) Result {
	r := Result{
		Allowed: allowed,
		Hour:    newWindow(lim.Hour, hourUsed, p.HourEnd()),
		Day:     newWindow(lim.Day, dayUsed, p.DayEnd()),
	}
	if allowed {
		return r
	}
	var until time.Time
	if r.Hour.Remaining == 0 {
		until = r.Hour.Reset
	}
	if r.Day.Remaining == 0 && r.Day.Reset.After(until) {
		until = r.Day.Reset
	}
	if until.After(now) {
		r.RetryAfter = until.Sub(now)
	}
	return r
}

func newWindow(limit, used int64, reset time.Time) Window {
	return Window{Limit: limit, Used: used, Remaining: max(limit-used, 0), Reset: reset}
}
