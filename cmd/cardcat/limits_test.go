package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/catalog"
)

// End-to-end tests of keys, plans, trials and rate limits: `cardcat serve`
// started through run, keys made with `cardcat keys create` on the same data
// directory. Window ends and trial expiry to the second are tested with an
// injected clock in internal/httpapi and internal/account; here the clock is
// the real one.

// redisURLVar names the Redis of the tests; without it the Redis cases skip.
const redisURLVar = "CARDCAT_TEST_REDIS_URL"

// cardcatCmd runs a cardcat command and subcommand (keys create, accounts
// set-plan, ...) on dataDir and returns its stdout.
func cardcatCmd(t *testing.T, dataDir string, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	// "keys revoke ID": flags go before the id.
	args = append(append(append([]string{}, args[:2]...), "--data-dir", dataDir), args[2:]...)
	if err := run(context.Background(), args, testEnv(nil), &out, &errb); err != nil {
		t.Fatalf("cardcat %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return out.String()
}

// createKey runs `cardcat keys create args...` on dataDir and returns the
// key (the last line of stdout) and its id.
func createKey(t *testing.T, dataDir string, args ...string) (key, id string) {
	t.Helper()
	out := cardcatCmd(t, dataDir, append([]string{"keys", "create"}, args...)...)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	key = lines[len(lines)-1]
	if _, err := fmt.Sscanf(lines[0], "key %s for account", &id); err != nil || !strings.HasPrefix(key, "pk_") {
		t.Fatalf("keys create printed %q", out)
	}
	return key, id
}

// newKey is createKey for a test that needs only the key.
func newKey(t *testing.T, dataDir string, args ...string) string {
	t.Helper()
	key, _ := createKey(t, dataDir, args...)
	return key
}

// limitsOf returns the four X-RateLimit-* headers as integers: hourly limit
// and remaining, daily limit and remaining.
func limitsOf(t *testing.T, resp *http.Response) [4]int64 {
	t.Helper()
	var out [4]int64
	for i, name := range []string{"X-RateLimit-Limit-Hour", "X-RateLimit-Remaining-Hour", "X-RateLimit-Limit-Day", "X-RateLimit-Remaining-Day"} {
		v := resp.Header.Get(name)
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatalf("%s %s: header %s = %q", resp.Request.Method, resp.Request.URL, name, v)
		}
		out[i] = n
	}
	return out
}

// avoidWindowEnd waits for the next hour when fewer than need remain of
// this one, so that a test's requests fall in one hourly (and daily) window.
func avoidWindowEnd(t *testing.T, need time.Duration) {
	t.Helper()
	now := time.Now()
	end := now.UTC().Truncate(time.Hour).Add(time.Hour)
	if left := end.Sub(now); left < need {
		t.Logf("waiting %v for the next hour", left)
		time.Sleep(left + 50*time.Millisecond)
	}
}

// backend is a limiter configuration the shared tests run against.
type backend struct {
	name string
	vars func(t *testing.T) map[string]string
}

// backends are the in-process limiter and, with $CARDCAT_TEST_REDIS_URL,
// the Redis one (a fresh key prefix per test).
func backends() []backend {
	return []backend{
		{"memory", func(*testing.T) map[string]string { return map[string]string{} }},
		{"redis", redisVars},
	}
}

func redisVars(t *testing.T) map[string]string {
	t.Helper()
	u := os.Getenv(redisURLVar)
	if u == "" {
		t.Skipf("%s is not set; set it (for example to redis://127.0.0.1:6379/0) to run the Redis rate-limit tests", redisURLVar)
	}
	return map[string]string{
		"CARDCAT_REDIS_URL":    u,
		"CARDCAT_REDIS_PREFIX": "cardcat-test:" + strings.ReplaceAll(t.Name(), "/", "-") + ":" + randomHex(t) + ":",
		// Exact counts: on a loaded machine a call past the default 100 ms
		// would be counted on the local fallback too (docs/operations.md,
		// "Redis outages"), which is the design, not what these tests check.
		"CARDCAT_REDIS_TIMEOUT": "5s",
	}
}

func TestKeyHeaderForms(t *testing.T) {
	dir := t.TempDir()
	key := newKey(t, dir)
	s := startServe(t, dir, nil)
	for _, h := range [][]string{{"X-API-Key", key}, {"Authorization", "Bearer " + key}, {"Authorization", "bearer " + key}} {
		resp, body := get(t, s.url+"/dbs/sets", h...)
		if resp.StatusCode != http.StatusOK || !bytes.Contains(body, []byte(`"success":true`)) {
			t.Errorf("%s: %d %.200s", h[0], resp.StatusCode, body)
		}
	}
	resp, body := get(t, s.url+"/mtg/sets", "X-API-Key", "pk_live_"+strings.Repeat("Z", 32))
	var e struct{ Error, Message, Example string }
	if json.Unmarshal(body, &e); resp.StatusCode != 401 || e.Error != "Invalid API key" ||
		e.Example != `curl -H "X-API-Key: pk_live_YOUR_32_CHARACTER_API_KEY" "`+s.url+`/mtg/sets"` {
		t.Errorf("unknown key: %d %s", resp.StatusCode, body)
	}
	if got := limitsOf(t, resp); got != [4]int64{1000, 999, 24000, 23999} {
		t.Errorf("401 headers %v, want the guard bucket after its first request", got)
	}
}

// TestPlanLimits: every plan's limits in the headers, and a plan change
// applied to a running server within the key refresh interval.
func TestPlanLimits(t *testing.T) {
	dir := t.TempDir()
	plans := []struct {
		plan   string
		custom []string // accounts set-plan flags
		want   [2]int64
	}{
		{"free", nil, [2]int64{100, 1000}},
		{"early-access", nil, [2]int64{1000, 10000}},
		{"coffee", nil, [2]int64{1000, 10000}},
		{"coffee", []string{"--hour", "1500", "--day", "20000"}, [2]int64{1500, 20000}},
		{"pro", nil, [2]int64{5000, 50000}},
		{"ultra", nil, [2]int64{7000, 70000}},
		{"business", []string{"--hour", "25000", "--day", "400000"}, [2]int64{25000, 400000}},
	}
	keys := make([]string, len(plans))
	for i, p := range plans {
		email := fmt.Sprintf("%s-%d@example.com", p.plan, i)
		keys[i] = newKey(t, dir, "--plan", p.plan, "--email", email)
		if p.custom != nil {
			cardcatCmd(t, dir, append([]string{"accounts", "set-plan", "--email", email, "--plan", p.plan}, p.custom...)...)
		}
	}
	s := startServe(t, dir, map[string]string{"CARDCAT_KEYS_REFRESH_INTERVAL": "50ms"})
	for i, p := range plans {
		resp, _ := get(t, s.url+"/dbs/sets", "X-API-Key", keys[i])
		want := [4]int64{p.want[0], p.want[0] - 1, p.want[1], p.want[1] - 1}
		if got := limitsOf(t, resp); resp.StatusCode != 200 || got != want {
			t.Errorf("%s %v: %d %v, want 200 %v", p.plan, p.custom, resp.StatusCode, got, want)
		}
	}

	// Upgrade the Free account while the server runs: no restart.
	cardcatCmd(t, dir, "accounts", "set-plan", "--email", "free-0@example.com", "--plan", "pro")
	waitFor(t, 5*time.Second, "the upgrade to reach the server", func() bool {
		resp, _ := get(t, s.url+"/mtg/sets", "X-API-Key", keys[0])
		return limitsOf(t, resp)[0] == 5000
	})
}

// waitFor polls cond until it holds or the time is up.
func waitFor(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting %v for %s", limit, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestFreeKey101st: the 101st request of a Free key within the hour is 429
// with the exact body and Retry-After; requests on both games, on an
// unknown route and on a paid route (403) drew on the one pool; 429s are not
// counted; public routes never are.
func TestFreeKey101st(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			vars := b.vars(t)
			avoidWindowEnd(t, 5*time.Second)
			dir := t.TempDir()
			key := newKey(t, dir)
			s := startServe(t, dir, vars)
			targets := []string{"/dbs/sets", "/mtg/sets", "/dbs/search?q=goku", "/mtg/cards/" + catalog.TCGCardID("mtg", 507040),
				"/dbs/sets/trending" /* 403 */, "/nope" /* 404 */, "/mtg/sets/WHO"}
			for i := 1; i <= 100; i++ {
				resp, body := get(t, s.url+targets[i%len(targets)], "X-API-Key", key)
				if resp.StatusCode == 429 || resp.StatusCode >= 500 {
					t.Fatalf("request %d: %d %s", i, resp.StatusCode, body)
				}
				if got := limitsOf(t, resp); got != [4]int64{100, int64(100 - i), 1000, int64(1000 - i)} {
					t.Fatalf("request %d (%s): headers %v", i, targets[i%len(targets)], got)
				}
				// Public routes show the pool and never count.
				if i%25 == 0 {
					resp, _ := get(t, s.url+"/health", "X-API-Key", key)
					if got := limitsOf(t, resp); got[1] != int64(100-i) {
						t.Fatalf("/health after %d requests: %v", i, got)
					}
				}
			}
			resp, body := get(t, s.url+"/mtg/sets", "Authorization", "Bearer "+key)
			hourEnd := time.Now().UTC().Truncate(time.Hour).Add(time.Hour)
			want := `{"error":"Rate limit exceeded","message":"Hourly rate limit exceeded: this account may make 100 requests per hour (UTC), shared by all of its keys, both games and every route. Retry after ` +
				hourEnd.Format(time.RFC3339) + ` (Retry-After gives the seconds to wait), or upgrade the plan for higher limits.",` +
				`"limits":{"hourly":{"limit":100,"used":100,"remaining":0},"daily":{"limit":1000,"used":100,"remaining":900}}}`
			if resp.StatusCode != http.StatusTooManyRequests || string(body) != want {
				t.Errorf("101st request: %d\n%s\nwant\n%s", resp.StatusCode, body, want)
			}
			ra, err := strconv.Atoi(resp.Header.Get("Retry-After"))
			if left := time.Until(hourEnd).Seconds(); err != nil || ra < 1 || float64(ra) < left-2 || float64(ra) > left+2 {
				t.Errorf("Retry-After %q, want about %.0f s (to %v)", resp.Header.Get("Retry-After"), left, hourEnd)
			}
			if got := limitsOf(t, resp); got != [4]int64{100, 0, 1000, 900} {
				t.Errorf("429 headers %v", got)
			}
			get(t, s.url+"/dbs/sets", "X-API-Key", key)
			resp, _ = get(t, s.url+"/games", "X-API-Key", key)
			if got := limitsOf(t, resp); got != [4]int64{100, 0, 1000, 900} {
				t.Errorf("after two 429s: %v, want 900 left today (a 429 does not count)", got)
			}
			resp, _ = get(t, s.url+"/")
			if got := limitsOf(t, resp); got != [4]int64{100, 100, 1000, 1000} {
				t.Errorf("GET / without a key: %v, want the Free plan with nothing used", got)
			}
		})
	}
}

