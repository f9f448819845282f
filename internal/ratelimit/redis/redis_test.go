package redis

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/cardcat/cardcat/internal/ratelimit"
	"github.com/cardcat/cardcat/internal/ratelimit/limitertest"
	"github.com/cardcat/cardcat/internal/testkit"
)

const urlVar = "CARDCAT_TEST_REDIS_URL"

var (
	now = time.Date(2025, 3, 14, 13, 20, 0, 0, time.UTC)
	lim = ratelimit.Limits{Hour: 100, Day: 1000}
)

// redisURL returns the test Redis, or skips the test when none is configured.
func redisURL(tb testing.TB) string {
	tb.Helper()
	u := os.Getenv(urlVar)
	if u == "" {
		tb.Skipf("%s is not set; set it (for example to redis://127.0.0.1:6379/0) to run the Redis limiter tests", urlVar)
	}
	return u
}

// testPrefix returns a key prefix no other test uses, and deletes its keys
// when tb ends.
func testPrefix(tb testing.TB, url string) string {
	tb.Helper()
	b := make([]byte, 8)
	rand.Read(b)
	prefix := "cardcat:test:rl:" + hex.EncodeToString(b) + ":"
	tb.Cleanup(func() {
		c := adminClient(tb, url)
		ctx := context.Background()
		iter := c.Scan(ctx, 0, prefix+"*", 1000).Iterator()
		for iter.Next(ctx) {
			c.Del(ctx, iter.Val())
		}
		if err := iter.Err(); err != nil {
			tb.Errorf("cleaning up %s*: %v", prefix, err)
		}
	})
	return prefix
}

// adminClient is a plain client for inspecting what the limiter wrote.
func adminClient(tb testing.TB, url string) *goredis.Client {
	tb.Helper()
	o, err := goredis.ParseURL(url)
	if err != nil {
		tb.Fatalf("parse %s: %v", urlVar, err)
	}
	c := goredis.NewClient(o)
	tb.Cleanup(func() { c.Close() })
	return c
}

// counterKeys returns the counters under prefix: every key but the set of
// replicas.
func counterKeys(t *testing.T, url, prefix string) []string {
	t.Helper()
	keys, err := adminClient(t, url).Keys(context.Background(), prefix+"*").Result()
	if err != nil {
		t.Fatal(err)
	}
	return slices.DeleteFunc(keys, func(k string) bool { return k == prefix+"replicas" })
}

// spy is a fallback that records its use and counts like a trivial limiter.
type spy struct {
	takes, peeks, refunds atomic.Int64
	closed                atomic.Bool
}

func (s *spy) Take(_ context.Context, _ string, lim ratelimit.Limits, now time.Time) (ratelimit.Result, error) {
	n := s.takes.Add(1)
	return ratelimit.NewResult(lim, ratelimit.PeriodAt(now), n, n, lim.Admits(n-1, n-1), now), nil
}

func (s *spy) Peek(_ context.Context, _ string, lim ratelimit.Limits, now time.Time) (ratelimit.Result, error) {
	s.peeks.Add(1)
	n := s.takes.Load()
	return ratelimit.NewResult(lim, ratelimit.PeriodAt(now), n, n, lim.Admits(n, n), now), nil
}

func (s *spy) Refund(context.Context, string, int64, time.Time) error {
	s.refunds.Add(1)
	return nil
}

func (s *spy) Close() error {
	s.closed.Store(true)
	return nil
}

// logBuffer collects the limiter's log lines.
type logBuffer struct{ testkit.SyncBuffer }

func (b *logBuffer) Logger() *slog.Logger { return slog.New(slog.NewTextHandler(b, nil)) }

func (b *logBuffer) count(s string) int { return strings.Count(b.String(), s) }

// steady is the timeout of tests that check what Redis counts: long, so that
// a loaded test machine (Redis descheduled for tens of milliseconds happens)
// does not send them to the fallback.
const steady = 2 * time.Second

const (
	downMsg = "redis rate limiter unreachable"
	upMsg   = "redis rate limiter reachable again"
)

