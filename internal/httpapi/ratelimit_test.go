package httpapi

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/ratelimit"
	"github.com/cardcat/cardcat/internal/ratelimit/memory"
	"github.com/cardcat/cardcat/internal/serving"
	"github.com/cardcat/cardcat/internal/web"
)

// Keys of the rate-limit tests. keyA1 and keyA2 belong to one account.
const (
	keyA1     = "pk_test_acct1key100000000000000000000000"
	keyA2     = "pk_test_acct1key200000000000000000000000"
	keyB      = "pk_test_acct2key100000000000000000000000"
	keySmall  = "pk_test_small000000000000000000000000000"
	keyRevoke = "pk_test_revoked0000000000000000000000000"
)

// limitAuth is the test Authenticator of the rate-limit tests: a table of
// callers that a test may change while the server runs (a plan change, a
// revocation), as the account directory's refresh does.
type limitAuth struct {
	mu      sync.Mutex
	callers map[string]account.Caller
	fail    error
}

func newLimitAuth() *limitAuth {
	free := ratelimit.Limits{Hour: 100, Day: 1000}
	return &limitAuth{callers: map[string]account.Caller{
		keyA1:     {AccountID: "1", Plan: "free", Pool: "acct:1", Limits: free},
		keyA2:     {AccountID: "1", Plan: "free", Pool: "acct:1", Limits: free},
		keyB:      {AccountID: "2", Plan: "ultra", Paid: account.Allowed, Pool: "acct:2", Limits: ratelimit.Limits{Hour: 7000, Day: 70000}},
		keySmall:  {AccountID: "3", Plan: "business", Paid: account.Allowed, Pool: "acct:3", Limits: ratelimit.Limits{Hour: 3, Day: 5}},
		keyRevoke: {AccountID: "4", Plan: "free", Pool: "acct:4", Limits: free},
	}}
}

func (a *limitAuth) Authenticate(_ context.Context, key string) (account.Caller, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.fail != nil {
		return account.Caller{}, a.fail
	}
	c, ok := a.callers[key]
	if !ok {
		return account.Caller{}, account.ErrInvalidKey
	}
	return c, nil
}

func (a *limitAuth) set(key string, f func(c *account.Caller)) {
	a.mu.Lock()
	defer a.mu.Unlock()
	c := a.callers[key]
	f(&c)
	a.callers[key] = c
}

func (a *limitAuth) revoke(key string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.callers, key)
}

// testClock is the injected clock; tests move it by hand.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) Now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *testClock) Set(t time.Time) { c.mu.Lock(); c.t = t; c.mu.Unlock() }

// recordingLimiter is an in-process limiter that records its calls as
// "take POOL" or "peek POOL": tests see which pool each answer drew on.
type recordingLimiter struct {
	ratelimit.Limiter
	mu    sync.Mutex
	calls []string
}

func newRecordingLimiter(t testing.TB) *recordingLimiter {
	lim := memory.New(memory.Options{})
	t.Cleanup(func() { lim.Close() })
	return &recordingLimiter{Limiter: lim}
}

func (l *recordingLimiter) record(call string) {
	l.mu.Lock()
	l.calls = append(l.calls, call)
	l.mu.Unlock()
}

func (l *recordingLimiter) get() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.calls...)
}

func (l *recordingLimiter) Take(ctx context.Context, pool string, lim ratelimit.Limits, now time.Time) (ratelimit.Result, error) {
	l.record("take " + pool)
	return l.Limiter.Take(ctx, pool, lim, now)
}

func (l *recordingLimiter) Peek(ctx context.Context, pool string, lim ratelimit.Limits, now time.Time) (ratelimit.Result, error) {
	l.record("peek " + pool)
	return l.Limiter.Peek(ctx, pool, lim, now)
}

// limited is a test server with a limiter, its Authenticator and clock.
type limited struct {
	h     http.Handler
	auth  *limitAuth
	clock *testClock
	lim   ratelimit.Limiter
	view  *serving.View // the fixture's, unless edit replaced Deps.View
}