// TestKeysOfOneAccountSharePool: two keys of one account, on both games.
func TestKeysOfOneAccountSharePool(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			vars := b.vars(t)
			avoidWindowEnd(t, 5*time.Second)
			dir := t.TempDir()
			k1 := newKey(t, dir, "--email", "shared@example.com", "--plan", "pro")
			k2 := newKey(t, dir, "--email", "shared@example.com", "--test")
			other := newKey(t, dir, "--email", "other@example.com", "--plan", "pro")
			s := startServe(t, dir, vars)
			for range 3 {
				get(t, s.url+"/dbs/sets", "X-API-Key", k1)
				get(t, s.url+"/mtg/sets", "X-API-Key", k2)
			}
			resp, _ := get(t, s.url+"/mtg/search?q=bat", "Authorization", "Bearer "+k2)
			if got := limitsOf(t, resp); got != [4]int64{5000, 4993, 50000, 49993} {
				t.Errorf("seventh request of the account: %v", got)
			}
			resp, _ = get(t, s.url+"/dbs/sets", "X-API-Key", other)
			if got := limitsOf(t, resp); got != [4]int64{5000, 4999, 50000, 49999} {
				t.Errorf("another account: %v", got)
			}
		})
	}
}

// TestTwoServersShareRedisPool: two server processes on one Redis (and one
// account store) enforce one pool between them.
func TestTwoServersShareRedisPool(t *testing.T) {
	vars := redisVars(t)
	avoidWindowEnd(t, 5*time.Second)
	dir := t.TempDir()
	key := newKey(t, dir)
	a := startServe(t, dir, vars)
	b := startServe(t, dir, vars)
	var wg sync.WaitGroup
	codes := make(chan int, 120)
	for _, s := range []*server{a, b} {
		client := checkedClient(t, s.url)
		wg.Go(func() { // no t.Fatal off the test goroutine: a failed request is status 0
			for i := range 60 {
				req, _ := http.NewRequest(http.MethodGet, s.url+[]string{"/dbs/sets", "/mtg/sets"}[i%2], nil)
				req.Header.Set("X-API-Key", key)
				resp, err := client.Do(req)
				if err != nil {
					codes <- 0
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				codes <- resp.StatusCode
			}
		})
	}
	wg.Wait()
	close(codes)
	n := map[int]int{}
	for c := range codes {
		n[c]++
	}
	if n[200] != 100 || n[429] != 20 {
		t.Errorf("120 requests of a Free key over two servers: %v, want 100 × 200 and 20 × 429", n)
	}
	for _, s := range []*server{a, b} {
		resp, _ := get(t, s.url+"/health", "X-API-Key", key)
		if got := limitsOf(t, resp); got != [4]int64{100, 0, 1000, 900} {
			t.Errorf("%s: pool %v, want the shared one exhausted", s.url, got)
		}
	}
}

// TestTrialAccess: a paid route with an active, an expired and a never
// started trial; a trial started while the server runs opens it.
func TestTrialAccess(t *testing.T) {
	dir := t.TempDir()
	now := time.Now().UTC()
	active := newKey(t, dir, "--trial-start", now.Add(-24*time.Hour).Format(time.RFC3339))
	expired := newKey(t, dir, "--plan", "pro", "--trial-start", now.Add(-8*24*time.Hour).Format(time.RFC3339))
	never := newKey(t, dir, "--email", "never@example.com")
	ultra := newKey(t, dir, "--plan", "ultra")
	vars := map[string]string{"CARDCAT_PUBLIC_URL": "https://api.example.test/", "CARDCAT_KEYS_REFRESH_INTERVAL": "50ms"}
	s := startServe(t, dir, vars)
	const paid = "/mtg/sets/trending"
	type answer struct {
		Error      string `json:"error"`
		RedeemURL  string `json:"redeem_url"`
		UpgradeURL string `json:"upgrade_url"`
	}
	call := func(key string) (int, answer) {
		resp, body := get(t, s.url+paid, "X-API-Key", key)
		var a answer
		json.Unmarshal(body, &a)
		return resp.StatusCode, a
	}
	if code, _ := call(active); code != 200 {
		t.Errorf("active trial: %d", code)
	}
	if code, _ := call(ultra); code != 200 {
		t.Errorf("ultra: %d", code)
	}
	if code, a := call(expired); code != 403 || a != (answer{Error: "Plan upgrade required", UpgradeURL: "https://api.example.test/account/upgrade"}) {
		t.Errorf("expired trial: %d %+v", code, a)
	}
	if code, a := call(never); code != 403 || a != (answer{Error: "Plan upgrade required", RedeemURL: "https://api.example.test/account/trial"}) {
		t.Errorf("no trial: %d %+v", code, a)
	}
	cardcatCmd(t, dir, "accounts", "start-trial", "--email", "never@example.com")
	waitFor(t, 5*time.Second, "the started trial to reach the server", func() bool {
		code, _ := call(never)
		return code == 200
	})
}

// TestRevokedKey: a revoked key is refused within the key refresh interval;
// the account's other key goes on working.
func TestRevokedKey(t *testing.T) {
	dir := t.TempDir()
	key, id := createKey(t, dir, "--email", "rev@example.com")
	spare := newKey(t, dir, "--email", "rev@example.com")
	s := startServe(t, dir, map[string]string{"CARDCAT_KEYS_REFRESH_INTERVAL": "50ms"})
	if resp, _ := get(t, s.url+"/dbs/sets", "X-API-Key", key); resp.StatusCode != 200 {
		t.Fatalf("before the revocation: %d", resp.StatusCode)
	}
	cardcatCmd(t, dir, "keys", "revoke", id)
	start := time.Now()
	waitFor(t, 5*time.Second, "the revocation to reach the server", func() bool {
		resp, _ := get(t, s.url+"/dbs/sets", "X-API-Key", key)
		return resp.StatusCode == 401
	})
	t.Logf("revocation effective after %v", time.Since(start).Round(time.Millisecond))
	if resp, _ := get(t, s.url+"/dbs/sets", "X-API-Key", spare); resp.StatusCode != 200 {
		t.Errorf("the account's other key: %d", resp.StatusCode)
	}
	// Keys created while the server runs work within the interval too.
	fresh := newKey(t, dir)
	waitFor(t, 5*time.Second, "a new key to reach the server", func() bool {
		resp, _ := get(t, s.url+"/dbs/sets", "X-API-Key", fresh)
		return resp.StatusCode == 200
	})
}

// TestRestartKeepsCounters: the in-process limiter's counts survive a
// restart on the same data directory.
func TestRestartKeepsCounters(t *testing.T) {
	avoidWindowEnd(t, 5*time.Second)
	dir := t.TempDir()
	key := newKey(t, dir)
	s := startServe(t, dir, nil)
	for range 5 {
		get(t, s.url+"/dbs/sets", "X-API-Key", key)
	}
	get(t, s.url+"/dbs/sets") // and one in the guard bucket
	if err := s.stop(); err != nil {
		t.Fatalf("stop: %v\n%s", err, s.stderr)
	}
	s = startServe(t, dir, nil)
	resp, _ := get(t, s.url+"/mtg/sets", "X-API-Key", key)
	if got := limitsOf(t, resp); got != [4]int64{100, 94, 1000, 994} {
		t.Errorf("sixth request, after a restart: %v, want 94 left this hour", got)
	}
	resp, _ = get(t, s.url+"/mtg/sets")
	if got := limitsOf(t, resp); got != [4]int64{1000, 998, 24000, 23998} {
		t.Errorf("guard bucket after a restart: %v", got)
	}
}

// TestGuardBucketEndToEnd: requests without a valid key past
// CARDCAT_GUARD_PER_HOUR are 429; behind a trusted proxy each client has its
// own bucket.
func TestGuardBucketEndToEnd(t *testing.T) {
	avoidWindowEnd(t, 5*time.Second)
	dir := t.TempDir()
	key := newKey(t, dir)
	s := startServe(t, dir, map[string]string{"CARDCAT_GUARD_PER_HOUR": "3", "CARDCAT_TRUSTED_PROXIES": "127.0.0.0/8, ::1"})
	for i, k := range []string{"", "pk_live_short", "pk_live_" + strings.Repeat("Q", 32)} {
		resp, _ := get(t, s.url+"/dbs/sets", "X-API-Key", k, "X-Forwarded-For", "203.0.113.5")
		if got := limitsOf(t, resp); resp.StatusCode != 401 || got != [4]int64{3, int64(2 - i), 72, int64(71 - i)} {
			t.Errorf("request %d without a valid key: %d %v", i+1, resp.StatusCode, got)
		}
	}
	resp, body := get(t, s.url+"/dbs/sets", "X-Forwarded-For", "203.0.113.5")
	if resp.StatusCode != 429 || !bytes.Contains(body, []byte(`"error":"Rate limit exceeded"`)) || resp.Header.Get("Retry-After") == "" {
		t.Errorf("fourth request without a valid key: %d %s", resp.StatusCode, body)
	}
	if resp, _ := get(t, s.url+"/dbs/sets", "X-Forwarded-For", "203.0.113.6"); resp.StatusCode != 401 {
		t.Errorf("another client behind the proxy: %d, want 401", resp.StatusCode)
	}
	if resp, _ := get(t, s.url+"/dbs/sets", "X-API-Key", key, "X-Forwarded-For", "203.0.113.5"); resp.StatusCode != 200 {
		t.Errorf("a valid key from the blocked client: %d", resp.StatusCode)
	}
	if resp, _ := get(t, s.url+"/health", "X-Forwarded-For", "203.0.113.5"); resp.StatusCode != 200 {
		t.Errorf("/health from the blocked client: %d", resp.StatusCode)
	}
}

// TestRedisUnreachable: with Redis down the server starts, serves and counts
// on its local limiter, and /health shows the cache unhealthy while the
// service stays healthy.
func TestRedisUnreachable(t *testing.T) {
	dir := t.TempDir()
	key := newKey(t, dir)
	s := startServe(t, dir, map[string]string{"CARDCAT_REDIS_URL": "redis://127.0.0.1:1/0"})
	for i := 1; i <= 2; i++ {
		resp, _ := get(t, s.url+"/dbs/sets", "X-API-Key", key)
		if got := limitsOf(t, resp); resp.StatusCode != 200 || got[1] != int64(100-i) {
			t.Errorf("request %d with Redis down: %d %v", i, resp.StatusCode, got)
		}
	}
	resp, body := get(t, s.url+"/health")
	var h struct {
		Status string
		Checks map[string]struct{ Status string }
	}
	json.Unmarshal(body, &h)
	if resp.StatusCode != 200 || h.Status != "healthy" || h.Checks["cache"].Status != "unhealthy" {
		t.Errorf("/health with Redis down: %d %s", resp.StatusCode, body)
	}
}

// TestRedisHealthy: with Redis up the cache check is healthy.
func TestRedisHealthy(t *testing.T) {
	vars := redisVars(t)
	dir := t.TempDir()
	s := startServe(t, dir, vars)
	_, body := get(t, s.url+"/health")
	if !bytes.Contains(body, []byte(`"cache":{"status":"healthy"`)) {
		t.Errorf("/health with Redis: %s", body)
	}
}

func TestLimitFlags(t *testing.T) {
	for _, tt := range []struct {
		args []string
		vars map[string]string
	}{
		{[]string{"serve", "--guard-per-hour", "0"}, nil},
		{[]string{"serve", "--keys-refresh-interval", "0s"}, nil},
		{[]string{"serve", "--trusted-proxies", "10.0.0.0/99"}, nil},
		{[]string{"serve"}, map[string]string{"CARDCAT_GUARD_PER_HOUR": "many"}},
		{[]string{"serve", "--redis-url", "http://127.0.0.1:6379"}, nil},
	} {
		vars := map[string]string{"CARDCAT_DATA_DIR": t.TempDir()}
		for k, v := range tt.vars {
			vars[k] = v
		}
		var out, errb bytes.Buffer
		err := run(context.Background(), append(tt.args, "--addr", "127.0.0.1:0"), testEnv(vars), &out, &errb)
		if err == nil || exitCode(err) != 2 {
			t.Errorf("cardcat %v %v: %v, want a usage error", tt.args, tt.vars, err)
		}
	}
}
