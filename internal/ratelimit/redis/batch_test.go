package redis

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/cardcat/cardcat/internal/ratelimit"
	"github.com/cardcat/cardcat/internal/ratelimit/limitertest"
)

// batchStats reports how many round trips the limiter sent and how many calls they carried.
func (l *Limiter) batchStats() (rounds, calls int64) { return l.rounds.Load(), l.sentAll.Load() }

// TestBatchedTakesCountExactly: two replicas, many goroutines each, one pool.
// Exactly the quota is admitted, every admitted Take sees a distinct count
// (each ran its own script, atomically), and the replicas did batch.
func TestBatchedTakesCountExactly(t *testing.T) {
	url := redisURL(t)
	prefix := testPrefix(t, url)
	fa, fb := &spy{}, &spy{}
	a := mustOpen(t, url, fa, Options{Prefix: prefix, Timeout: steady})
	b := mustOpen(t, url, fb, Options{Prefix: prefix, Timeout: steady})
	pool := ratelimit.Limits{Hour: 100, Day: 1000}

	var (
		mu      sync.Mutex
		seen    = map[int64]bool{}
		allowed atomic.Int64
		wg      sync.WaitGroup
		start   = make(chan struct{})
	)
	for i := range 64 {
		l := a
		if i%2 == 1 {
			l = b
		}
		wg.Go(func() {
			<-start
			for range 5 {
				r, err := l.Take(context.Background(), "acct:batch", pool, now)
				if err != nil {
					t.Error(err)
					return
				}
				if !r.Allowed {
					continue
				}
				allowed.Add(1)
				mu.Lock()
				if seen[r.Hour.Used] {
					t.Errorf("two admitted Takes both saw %d used", r.Hour.Used)
				}
				seen[r.Hour.Used] = true
				mu.Unlock()
			}
		})
	}
	close(start)
	wg.Wait()

	if got := allowed.Load(); got != 100 {
		t.Errorf("320 Takes on a pool of 100 admitted %d", got)
	}
	for n := int64(1); n <= 100; n++ {
		if !seen[n] {
			t.Errorf("no admitted Take saw %d used", n)
		}
	}
	if r := limitertest.MustPeek(t, a, "acct:batch", pool, now); r.Allowed || r.Hour.Used != 100 {
		t.Errorf("after the race: %+v, want 100 used and denied", r)
	}
	if n := fa.takes.Load() + fb.takes.Load(); n > 0 {
		t.Errorf("%d Takes went to the fallback", n)
	}
	for name, l := range map[string]*Limiter{"a": a, "b": b} {
		rounds, calls := l.batchStats()
		t.Logf("replica %s: %d calls in %d round trips", name, calls, rounds)
		if calls <= rounds {
			t.Errorf("replica %s never batched: %d calls in %d round trips", name, calls, rounds)
		}
	}
}

// TestLoneCallsGoAlone: a call that finds nothing in flight sends at once,
// alone, rather than waiting for company.
func TestLoneCallsGoAlone(t *testing.T) {
	url := redisURL(t)
	l := mustOpen(t, url, &spy{}, Options{Prefix: testPrefix(t, url), Timeout: steady})
	limitertest.TakeN(t, l, "k", lim, now, 10)
	limitertest.MustPeek(t, l, "k", lim, now)
	if rounds, calls := l.batchStats(); rounds != 11 || calls != 11 {
		t.Errorf("11 calls one after the other: %d calls in %d round trips, want 11 in 11", calls, rounds)
	}
}

// holdRoundTrips pauses the proxy and starts two Takes, each leading a round
// trip of its own (two lone calls may, see goAlone), which stay in flight until
// the proxy's mode changes; calls made meanwhile queue behind them. It returns
// the Takes' errors, on a channel that receives two.
func holdRoundTrips(t *testing.T, l *Limiter, px *proxy, key string) <-chan error {
	t.Helper()
	px.setMode(pause)
	done := make(chan error, 2)
	for n := 1; n <= 2; n++ {
		go func() {
			_, err := l.Take(context.Background(), key, lim, now)
			done <- err
		}()
		waitFor(t, "the round trip to be in flight", func() bool {
			l.bmu.Lock()
			defer l.bmu.Unlock()
			return l.inFlight == n
		})
	}
	return done
}