func newLimited(t testing.TB, cfg Config, edit ...func(*Deps)) *limited {
	t.Helper()
	l := &limited{auth: newLimitAuth(), clock: &testClock{t: testNow}}
	lim := memory.New(memory.Options{})
	t.Cleanup(func() { lim.Close() })
	l.lim = lim
	l.view = mustView(t, mustFixture(t))
	deps := testDeps(l.view)
	deps.Auth, deps.Limiter, deps.Now = l.auth, lim, l.clock.Now
	for _, f := range edit {
		f(&deps)
	}
	l.h = mustServer(t, cfg, deps)
	return l
}

// req sends a request from the client 192.0.2.1 with the given headers
// (name, value pairs) and no key unless one is given.
func (l *limited) req(method, target string, headers ...string) *httptest.ResponseRecorder {
	return do(l.h, method, target, append([]string{"X-API-Key", ""}, headers...)...)
}

func (l *limited) get(target, key string) *httptest.ResponseRecorder {
	return l.req(http.MethodGet, target, "X-API-Key", key)
}

// limitHeaders returns the four X-RateLimit-* values: limit and remaining
// of the hour, limit and remaining of the day.
func limitHeaders(w *httptest.ResponseRecorder) [4]string {
	h := w.Header()
	return [4]string{h.Get("X-RateLimit-Limit-Hour"), h.Get("X-RateLimit-Remaining-Hour"),
		h.Get("X-RateLimit-Limit-Day"), h.Get("X-RateLimit-Remaining-Day")}
}

func hdr(hour, hourLeft, day, dayLeft int) [4]string {
	return [4]string{strconv.Itoa(hour), strconv.Itoa(hourLeft), strconv.Itoa(day), strconv.Itoa(dayLeft)}
}