func mustOpen(t *testing.T, url string, fallback ratelimit.Limiter, opts Options) *Limiter {
	t.Helper()
	l, err := Open(context.Background(), url, fallback, opts)
	if err != nil {
		t.Fatalf("Open(%s): %v", url, err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func TestSuite(t *testing.T) {
	url := redisURL(t)
	limitertest.Run(t, func(t *testing.T) ratelimit.Limiter {
		fallback := &spy{}
		l := mustOpen(t, url, fallback, Options{Prefix: testPrefix(t, url), Timeout: steady})
		t.Cleanup(func() {
			// The suite is about Redis: an answer from the fallback would
			// have passed it without Redis doing anything.
			if n := fallback.takes.Load() + fallback.peeks.Load() + fallback.refunds.Load(); n > 0 {
				t.Errorf("%d calls went to the fallback", n)
			}
		})
		return l
	})
}

func TestReplicasShareOnePool(t *testing.T) {
	url := redisURL(t)
	prefix := testPrefix(t, url)
	a := mustOpen(t, url, &spy{}, Options{Prefix: prefix, Timeout: steady})
	b := mustOpen(t, url, &spy{}, Options{Prefix: prefix, Timeout: steady})
	small := ratelimit.Limits{Hour: 10, Day: 100}

	for i := range 5 {
		for name, l := range map[string]*Limiter{"a": a, "b": b} {
			if r := limitertest.MustTake(t, l, "acct:1", small, now); !r.Allowed {
				t.Fatalf("round %d: replica %s denied: %+v", i, name, r)
			}
		}
	}
	for name, l := range map[string]*Limiter{"a": a, "b": b} {
		r := limitertest.MustTake(t, l, "acct:1", small, now)
		if r.Allowed || r.Hour.Used != 10 {
			t.Errorf("replica %s after 10 Takes between both: %+v, want denied with 10 used", name, r)
		}
	}

	// Racing: 2 replicas × 4 goroutines × 25 Takes for a pool of 60.
	var allowed atomic.Int64
	var wg sync.WaitGroup
	race := ratelimit.Limits{Hour: 60, Day: 1000}
	for _, l := range []*Limiter{a, b, a, b, a, b, a, b} {
		wg.Go(func() {
			for range 25 {
				r, err := l.Take(context.Background(), "acct:race", race, now)
				if err != nil {
					t.Error(err)
					return
				}
				if r.Allowed {
					allowed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if got := allowed.Load(); got != 60 {
		t.Errorf("two replicas racing allowed %d, want 60", got)
	}
}

func TestKeysAndExpiry(t *testing.T) {
	url := redisURL(t)
	prefix := testPrefix(t, url)
	l := mustOpen(t, url, &spy{}, Options{Prefix: prefix, Timeout: steady})
	c := adminClient(t, url)
	ctx := context.Background()

	// Neither a Peek nor a denied Take leaves a key behind.
	limitertest.MustPeek(t, l, "acct:1", lim, now)
	limitertest.MustTake(t, l, "acct:1", ratelimit.Limits{}, now)
	if keys := counterKeys(t, url, prefix); len(keys) != 0 {
		t.Fatalf("keys after Peek and a denied Take: %v", keys)
	}

	limitertest.TakeN(t, l, "acct:1", lim, now, 3)
	p := ratelimit.PeriodAt(now)
	tests := []struct {
		key  string
		ttl  time.Duration // window end - now + margin
		used string
	}{
		{prefix + "{acct:1}:h:" + itoa(p.Hour), 40*time.Minute + expiryMargin, "3"},
		{prefix + "{acct:1}:d:" + itoa(p.Day), 10*time.Hour + 40*time.Minute + expiryMargin, "3"},
	}
	for _, tt := range tests {
		if got, err := c.Get(ctx, tt.key).Result(); err != nil || got != tt.used {
			t.Errorf("GET %s = %q, %v; want %q", tt.key, got, err, tt.used)
		}
		got, err := c.TTL(ctx, tt.key).Result()
		if err != nil || got > tt.ttl || got < tt.ttl-5*time.Second {
			t.Errorf("TTL %s = %v, %v; want about %v", tt.key, got, err, tt.ttl)
		}
	}
	if keys := counterKeys(t, url, prefix); len(keys) != 2 {
		t.Errorf("keys = %v, want the two above", keys)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestScriptNotCachedFallsBackToEval gives the limiter a script Redis has never
// seen, as after a Redis restart or SCRIPT FLUSH, without flushing the scripts
// of everyone else on the test server.
func TestScriptNotCachedFallsBackToEval(t *testing.T) {
	url := redisURL(t)
	l := mustOpen(t, url, &spy{}, Options{Prefix: testPrefix(t, url), Timeout: steady})
	b := make([]byte, 8)
	rand.Read(b)
	l.script = goredis.NewScript(takeLua + "-- " + hex.EncodeToString(b) + "\n")
	c := adminClient(t, url)
	ctx := context.Background()
	if exists, err := c.ScriptExists(ctx, l.script.Hash()).Result(); err != nil || exists[0] {
		t.Fatalf("fresh script already cached (%v) or %v", exists, err)
	}

	if r := limitertest.MustTake(t, l, "k", lim, now); !r.Allowed || r.Hour.Used != 1 {
		t.Fatalf("Take with an uncached script = %+v", r)
	}
	if l.down.Load() {
		t.Fatal("NOSCRIPT was taken for an outage")
	}
	if exists, err := c.ScriptExists(ctx, l.script.Hash()).Result(); err != nil || !exists[0] {
		t.Errorf("script not cached after EVAL: %v, %v", exists, err)
	}
	if r := limitertest.MustTake(t, l, "k", lim, now); r.Hour.Used != 2 {
		t.Errorf("second Take = %+v, want 2 used", r)
	}
}

// freePort returns a loopback address nothing listens on.
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// TestRedisDownServesFromFallback needs no Redis: it points at a closed port.
func TestRedisDownServesFromFallback(t *testing.T) {
	var logs logBuffer
	fallback := &spy{}
	start := time.Now()
	l := mustOpen(t, "redis://"+freePort(t)+"/0", fallback, Options{Timeout: 50 * time.Millisecond, Logger: logs.Logger()})
	if d := time.Since(start); d > time.Second {
		t.Errorf("Open against a closed port took %v", d)
	}

	start = time.Now()
	for i := range 100 {
		r := limitertest.MustTake(t, l, "k", lim, now)
		if !r.Allowed || r.Hour.Used != int64(i+1) {
			t.Fatalf("Take %d = %+v, want the fallback's answer", i+1, r)
		}
	}
	// Waiting for Redis would cost 100 × 50ms; the bound leaves room for a loaded machine.
	if d := time.Since(start); d > time.Second {
		t.Errorf("100 Takes during an outage took %v: requests must not wait for Redis", d)
	}
	limitertest.MustPeek(t, l, "k", lim, now)
	if got := fallback.takes.Load(); got != 100 {
		t.Errorf("fallback Takes = %d, want 100", got)
	}
	if got := fallback.peeks.Load(); got != 1 {
		t.Errorf("fallback Peeks = %d, want 1", got)
	}
	if err := l.Healthy(context.Background()); err == nil {
		t.Error("Healthy with Redis down = nil")
	}
	if n := logs.count(downMsg); n != 1 {
		t.Errorf("outage logged %d times, want once:\n%s", n, logs.String())
	}

	if err := l.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if !fallback.closed.Load() {
		t.Error("Close did not close the fallback")
	}
}

// TestRedisHangingTimesOut: a server that accepts but never answers costs a
// request no more than the timeout, and later ones nothing.
func TestRedisHangingTimesOut(t *testing.T) {
	url := redisURL(t)
	o, _ := goredis.ParseURL(url)
	px := startProxy(t, o.Addr)
	var logs logBuffer
	fallback := &spy{}
	l := mustOpen(t, "redis://"+px.addr()+"/"+itoa(int64(o.DB)), fallback,
		Options{Prefix: testPrefix(t, url), Timeout: 250 * time.Millisecond, ProbeInterval: time.Hour, Logger: logs.Logger()})
	limitertest.TakeN(t, l, "k", lim, now, 1)
	if l.down.Load() {
		t.Skip("Redis took over 250ms before the hang was even simulated: this machine is too loaded for a timing test")
	}

	px.setMode(blackhole)
	start := time.Now()
	r := limitertest.MustTake(t, l, "k", lim, now)
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Take against a hanging Redis took %v, want about the 250ms timeout", d)
	}
	if fallback.takes.Load() != 1 || r.Hour.Used != 2 {
		t.Errorf("Take against a hanging Redis = %+v, want the fallback's first count on top of the 1 Redis counted", r)
	}
	start = time.Now()
	limitertest.TakeN(t, l, "k", lim, now, 20)
	if d := time.Since(start); d > time.Second {
		t.Errorf("20 Takes after the timeout took %v, want the fallback at once, not 20 timeouts", d)
	}
	if n := logs.count(downMsg); n != 1 {
		t.Errorf("outage logged %d times, want once:\n%s", n, logs.String())
	}
}

func TestRedisRecovers(t *testing.T) {
	url := redisURL(t)
	o, _ := goredis.ParseURL(url)
	px := startProxy(t, o.Addr)
	prefix := testPrefix(t, url)
	var logs logBuffer
	fallback := &spy{}
	l := mustOpen(t, "redis://"+px.addr()+"/"+itoa(int64(o.DB)), fallback,
		Options{Prefix: prefix, Timeout: steady, ProbeInterval: 10 * time.Millisecond, Logger: logs.Logger(), Now: func() time.Time { return now }})
	direct := mustOpen(t, url, &spy{}, Options{Prefix: prefix, Timeout: steady})

	limitertest.TakeN(t, l, "k", lim, now, 2)

	px.setMode(refuse)
	for range 5 {
		limitertest.MustTake(t, l, "k", lim, now)
	}
	if got := fallback.takes.Load(); got != 5 {
		t.Fatalf("fallback Takes during the outage = %d, want 5", got)
	}
	if err := l.Healthy(context.Background()); err == nil {
		t.Error("Healthy during the outage = nil")
	}

	px.setMode(forward)
	deadline := time.Now().Add(5 * time.Second)
	for l.down.Load() {
		if time.Now().After(deadline) {
			t.Fatalf("still on the fallback 5s after Redis came back; log:\n%s", logs.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := l.Healthy(context.Background()); err != nil {
		t.Errorf("Healthy after recovery: %v", err)
	}
	// Counting in Redis again, on the pool the outage did not touch.
	limitertest.TakeN(t, l, "k", lim, now, 1)
	if got := fallback.takes.Load(); got != 5 {
		t.Errorf("fallback Takes after recovery = %d, want still 5", got)
	}
	if r := limitertest.MustPeek(t, direct, "k", lim, now); r.Hour.Used != 8 {
		t.Errorf("Redis count after recovery = %d, want 8 (2 before the outage, 5 during it added when Redis came back, 1 after)", r.Hour.Used)
	}
	if n := logs.count(downMsg); n != 1 {
		t.Errorf("outage logged %d times, want once:\n%s", n, logs.String())
	}
	if n := logs.count(upMsg); n != 1 {
		t.Errorf("recovery logged %d times, want once:\n%s", n, logs.String())
	}

	// A second outage is noticed and logged again.
	px.setMode(refuse)
	limitertest.MustTake(t, l, "k", lim, now)
	if n := logs.count(downMsg); n != 2 {
		t.Errorf("second outage: logged %d outages, want 2:\n%s", n, logs.String())
	}
}

func TestCallerCancellationIsNotAnOutage(t *testing.T) {
	url := redisURL(t)
	var logs logBuffer
	fallback := &spy{}
	l := mustOpen(t, url, fallback, Options{Prefix: testPrefix(t, url), Timeout: steady, Logger: logs.Logger()})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := l.Take(ctx, "k", lim, now); !errors.Is(err, context.Canceled) {
		t.Errorf("Take with a cancelled context: %v, want context.Canceled", err)
	}
	if l.down.Load() || fallback.takes.Load() != 0 || logs.count(downMsg) != 0 {
		t.Errorf("a cancelled request was taken for a Redis outage; log:\n%s", logs.String())
	}
}

func TestOpenErrors(t *testing.T) {
	if _, err := Open(context.Background(), "http://127.0.0.1:6379", &spy{}, Options{}); err == nil {
		t.Error("Open with an http URL succeeded")
	}
	if _, err := Open(context.Background(), "redis://127.0.0.1:6379/0", nil, Options{}); err == nil {
		t.Error("Open without a fallback succeeded")
	}
}

func TestKeyNames(t *testing.T) {
	l := &Limiter{prefix: "p:"}
	p := ratelimit.Period{Hour: 482005, Day: 20083}
	got := l.keys("acct:1", p)
	want := [2]string{"p:{acct:1}:h:482005", "p:{acct:1}:d:20083"}
	if got != want {
		t.Errorf("keys = %q, want %q", got, want)
	}
}

func TestTTL(t *testing.T) {
	end := time.Date(2025, 3, 14, 14, 0, 0, 0, time.UTC)
	tests := []struct {
		now  time.Time
		want int64
	}{
		{end.Add(-40 * time.Minute), int64((40*time.Minute + expiryMargin) / time.Second)},
		{end.Add(-time.Nanosecond), int64(expiryMargin/time.Second) + 1},
		{end.Add(-1500 * time.Millisecond), int64(expiryMargin/time.Second) + 2},
	}
	for _, tt := range tests {
		if got := ttl(end, tt.now); got != tt.want {
			t.Errorf("ttl(%v, %v) = %d, want %d", end, tt.now, got, tt.want)
		}
	}
}