// waitFor polls cond for up to 5 seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func queueLen(l *Limiter) int {
	l.bmu.Lock()
	defer l.bmu.Unlock()
	return len(l.queue)
}

// proxied opens a limiter on Redis through a proxy, and one straight on Redis
// with the same prefix to read the counts.
func proxied(t *testing.T, fallback ratelimit.Limiter, opts Options) (l, direct *Limiter, px *proxy) {
	t.Helper()
	url := redisURL(t)
	o, _ := goredis.ParseURL(url)
	px = startProxy(t, o.Addr)
	opts.Prefix = testPrefix(t, url)
	l = mustOpen(t, "redis://"+px.addr()+"/"+itoa(int64(o.DB)), fallback, opts)
	direct = mustOpen(t, url, &spy{}, Options{Prefix: opts.Prefix, Timeout: steady})
	return l, direct, px
}

// TestBatchWithCancelledCallers: callers that give up while queued, the
// oldest among them (the one that would have led the next batch) included,
// leave at once, uncounted, and the others of their batch are answered.
func TestBatchWithCancelledCallers(t *testing.T) {
	fallback := &spy{}
	l, direct, px := proxied(t, fallback, Options{Timeout: steady})
	limitertest.TakeN(t, l, "k", lim, now, 1) // dialled

	held := holdRoundTrips(t, l, px, "k")

	type answer struct {
		r   ratelimit.Result
		err error
	}
	take := func(ctx context.Context) <-chan answer {
		ch := make(chan answer, 1)
		go func() {
			r, err := l.Take(ctx, "k", lim, now)
			ch <- answer{r, err}
		}()
		return ch
	}
	var cancels []context.CancelFunc
	var gone, stay []<-chan answer
	for i := range 9 {
		if i%3 == 0 { // the first, the oldest, would lead the next batch
			ctx, cancel := context.WithCancel(context.Background())
			cancels = append(cancels, cancel)
			gone = append(gone, take(ctx))
		} else {
			stay = append(stay, take(context.Background()))
		}
		waitFor(t, "the call to queue", func() bool { return queueLen(l) == i+1 })
	}
	for _, cancel := range cancels {
		cancel()
	}
	for _, ch := range gone {
		select {
		case a := <-ch:
			if !errors.Is(a.err, context.Canceled) {
				t.Errorf("cancelled queued caller got %+v, %v; want context.Canceled", a.r, a.err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("a cancelled caller still waits for the round trip in flight")
		}
	}
	if n := queueLen(l); n != len(stay) {
		t.Errorf("%d calls queued after the cancellations, want %d", n, len(stay))
	}

	px.setMode(forward)
	for range 2 {
		if err := <-held; err != nil {
			t.Fatalf("a held Take: %v", err)
		}
	}
	seen := map[int64]bool{}
	for _, ch := range stay {
		a := <-ch
		if a.err != nil || !a.r.Allowed {
			t.Errorf("queued caller: %+v, %v", a.r, a.err)
			continue
		}
		seen[a.r.Hour.Used] = true
	}
	// 1 before, the 2 held, and the 6 that stayed; none of the 3 that left.
	if r := limitertest.MustPeek(t, direct, "k", lim, now); r.Hour.Used != 9 {
		t.Errorf("Redis counted %d, want 9", r.Hour.Used)
	}
	if len(seen) != len(stay) {
		t.Errorf("the queued callers saw counts %v, want %d distinct", seen, len(stay))
	}
	if l.down.Load() || fallback.takes.Load() != 0 {
		t.Error("cancelled callers were taken for a Redis outage")
	}
	if rounds, calls := l.batchStats(); rounds != 4 || calls != 9 {
		t.Errorf("%d calls in %d round trips, want 9 in 4 (1, the 2 held, then 6 together)", calls, rounds)
	}
}

// TestBatchCancellationStress cancels callers at random moments, so that some
// leave while queued, some while their batch is in flight and some after
// being made leader (go test -race watches the hand-overs). Every caller that
// stays gets Redis's answer, and Redis counts every admitted one plus at most
// the cancelled ones whose script had already run.
func TestBatchCancellationStress(t *testing.T) {
	url := redisURL(t)
	fallback := &spy{}
	prefix := testPrefix(t, url)
	var logs logBuffer
	// Exact Takes, every one a call of a batch: with leases most of them
	// would not reach a batch (TestLeaseCancellationStress has them).
	l := mustOpen(t, url, fallback, Options{Prefix: prefix, Timeout: steady, Logger: logs.Logger(), MaxLease: 1})
	direct := mustOpen(t, url, &spy{}, Options{Prefix: prefix, Timeout: steady})
	pool := ratelimit.Limits{Hour: 1 << 40, Day: 1 << 40}

	admitted, cancelled := takeCancelling(t, l, pool, 50)
	if l.down.Load() || fallback.takes.Load() != 0 {
		t.Fatalf("cancelled callers were taken for a Redis outage; log:\n%s", logs.String())
	}
	got := limitertest.MustPeek(t, direct, "k", pool, now).Hour.Used
	t.Logf("%d admitted, %d cancelled, Redis counted %d", admitted.Load(), cancelled.Load(), got)
	if got < admitted.Load() || got > admitted.Load()+cancelled.Load() {
		t.Errorf("Redis counted %d, want between %d admitted and %d with the cancelled", got, admitted.Load(), admitted.Load()+cancelled.Load())
	}
	if admitted.Load()+cancelled.Load() != 32*50 {
		t.Errorf("%d answers, want %d", admitted.Load()+cancelled.Load(), 32*50)
	}
}

// TestBatchInFlightWhenRedisGoesDown: a round trip in flight with a batch
// queued behind it when Redis goes away (refused) or hangs (swallowed).
// Every call falls back, exactly once, within about two timeouts; the outage
// is logged once; after recovery the fallback's counts are added to Redis (so
// each call counts once in Redis: none of them reached it before) and
// counting goes back to Redis.
func TestBatchInFlightWhenRedisGoesDown(t *testing.T) {
	for _, tt := range []struct {
		name string
		mode int32
	}{{"refused", refuse}, {"hangs", blackhole}} {
		t.Run(tt.name, func(t *testing.T) {
			var logs logBuffer
			fallback := &spy{}
			const timeout = 300 * time.Millisecond
			l, direct, px := proxied(t, fallback, Options{Timeout: timeout, ProbeInterval: 10 * time.Millisecond, Logger: logs.Logger(), Now: func() time.Time { return now }})
			limitertest.TakeN(t, l, "k", lim, now, 1)
			if l.down.Load() {
				t.Skip("Redis took over 300ms before the outage was even simulated: this machine is too loaded for a timing test")
			}

			start := time.Now()
			held := holdRoundTrips(t, l, px, "k")
			const queued = 20
			var wg sync.WaitGroup
			for range queued {
				wg.Go(func() {
					if _, err := l.Take(context.Background(), "k", lim, now); err != nil {
						t.Error(err)
					}
				})
			}
			waitFor(t, "the calls to queue", func() bool { return queueLen(l) == queued })
			px.setMode(tt.mode)
			for range 2 {
				if err := <-held; err != nil {
					t.Errorf("a held Take: %v", err)
				}
			}
			wg.Wait()
			if d := time.Since(start); d > 2*timeout+time.Second {
				t.Errorf("the batch took %v to fall back, want about two timeouts of %v at most", d, timeout)
			}
			if got := fallback.takes.Load(); got != queued+2 {
				t.Errorf("fallback Takes = %d, want %d", got, queued+2)
			}
			if n := logs.count(downMsg); n != 1 {
				t.Errorf("outage logged %d times, want once:\n%s", n, logs.String())
			}

			px.setMode(forward)
			waitFor(t, "the probe to see Redis again", func() bool { return !l.down.Load() })
			limitertest.TakeN(t, l, "k", lim, now, 1)
			if r := limitertest.MustPeek(t, direct, "k", lim, now); r.Hour.Used != queued+4 {
				t.Errorf("Redis counted %d, want %d (one before the outage, %d during it added when Redis came back, one after)", r.Hour.Used, queued+4, queued+2)
			}
			if got := fallback.takes.Load(); got != queued+2 {
				t.Errorf("fallback Takes after recovery = %d, want still %d", got, queued+2)
			}
		})
	}
}

// TestBatchScriptNotCached: a batch that meets a Redis without the script
// (restarted, or SCRIPT FLUSH) runs every call once, as EVAL, in a second
// round trip. The batch is built by hand so that its first use of a fresh
// script is the batch itself.
func TestBatchScriptNotCached(t *testing.T) {
	url := redisURL(t)
	l := mustOpen(t, url, &spy{}, Options{Prefix: testPrefix(t, url), Timeout: steady})
	b := make([]byte, 8)
	crand.Read(b)
	l.script = goredis.NewScript(takeLua + "-- " + hex.EncodeToString(b) + "\n")

	var batch []*call
	for i := range 5 {
		key := "k"
		if i%2 == 1 {
			key = "other"
		}
		p := ratelimit.PeriodAt(now)
		batch = append(batch, &call{keys: l.keys(key, p), lim: lim, period: p, now: now, take: true,
			ctx: context.Background(), deadline: time.Now().Add(steady)})
	}
	l.send(batch)
	for i, c := range batch {
		want := int64(i/2 + 1) // k: 1, 2, 3; other: 1, 2
		if c.err != nil || !c.res.Allowed || c.res.Hour.Used != want {
			t.Errorf("call %d: %+v, %v; want allowed with %d used", i, c.res, c.err, want)
		}
	}
	exists, err := adminClient(t, url).ScriptExists(context.Background(), l.script.Hash()).Result()
	if err != nil || !exists[0] {
		t.Errorf("script not cached after the batch: %v, %v", exists, err)
	}
	if r := limitertest.MustPeek(t, l, "k", lim, now); r.Hour.Used != 3 {
		t.Errorf("k counted %d, want 3", r.Hour.Used)
	}
}

// TestProtocol: RESP2 by default (see Open), RESP3 when the URL asks for it.
func TestProtocol(t *testing.T) {
	for url, want := range map[string]int{
		"redis://127.0.0.1:1/0":            2,
		"redis://127.0.0.1:1/0?protocol=3": 3,
	} {
		l, err := Open(context.Background(), url, &spy{}, Options{Timeout: 10 * time.Millisecond, ProbeInterval: time.Hour, Logger: (&logBuffer{}).Logger()})
		if err != nil {
			t.Fatal(err)
		}
		if got := l.client.Options().Protocol; got != want {
			t.Errorf("%s: protocol %d, want %d", url, got, want)
		}
		l.Close()
	}
}

// takeCancelling runs Takes of pool "k" from 32 goroutines, each per times,
// every one with a deadline of 0-2 ms, and counts those admitted and those
// given up at their deadline; any other outcome fails t.
func takeCancelling(t *testing.T, l *Limiter, pool ratelimit.Limits, per int) (admitted, cancelled *atomic.Int64) {
	admitted, cancelled = new(atomic.Int64), new(atomic.Int64)
	var wg sync.WaitGroup
	for range 32 {
		wg.Go(func() {
			for range per {
				ctx, cancel := context.WithTimeout(context.Background(), time.Duration(rand.IntN(2000))*time.Microsecond)
				r, err := l.Take(ctx, "k", pool, now)
				cancel()
				switch {
				case err == nil && r.Allowed:
					admitted.Add(1)
				case errors.Is(err, context.DeadlineExceeded):
					cancelled.Add(1)
				default:
					t.Errorf("Take: %+v, %v", r, err)
				}
			}
		})
	}
	wg.Wait()
	return admitted, cancelled
}