// usedBy peeks at a pool without counting.
func (l *limited) usedBy(t *testing.T, pool string) (hour, day int64) {
	t.Helper()
	r, err := l.lim.Peek(context.Background(), pool, ratelimit.Limits{Hour: 1 << 40, Day: 1 << 40}, l.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	return r.Hour.Used, r.Day.Used
}

var cardPath = "/dbs/cards/" + catalog.TCGCardID("dbs", 535600)

// TestRateLimitHeadersOnEveryAnswer: which pool each kind of answer shows
// and whether it counts.
func TestRateLimitHeadersOnEveryAnswer(t *testing.T) {
	tests := []struct {
		name         string
		method, path string
		headers      []string
		status       int
		want         [4]string
		acct1, guard int64 // what the answer adds to account 1's pool and to the guard bucket
	}{
		{"keyed 200", "GET", "/dbs/sets", []string{"X-API-Key", keyA1}, 200, hdr(100, 99, 1000, 999), 1, 0},
		{"keyed 200, Bearer", "GET", "/mtg/sets", []string{"Authorization", "Bearer " + keyA1}, 200, hdr(100, 99, 1000, 999), 1, 0},
		{"card detail", "GET", cardPath, []string{"X-API-Key", keyA1}, 200, hdr(100, 99, 1000, 999), 1, 0},
		{"keyed 400", "GET", "/dbs/sets/FB01?page=0", []string{"X-API-Key", keyA1}, 400, hdr(100, 99, 1000, 999), 1, 0},
		{"keyed 404 card", "GET", "/dbs/cards/dbs_0000000000000000", []string{"X-API-Key", keyA1}, 404, hdr(100, 99, 1000, 999), 1, 0},
		{"paid 403", "GET", "/dbs/sets/trending", []string{"X-API-Key", keyA1}, 403, hdr(100, 99, 1000, 999), 1, 0},
		{"unknown route, valid key", "GET", "/dsb/sets", []string{"X-API-Key", keyA1}, 404, hdr(100, 99, 1000, 999), 1, 0},
		{"repeated slashes, valid key", "GET", "/dbs//sets", []string{"X-API-Key", keyA1}, 404, hdr(100, 99, 1000, 999), 1, 0},
		{"405, valid key", "POST", "/dbs/sets", []string{"X-API-Key", keyA1}, 405, hdr(100, 99, 1000, 999), 1, 0},
		{"public, no key", "GET", "/health", nil, 200, hdr(100, 100, 1000, 1000), 0, 0},
		{"root, no key", "GET", "/", nil, 200, hdr(100, 100, 1000, 1000), 0, 0},
		{"public, valid key", "GET", "/games", []string{"X-API-Key", keyA1}, 200, hdr(100, 100, 1000, 1000), 0, 0},
		{"public, unknown key", "GET", "/games", []string{"X-API-Key", "pk_test_" + "x0000000000000000000000000000000"}, 200, hdr(100, 100, 1000, 1000), 0, 0},
		{"public, malformed key", "GET", "/", []string{"X-API-Key", "nope"}, 200, hdr(100, 100, 1000, 1000), 0, 0},
		{"CORS preflight", "OPTIONS", "/dbs/sets", []string{"Origin", "https://app.example", "Access-Control-Request-Method", "GET"}, 204, hdr(100, 100, 1000, 1000), 0, 0},
		{"401 no key", "GET", "/dbs/sets", nil, 401, hdr(1000, 999, 24000, 23999), 0, 1},
		{"401 malformed key", "GET", "/dbs/sets", []string{"X-API-Key", "pk_live_short"}, 401, hdr(1000, 999, 24000, 23999), 0, 1},
		{"401 unknown key", "GET", "/dbs/sets", []string{"X-API-Key", "pk_live_" + "x0000000000000000000000000000000"}, 401, hdr(1000, 999, 24000, 23999), 0, 1},
		{"unknown route, no key", "GET", "/dsb/sets", nil, 404, hdr(1000, 999, 24000, 23999), 0, 1},
		{"unknown route, unknown key", "GET", "/nope", []string{"X-API-Key", "pk_live_" + "x0000000000000000000000000000000"}, 404, hdr(1000, 999, 24000, 23999), 0, 1},
		{"405, no key", "DELETE", "/nope", nil, 405, hdr(1000, 999, 24000, 23999), 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := newLimited(t, Config{})
			w := l.req(tt.method, tt.path, tt.headers...)
			if w.Code != tt.status {
				t.Fatalf("%s %s: %d, want %d: %s", tt.method, tt.path, w.Code, tt.status, w.Body)
			}
			if got := limitHeaders(w); got != tt.want {
				t.Errorf("headers %v, want %v", got, tt.want)
			}
			if h, d := l.usedBy(t, "acct:1"); h != tt.acct1 || d != tt.acct1 {
				t.Errorf("account pool used %d/%d, want %d", h, d, tt.acct1)
			}
			if h, _ := l.usedBy(t, "ip:192.0.2.1"); h != tt.guard {
				t.Errorf("guard bucket used %d, want %d", h, tt.guard)
			}
		})
	}
}

// TestPublicRouteShowsThePoolWithoutCounting: with a valid key a public
// route reports the pool as it stands, again and again, and is never refused.
func TestPublicRouteShowsThePoolWithoutCounting(t *testing.T) {
	l := newLimited(t, Config{})
	for range 3 {
		l.get("/dbs/sets", keySmall)
	}
	for range 3 {
		w := l.get("/health", keySmall)
		if w.Code != 200 || limitHeaders(w) != hdr(3, 0, 5, 2) {
			t.Errorf("/health with an exhausted key: %d %v", w.Code, limitHeaders(w))
		}
	}
}

// TestOnePoolPerAccount: two keys of one account, both games and every route
// draw on one pool; another account's pool is apart.
func TestOnePoolPerAccount(t *testing.T) {
	l := newLimited(t, Config{})
	l.get("/dbs/sets", keyA1)
	l.get("/mtg/sets", keyA2)
	l.get("/mtg/search?q=bat", keyA1)
	l.get("/nope", keyA2)
	w := l.get(cardPath, keyA2)
	if got := limitHeaders(w); got != hdr(100, 95, 1000, 995) {
		t.Errorf("fifth request of the account: %v", got)
	}
	if got := limitHeaders(l.get("/dbs/sets", keyB)); got != hdr(7000, 6999, 70000, 69999) {
		t.Errorf("first request of another account: %v", got)
	}
}

// TestFree101stIs429: the exact 429 of a Free key past its hour, and of the
// other windows; a 429 does not count.
func TestRateLimitGolden(t *testing.T) {
	t.Run("errors_rate_limit_hourly", func(t *testing.T) {
		l := newLimited(t, Config{})
		l.clock.Set(time.Date(2026, 2, 1, 12, 40, 0, 300_000_000, time.UTC))
		for i := range 100 {
			if w := l.get([]string{"/dbs/sets", "/mtg/sets"}[i%2], keyA1); w.Code != 200 {
				t.Fatalf("request %d: %d", i+1, w.Code)
			}
		}
		w := l.get("/dbs/sets", keyA2) // the other key of the account
		if w.Code != 429 || w.Header().Get("Retry-After") != "1200" {
			t.Errorf("101st: %d, Retry-After %q, want 429 and 1200 (19:59.7 to 13:00, rounded up)", w.Code, w.Header().Get("Retry-After"))
		}
		checkGolden(t, "errors_rate_limit_hourly", w)
		l.get("/mtg/sets", keyA1)
		if h, d := l.usedBy(t, "acct:1"); h != 100 || d != 100 {
			t.Errorf("after two 429s: used %d/%d, want 100/100 (a 429 does not count)", h, d)
		}
	})
	t.Run("errors_rate_limit_daily", func(t *testing.T) {
		l := newLimited(t, Config{})
		l.clock.Set(time.Date(2026, 2, 1, 9, 0, 0, 0, time.UTC))
		for range 3 {
			l.get("/dbs/sets", keySmall) // 3/hour, 5/day
		}
		l.clock.Set(time.Date(2026, 2, 1, 22, 15, 0, 0, time.UTC))
		for range 2 {
			l.get("/dbs/sets", keySmall)
		}
		w := l.get("/dbs/sets", keySmall)
		if w.Code != 429 || w.Header().Get("Retry-After") != "6300" {
			t.Errorf("day exhausted at 22:15: %d, Retry-After %q, want 429 and 6300", w.Code, w.Header().Get("Retry-After"))
		}
		checkGolden(t, "errors_rate_limit_daily", w)
	})
	t.Run("errors_rate_limit_both", func(t *testing.T) {
		l := newLimited(t, Config{})
		l.auth.set(keySmall, func(c *account.Caller) { c.Limits = ratelimit.Limits{Hour: 2, Day: 2} })
		l.clock.Set(time.Date(2026, 2, 1, 23, 59, 59, 1, time.UTC))
		l.get("/dbs/sets", keySmall)
		l.get("/dbs/sets", keySmall)
		w := l.get("/dbs/sets", keySmall)
		if w.Code != 429 || w.Header().Get("Retry-After") != "1" {
			t.Errorf("both exhausted a second before midnight: %d, Retry-After %q, want 429 and 1", w.Code, w.Header().Get("Retry-After"))
		}
		checkGolden(t, "errors_rate_limit_both", w)
	})
	t.Run("errors_rate_limit_guard", func(t *testing.T) {
		l := newLimited(t, Config{GuardPerHour: 2})
		for _, key := range []string{"", "pk_live_short"} {
			if w := l.get("/dbs/sets", key); w.Code != 401 {
				t.Fatalf("request without a valid key: %d", w.Code)
			}
		}
		w := l.get("/dbs/sets/FB01", "pk_live_"+"x0000000000000000000000000000000")
		if w.Code != 429 || w.Header().Get("Retry-After") != "3600" {
			t.Errorf("third request without a valid key: %d, Retry-After %q, want 429 and 3600", w.Code, w.Header().Get("Retry-After"))
		}
		checkGolden(t, "errors_rate_limit_guard", w)
	})
	t.Run("errors_key_missing_guard_headers", func(t *testing.T) {
		l := newLimited(t, Config{})
		checkGolden(t, "errors_key_missing_guard_headers", l.get("/dbs/sets", ""))
	})
}

// TestRetryAfter: seconds to the end of the exhausted window, rounded up,
// never 0.
func TestRetryAfter(t *testing.T) {
	tests := []struct {
		at   time.Time
		lim  ratelimit.Limits
		want string
	}{
		{time.Date(2026, 2, 1, 13, 20, 0, 0, time.UTC), ratelimit.Limits{Hour: 1, Day: 10}, "2400"},
		{time.Date(2026, 2, 1, 13, 59, 59, 250_000_000, time.UTC), ratelimit.Limits{Hour: 1, Day: 10}, "1"},
		{time.Date(2026, 2, 1, 13, 59, 59, 999_999_999, time.UTC), ratelimit.Limits{Hour: 1, Day: 10}, "1"},
		{time.Date(2026, 2, 1, 13, 0, 0, 0, time.UTC), ratelimit.Limits{Hour: 1, Day: 10}, "3600"},
		{time.Date(2026, 2, 1, 13, 20, 0, 0, time.UTC), ratelimit.Limits{Hour: 10, Day: 1}, "38400"},
		{time.Date(2026, 2, 1, 13, 20, 0, 0, time.UTC), ratelimit.Limits{Hour: 1, Day: 1}, "38400"},
	}
	for _, tt := range tests {
		l := newLimited(t, Config{})
		l.clock.Set(tt.at)
		l.auth.set(keySmall, func(c *account.Caller) { c.Limits = tt.lim })
		l.get("/dbs/sets", keySmall)
		w := l.get("/dbs/sets", keySmall)
		if w.Code != 429 || w.Header().Get("Retry-After") != tt.want {
			t.Errorf("at %v with %+v: %d, Retry-After %q, want 429 and %s", tt.at, tt.lim, w.Code, w.Header().Get("Retry-After"), tt.want)
		}
	}
}

// TestWindowsRollOver: a pool refused in the last instant of an hour is
// served at the first instant of the next, and the day goes on counting.
func TestWindowsRollOver(t *testing.T) {
	l := newLimited(t, Config{})
	l.clock.Set(time.Date(2026, 2, 1, 13, 59, 59, 999_999_999, time.UTC))
	for range 3 {
		l.get("/dbs/sets", keySmall)
	}
	if w := l.get("/dbs/sets", keySmall); w.Code != 429 {
		t.Fatalf("fourth request of the hour: %d", w.Code)
	}
	l.clock.Set(time.Date(2026, 2, 1, 14, 0, 0, 0, time.UTC))
	w := l.get("/dbs/sets", keySmall)
	if w.Code != 200 || limitHeaders(w) != hdr(3, 2, 5, 1) {
		t.Errorf("first request of the next hour: %d %v", w.Code, limitHeaders(w))
	}
	l.get("/dbs/sets", keySmall)
	if w := l.get("/dbs/sets", keySmall); w.Code != 429 || limitHeaders(w) != hdr(3, 1, 5, 0) {
		t.Errorf("sixth request of the day: %d %v, want 429 with the day exhausted", w.Code, limitHeaders(w))
	}
	l.clock.Set(time.Date(2026, 2, 2, 0, 0, 0, 0, time.UTC))
	if w := l.get("/dbs/sets", keySmall); w.Code != 200 || limitHeaders(w) != hdr(3, 2, 5, 4) {
		t.Errorf("first request of the next day: %d %v", w.Code, limitHeaders(w))
	}
}

// TestPlanChangeAppliesAtOnce: the limits come with the caller on every
// request, so a changed plan applies to the next one.
func TestPlanChangeAppliesAtOnce(t *testing.T) {
	l := newLimited(t, Config{})
	for range 100 {
		l.get("/dbs/sets", keyA1)
	}
	if w := l.get("/dbs/sets", keyA1); w.Code != 429 {
		t.Fatalf("101st Free request: %d", w.Code)
	}
	l.auth.set(keyA1, func(c *account.Caller) { c.Plan, c.Limits = "pro", ratelimit.Limits{Hour: 5000, Day: 50000} })
	if w := l.get("/dbs/sets", keyA1); w.Code != 200 || limitHeaders(w) != hdr(5000, 4899, 50000, 49899) {
		t.Errorf("after the upgrade: %d %v", w.Code, limitHeaders(w))
	}
	l.auth.revoke(keyA1)
	if w := l.get("/dbs/sets", keyA1); w.Code != 401 || limitHeaders(w) != hdr(1000, 999, 24000, 23999) {
		t.Errorf("after the revocation: %d %v, want 401 with the guard bucket", w.Code, limitHeaders(w))
	}
}

// TestGuardBucket: requests without a valid key from one address share a
// bucket; past it they are 429 (also an unknown route), while other
// addresses, valid keys and public routes go on.
func TestGuardBucket(t *testing.T) {
	l := newLimited(t, Config{GuardPerHour: 3})
	for i, key := range []string{"", "pk_live_short", "pk_live_" + "x0000000000000000000000000000000"} {
		w := l.get("/dbs/sets", key)
		if w.Code != 401 || limitHeaders(w) != hdr(3, 2-i, 72, 71-i) {
			t.Errorf("request %d without a valid key: %d %v", i+1, w.Code, limitHeaders(w))
		}
	}
	for _, target := range []string{"/dbs/sets", "/dsb/sets"} {
		if w := l.get(target, ""); w.Code != 429 || limitHeaders(w) != hdr(3, 0, 72, 69) {
			t.Errorf("%s past the guard: %d %v", target, w.Code, limitHeaders(w))
		}
	}
	if w := l.req("POST", "/dbs/sets"); w.Code != 429 {
		t.Errorf("405 past the guard: %d", w.Code)
	}
	if w := l.get("/dbs/sets", keyA1); w.Code != 200 {
		t.Errorf("valid key from the same address: %d", w.Code)
	}
	if w := l.get("/health", ""); w.Code != 200 || limitHeaders(w) != hdr(100, 100, 1000, 1000) {
		t.Errorf("public route past the guard: %d %v", w.Code, limitHeaders(w))
	}
	r := httptest.NewRequest("GET", "/dbs/sets", nil)
	r.RemoteAddr = "198.51.100.9:5555"
	w := httptest.NewRecorder()
	l.h.ServeHTTP(w, r)
	if w.Code != 401 || limitHeaders(w) != hdr(3, 2, 72, 71) {
		t.Errorf("another address: %d %v", w.Code, limitHeaders(w))
	}
}

// TestTrustedProxies: X-Forwarded-For is believed only from a trusted peer,
// and only up to the first hop that is not a trusted proxy.
func TestTrustedProxies(t *testing.T) {
	trusted, err := web.ParseTrustedProxies("10.0.0.0/8, 192.0.2.7 2001:db8:ffff::/48")
	if err != nil {
		t.Fatal(err)
	}
	s := &poolLimits{clients: web.NewClients(trusted)}
	tests := []struct {
		remote string
		xff    []string
		want   string
	}{
		{"203.0.113.5:4000", nil, "ip:203.0.113.5"},
		{"203.0.113.5:4000", []string{"198.51.100.1"}, "ip:203.0.113.5"}, // untrusted peer: its header is ignored
		{"10.1.2.3:4000", nil, "ip:10.1.2.3"},
		{"10.1.2.3:4000", []string{"198.51.100.1"}, "ip:198.51.100.1"},
		{"10.1.2.3:4000", []string{"1.1.1.1, 198.51.100.1, 10.9.9.9"}, "ip:198.51.100.1"}, // the client's own entries are not believed
		{"10.1.2.3:4000", []string{"1.1.1.1", "198.51.100.1,192.0.2.7"}, "ip:198.51.100.1"},
		{"10.1.2.3:4000", []string{"10.2.2.2"}, "ip:10.2.2.2"}, // only proxies: the farthest one
		{"10.1.2.3:4000", []string{"garbage, 10.2.2.2"}, "ip:10.2.2.2"},
		{"10.1.2.3:4000", []string{"[2001:db8:1:2:3:4:5:6]:443"}, "ip:2001:db8:1:2::/64"},
		{"[2001:db8:ffff::1]:4000", []string{"198.51.100.1"}, "ip:198.51.100.1"},
		{"[2001:db8:1:2:aaaa::1]:4000", nil, "ip:2001:db8:1:2::/64"},
		{"[::ffff:203.0.113.5]:4000", nil, "ip:203.0.113.5"},
		{"[fe80::1%eth0]:4000", nil, "ip:fe80::/64"},
		{"pipe", nil, "ip:unknown"},
	}
	for _, tt := range tests {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = tt.remote
		for _, v := range tt.xff {
			r.Header.Add("X-Forwarded-For", v)
		}
		if got := s.guardPool(r); got != tt.want {
			t.Errorf("peer %s, X-Forwarded-For %q: pool %q, want %q", tt.remote, tt.xff, got, tt.want)
		}
	}
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = "10.1.2.3:4000"
	r.Header.Set("X-Forwarded-For", "198.51.100.1")
	if got := (&poolLimits{}).guardPool(r); got != "ip:10.1.2.3" {
		t.Errorf("without trusted proxies: %q, want the peer", got)
	}
}

// failingLimiter fails every call, as a closed limiter does.
type failingLimiter struct{ ratelimit.Limiter }

func (failingLimiter) Take(context.Context, string, ratelimit.Limits, time.Time) (ratelimit.Result, error) {
	return ratelimit.Result{}, errors.New("limiter down")
}

func (failingLimiter) Peek(context.Context, string, ratelimit.Limits, time.Time) (ratelimit.Result, error) {
	return ratelimit.Result{}, errors.New("limiter down")
}

// TestLimiterFailureFailsOpen: a failing limiter does not take the API
// down: the request is served, with the limits and nothing known used.
func TestLimiterFailureFailsOpen(t *testing.T) {
	l := newLimited(t, Config{}, func(d *Deps) { d.Limiter = failingLimiter{} })
	if w := l.get("/dbs/sets", keyA1); w.Code != 200 || limitHeaders(w) != hdr(100, 100, 1000, 1000) {
		t.Errorf("keyed: %d %v", w.Code, limitHeaders(w))
	}
	if w := l.get("/dbs/sets", ""); w.Code != 401 || limitHeaders(w) != hdr(1000, 1000, 24000, 24000) {
		t.Errorf("without key: %d %v", w.Code, limitHeaders(w))
	}
	if w := l.get("/health", keyA1); w.Code != 200 || limitHeaders(w) != hdr(100, 100, 1000, 1000) {
		t.Errorf("public: %d %v", w.Code, limitHeaders(w))
	}
}

// TestRateLimitHeadersOn500: a panic past the limiter answers 500 with the
// caller's headers; an Authenticator failure answers 500 with the guard
// bucket's, not counted.
func TestRateLimitHeadersOn500(t *testing.T) {
	l := newLimited(t, Config{}, func(d *Deps) {
		d.View = func() *serving.View { panic("handler bug") } // read by the handler, after the count
	})
	if w := l.get("/dbs/sets", keyA1); w.Code != 500 || limitHeaders(w) != hdr(100, 99, 1000, 999) {
		t.Errorf("panic: %d %v", w.Code, limitHeaders(w))
	}
	l.auth.mu.Lock()
	l.auth.fail = errors.New("account store unreachable")
	l.auth.mu.Unlock()
	if w := l.get("/dbs/sets", keyA1); w.Code != 500 || limitHeaders(w) != hdr(1000, 1000, 24000, 24000) {
		t.Errorf("Authenticator failure: %d %v", w.Code, limitHeaders(w))
	}
}

// TestRateLimitOff: without a limiter nothing is counted and no header is sent.
func TestRateLimitOff(t *testing.T) {
	h := fixtureHandler(t)
	for _, target := range []string{"/dbs/sets", "/health", "/nope"} {
		if w := get(h, target); w.Header().Get("X-RateLimit-Limit-Hour") != "" {
			t.Errorf("%s: X-RateLimit headers without a limiter: %v", target, w.Header())
		}
	}
}

// TestConcurrentRequestsStopAtTheLimit: parallel requests of one account
// get exactly the limit through.
func TestConcurrentRequestsStopAtTheLimit(t *testing.T) {
	l := newLimited(t, Config{})
	var mu sync.Mutex
	codes := map[int]int{}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for range 20 {
				w := l.get([]string{"/dbs/sets", "/mtg/sets"}[i%2], []string{keyA1, keyA2}[i%2])
				mu.Lock()
				codes[w.Code]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if codes[200] != 100 || codes[429] != 60 {
		t.Errorf("160 concurrent requests of a Free account: %v, want 100 × 200 and 60 × 429", codes)
	}
}

// TestRateLimitAllocations: counting a keyed request and setting its four
// headers cost one allocation (the header values' string).
func TestRateLimitAllocations(t *testing.T) {
	off := newLimited(t, Config{}, func(d *Deps) { d.Limiter = nil })
	on := newLimited(t, Config{})
	on.auth.set(keyA1, func(c *account.Caller) { c.Limits = ratelimit.Limits{Hour: 1 << 40, Day: 1 << 40} })
	measure := func(l *limited) float64 {
		r := httptest.NewRequest("GET", cardPath, nil)
		r.Header.Set("X-API-Key", keyA1)
		w := &sink{h: http.Header{}}
		return testing.AllocsPerRun(500, func() { clear(w.h); l.h.ServeHTTP(w, r) })
	}
	a, b := measure(off), measure(on)
	if b-a > 1 {
		t.Errorf("card detail: %.1f allocations with the limiter, %.1f without; want at most one more", b, a)
	}
	t.Logf("card detail allocations: %.1f without the limiter, %.1f with", a, b)
}

// TestLimitCache: the X-RateLimit-Limit-* values of a pair of limits are
// made once and shared; past maxCachedLimits pairs they are still right,
// made per call.
func TestLimitCache(t *testing.T) {
	var c limitCache
	h1, d1 := c.values(100, 1000)
	h2, d2 := c.values(100, 1000)
	if h1[0] != "100" || d1[0] != "1000" || &h1[0] != &h2[0] || &d1[0] != &d2[0] {
		t.Fatalf("values(100, 1000) = %q %q then %q %q, want 100 1000, shared", h1, d1, h2, d2)
	}
	if h, d := c.values(100, 2400); h[0] != "100" || d[0] != "2400" {
		t.Fatalf("values(100, 2400) = %q %q", h, d)
	}
	for i := range int64(2 * maxCachedLimits) {
		if h, d := c.values(-i, i*i); h[0] != strconv.FormatInt(-i, 10) || d[0] != strconv.FormatInt(i*i, 10) {
			t.Fatalf("values(%d, %d) = %q %q", -i, i*i, h, d)
		}
	}
	if n := len(*c.list.Load()); n != maxCachedLimits {
		t.Errorf("%d pairs kept, want %d", n, maxCachedLimits)
	}
	if h, _ := c.values(100, 1000); &h[0] != &h1[0] {
		t.Error("the first pair is no longer shared")
	}
}
