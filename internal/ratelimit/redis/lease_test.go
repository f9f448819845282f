package redis

import (
	"context"
	"errors"
	"math"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/cardcat/cardcat/internal/faultproxy"
	"github.com/cardcat/cardcat/internal/ratelimit"
	"github.com/cardcat/cardcat/internal/ratelimit/limitertest"
	"github.com/cardcat/cardcat/internal/ratelimit/memory"
)

// big is a quota with room for leases (Pro's), and the most a replica may
// hold of it.
var big = ratelimit.Limits{Hour: 5000, Day: 50000}

// leaseLeft is what l holds of key's lease, not admitted yet.
func leaseLeft(l *Limiter, key string) int64 {
	s := l.leases.shard(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.pools[key]; e != nil {
		return e.left
	}
	return 0
}

// redisCount is what Redis holds for key's counters in the windows of at:
// the hour's and the day's.
func redisCount(t *testing.T, admin *goredis.Client, prefix, key string, at time.Time) (hour, day int64) {
	t.Helper()
	l := &Limiter{prefix: prefix}
	keys := l.keys(key, ratelimit.PeriodAt(at))
	for i, k := range keys {
		n, err := admin.Get(context.Background(), k).Int64()
		if err != nil && !errors.Is(err, goredis.Nil) {
			t.Fatal(err)
		}
		if i == 0 {
			hour = n
		} else {
			day = n
		}
	}
	return hour, day
}

// burst makes n Takes of key from g goroutines at once and returns how many
// were admitted.
func burst(t *testing.T, l ratelimit.Limiter, key string, lim ratelimit.Limits, at time.Time, g, n int) int64 {
	t.Helper()
	var admitted atomic.Int64
	var wg sync.WaitGroup
	for range g {
		wg.Go(func() {
			for range n {
				r, err := l.Take(context.Background(), key, lim, at)
				if err != nil {
					t.Error(err)
					return
				}
				if r.Allowed {
					admitted.Add(1)
				}
			}
		})
	}
	wg.Wait()
	return admitted.Load()
}

// leaseHeld bursts on key until l holds units of a lease of it (a burst can
// end with its lease spent to the unit), and returns the Takes admitted.
func leaseHeld(t *testing.T, l *Limiter, key string, lim ratelimit.Limits, at time.Time) int64 {
	t.Helper()
	var admitted int64
	for range 20 {
		admitted += burst(t, l, key, lim, at, 16, 10)
		if leaseLeft(l, key) > 0 {
			return admitted
		}
	}
	t.Fatalf("no lease held after 20 bursts (%d units leased in all)", l.leased.Load())
	return 0
}

// TestLeasesNeverOverAdmit: three replicas on one Redis, 32 goroutines each,
// hammer a small quota (its hour binds, barely room for leases) and a large
// one (its day binds) at once until each goroutine has been refused three
// times in a row. Every quota is admitted exactly, never more: the leases were
// counted in Redis before any of their units was admitted, and each replica
// spends its own before it is refused.
func TestLeasesNeverOverAdmit(t *testing.T) {
	url := redisURL(t)
	prefix := testPrefix(t, url)
	var replicas []*Limiter
	for range 3 {
		// No lease given back while the test runs: a unit given back after
		// the last Take of its pool would be admitted by nobody.
		replicas = append(replicas, mustOpen(t, url, &spy{}, Options{Prefix: prefix, Timeout: steady, LeaseIdle: time.Hour}))
	}
	pools := []struct {
		key   string
		lim   ratelimit.Limits
		limit int64
	}{
		{"acct:small", ratelimit.Limits{Hour: 300, Day: 100_000}, 300},
		{"acct:large", ratelimit.Limits{Hour: math.MaxInt64, Day: 20_000}, 20_000},
	}
	admitted := make([]atomic.Int64, len(pools))
	var wg sync.WaitGroup
	start := make(chan struct{})
	for _, l := range replicas {
		for g := range 32 {
			pi := g % len(pools)
			pool := pools[pi]
			wg.Go(func() {
				<-start
				for refused := 0; refused < 3; {
					r, err := l.Take(context.Background(), pool.key, pool.lim, now)
					if err != nil {
						t.Error(err)
						return
					}
					if r.Allowed {
						admitted[pi].Add(1)
						refused = 0
					} else {
						refused++
					}
				}
			})
		}
	}
	close(start)
	wg.Wait()

	var leased int64
	for _, l := range replicas {
		if l.down.Load() {
			t.Fatal("a replica counted on its fallback: the figures are not Redis's")
		}
		leased += l.leased.Load()
	}
	if leased == 0 {
		t.Fatal("no lease was taken: the test says nothing about them")
	}
	admin := adminClient(t, url)
	for i, pool := range pools {
		if got := admitted[i].Load(); got != pool.limit {
			t.Errorf("%s: %d admitted across 3 replicas, want exactly the limit %d", pool.key, got, pool.limit)
		}
		for j, l := range replicas {
			if n := leaseLeft(l, pool.key); n != 0 {
				t.Errorf("%s: replica %d still holds %d units after being refused", pool.key, j, n)
			}
		}
		if h, d := redisCount(t, admin, prefix, pool.key, now); min(h, d) != pool.limit {
			t.Errorf("%s: Redis counted %d this hour, %d today; want the limit %d in the binding window", pool.key, h, d, pool.limit)
		}
	}
	t.Logf("%d units leased in all", leased)
}

// TestLeaseGivenBackWhenIdle: a lease's units not admitted are counted in
// Redis while the pool is busy, reported as room by the replica that holds
// them, and given back once the pool is idle; then the pool is forgotten.
func TestLeaseGivenBackWhenIdle(t *testing.T) {
	url := redisURL(t)
	prefix := testPrefix(t, url)
	l := mustOpen(t, url, &spy{}, Options{Prefix: prefix, Timeout: steady, LeaseIdle: 100 * time.Millisecond})
	admin := adminClient(t, url)

	admitted := leaseHeld(t, l, "acct:1", big, now)
	left := leaseLeft(l, "acct:1")
	// The keeper may give the lease back from here on; read Redis first.
	if h, _ := redisCount(t, admin, prefix, "acct:1", now); h < admitted {
		t.Errorf("Redis counted %d with a lease held, want at least the %d admitted", h, admitted)
	}
	if r := limitertest.MustPeek(t, l, "acct:1", big, now); leaseLeft(l, "acct:1") == left && (r.Hour.Used != admitted || r.Day.Used != admitted) {
		t.Errorf("Peek with %d units held: %+v, want %d used (the units held are room)", left, r, admitted)
	}
	waitFor(t, "the idle lease to be given back", func() bool {
		h, d := redisCount(t, admin, prefix, "acct:1", now)
		return h == admitted && d == admitted
	})
	waitFor(t, "the idle pool to be forgotten", func() bool { return l.leases.len() == 0 })
	if got := l.returned.Load(); got != left {
		t.Errorf("%d units given back, want the %d held", got, left)
	}
	// Exact from there on: a lone Take is one unit.
	if r := limitertest.MustTake(t, l, "acct:1", big, now); r.Hour.Used != admitted+1 {
		t.Errorf("Take after the lease went back: %+v, want %d used", r, admitted+1)
	}
	if h, _ := redisCount(t, admin, prefix, "acct:1", now); h != admitted+1 {
		t.Errorf("Redis counted %d after a lone Take, want %d", h, admitted+1)
	}
}

// TestLeaseVoidAtRollover: a lease of the hour that ended is void: the next
// hour's Takes never use it, and its units go back to the day they were
// counted in.
func TestLeaseVoidAtRollover(t *testing.T) {
	url := redisURL(t)
	prefix := testPrefix(t, url)
	l := mustOpen(t, url, &spy{}, Options{Prefix: prefix, Timeout: steady, LeaseIdle: 100 * time.Millisecond,
		Now: func() time.Time { return now }})
	admin := adminClient(t, url)

	admitted := leaseHeld(t, l, "acct:1", big, now)
	void := leaseLeft(l, "acct:1")
	next := ratelimit.PeriodAt(now).HourEnd().Add(time.Minute)
	r := limitertest.MustTake(t, l, "acct:1", big, next)
	// Until the keeper gives them back, the void lease's units are counted
	// in the day: reported as used, never as room.
	if !r.Allowed || r.Hour.Used != 1 || r.Day.Used < admitted+1 || r.Day.Used > admitted+1+void {
		t.Errorf("first Take of the next hour: %+v, want 1 used this hour and %d today, or up to the %d units of the void lease more", r, admitted+1, void)
	}
	waitFor(t, "the void lease to go back to the day", func() bool {
		_, d := redisCount(t, admin, prefix, "acct:1", next)
		return d-leaseLeft(l, "acct:1") == admitted+1
	})
	if h, _ := redisCount(t, admin, prefix, "acct:1", next); h-leaseLeft(l, "acct:1") != 1 {
		t.Errorf("the next hour counted %d with %d units held, want 1 used", h, leaseLeft(l, "acct:1"))
	}
}

// openLeaseReplica is openReplica (a real in-memory fallback, Redis through
// a proxy the test cuts) with leases kept until the test gives them back.
func openLeaseReplica(t *testing.T, url, prefix string) replica {
	t.Helper()
	o, err := goredis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	px := faultproxy.Start(t, o.Addr)
	logs := &logBuffer{}
	l := mustOpen(t, "redis://"+px.Addr()+"/"+strconv.Itoa(o.DB), memory.New(memory.Options{}), Options{
		Prefix:            prefix,
		Timeout:           steady,
		ProbeInterval:     10 * time.Millisecond,
		HeartbeatInterval: 20 * time.Millisecond,
		LeaseIdle:         time.Hour,
		Now:               func() time.Time { return now },
		Logger:            logs.Logger(),
	})
	return replica{l, px, logs}
}

// TestLeaseAcrossOutage: a lease held when Redis goes away is still spent,
// without the fallback (its units were counted in Redis), and the outage's
// share of the room left does not count them again; after the outage Redis
// holds exactly what was admitted.
func TestLeaseAcrossOutage(t *testing.T) {
	url := redisURL(t)
	prefix := testPrefix(t, url)
	r := openLeaseReplica(t, url, prefix)
	admin := adminClient(t, url)
	quota := ratelimit.Limits{Hour: 2000, Day: 20000}

	before := leaseHeld(t, r.Limiter, "acct:1", quota, now)
	left := leaseLeft(r.Limiter, "acct:1")
	seen, _ := redisCount(t, admin, prefix, "acct:1", now)
	r.px.Set(faultproxy.Refuse)
	if _, err := r.Peek(context.Background(), "acct:1", quota, now); err != nil {
		t.Fatal(err)
	}
	if !r.down.Load() {
		t.Fatal("a Peek through a refusing proxy did not start an outage")
	}
	// The lease shows Redis's count as its fetch's answer gave it: a Take of
	// the burst that Redis counted after the fetch but answered first is
	// missing from it (seen once in CI: 160 shown for 161), so the first
	// Take may show one less; from there each counts one more. The count
	// itself stays exact (Redis's, checked at the end).
	var shown int64
	for i := range left {
		res := limitertest.MustTake(t, r, "acct:1", quota, now)
		if i == 0 && res.Hour.Used == before {
			shown = -1
		}
		if !res.Allowed || res.Hour.Used != before+i+1+shown {
			t.Fatalf("Take %d of the lease during the outage: %+v, want admitted with %d used", i+1, res, before+i+1+shown)
		}
	}
	if n := r.localAdmitted.Load(); n != 0 {
		t.Errorf("%d of the lease's Takes went to the fallback, want none", n)
	}
	// Then the fallback, with this replica's share of the room Redis
	// showed, the lease's units counted in it.
	local := int64(admitted(t, r, "acct:1", quota, int(quota.Hour)))
	if want := quota.Hour - seen; local != want {
		t.Errorf("the fallback admitted %d after the lease, want the room left, %d", local, want)
	}
	r.px.Set(faultproxy.Pass)
	waitFor(t, "the replica to count in Redis again", func() bool { return !r.down.Load() })
	if h, d := redisCount(t, admin, prefix, "acct:1", now); h != quota.Hour || d != quota.Hour {
		t.Errorf("Redis after the outage: %d this hour, %d today; want %d both, the quota spent exactly", h, d, quota.Hour)
	}
}

// TestLeaseRemainingBound: what a replica reports of a pool another replica
// holds a lease of is lower than exact by that lease's units not admitted
// (they are counted in Redis), and what the holder reports from its lease
// misses the others' requests since its last round trip. Given back, the
// pool is exact again.
func TestLeaseRemainingBound(t *testing.T) {
	url := redisURL(t)
	prefix := testPrefix(t, url)
	a := mustOpen(t, url, &spy{}, Options{Prefix: prefix, Timeout: steady, LeaseIdle: time.Hour})
	b := mustOpen(t, url, &spy{}, Options{Prefix: prefix, Timeout: steady, LeaseIdle: time.Hour})

	used := leaseHeld(t, a, "acct:1", big, now)
	held := leaseLeft(a, "acct:1")
	rb := limitertest.MustTake(t, b, "acct:1", big, now)
	used++
	if exact := big.Hour - used; rb.Hour.Remaining != exact-held {
		t.Errorf("replica b reports %d remaining, want the exact %d less a's %d units held", rb.Hour.Remaining, exact, held)
	}
	if held > DefaultMaxLease {
		t.Errorf("a holds %d units, more than DefaultMaxLease", held)
	}
	ra := limitertest.MustTake(t, a, "acct:1", big, now)
	used++
	if exact := big.Hour - used; ra.Hour.Remaining != exact+1 {
		t.Errorf("replica a reports %d remaining from its lease, want the exact %d plus b's one Take it has not seen", ra.Hour.Remaining, exact)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if r := limitertest.MustPeek(t, b, "acct:1", big, now); r.Hour.Used != used || r.Day.Used != used {
		t.Errorf("after a closed (its lease given back): %+v, want %d used", r, used)
	}
}

// TestLeaseRefund: a refund gives back the refunding replica's lease with
// it, so that a refund that clears the pool leaves no unit to admit on top
// of the fresh quota.
func TestLeaseRefund(t *testing.T) {
	url := redisURL(t)
	prefix := testPrefix(t, url)
	l := mustOpen(t, url, &spy{}, Options{Prefix: prefix, Timeout: steady, LeaseIdle: time.Hour})
	quota := ratelimit.Limits{Hour: 1000, Day: 10000}

	used := leaseHeld(t, l, "acct:1", quota, now)
	limitertest.MustRefund(t, l, "acct:1", 1, now)
	if r := limitertest.MustPeek(t, l, "acct:1", quota, now); r.Hour.Used != used-1 || leaseLeft(l, "acct:1") != 0 {
		t.Errorf("after a refund of one: %+v with %d units held, want %d used and none", r, leaseLeft(l, "acct:1"), used-1)
	}
	leaseHeld(t, l, "acct:1", quota, now)
	limitertest.MustRefund(t, l, "acct:1", math.MaxInt64, now)
	if r := limitertest.MustPeek(t, l, "acct:1", quota, now); r.Hour.Used != 0 || r.Day.Used != 0 {
		t.Errorf("after a refund of MaxInt64: %+v, want nothing used", r)
	}
	if got := burst(t, l, "acct:1", quota, now, 16, 100); got != quota.Hour {
		t.Errorf("the cleared pool admitted %d, want its quota %d", got, quota.Hour)
	}
}

// TestLeaseCancellationStress is TestBatchCancellationStress with leases:
// callers that give up at random moments, while waiting for a lease too.
// Once the lease is given back (Close), Redis counts every admitted Take plus
// at most the cancelled ones whose script had run.
func TestLeaseCancellationStress(t *testing.T) {
	url := redisURL(t)
	fallback := &spy{}
	prefix := testPrefix(t, url)
	var logs logBuffer
	l := mustOpen(t, url, fallback, Options{Prefix: prefix, Timeout: steady, Logger: logs.Logger()})
	direct := mustOpen(t, url, &spy{}, Options{Prefix: prefix, Timeout: steady})
	pool := ratelimit.Limits{Hour: 1 << 40, Day: 1 << 40}

	admitted, cancelled := takeCancelling(t, l, pool, 200)
	if l.down.Load() || fallback.takes.Load() != 0 {
		t.Fatalf("cancelled callers were taken for a Redis outage; log:\n%s", logs.String())
	}
	if l.leased.Load() == 0 {
		t.Fatal("no lease was taken: the test says nothing about them")
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	got := limitertest.MustPeek(t, direct, "k", pool, now).Hour.Used
	t.Logf("%d admitted, %d cancelled, %d units leased, Redis counted %d", admitted.Load(), cancelled.Load(), l.leased.Load(), got)
	if got < admitted.Load() || got > admitted.Load()+cancelled.Load() {
		t.Errorf("Redis counted %d, want between %d admitted and %d with the cancelled", got, admitted.Load(), admitted.Load()+cancelled.Load())
	}
}

// TestSmallPoolsNeverLease: pools whose limits are below leaseRoom (the Free
// plan's) are counted one Take per script run, however busy.
func TestSmallPoolsNeverLease(t *testing.T) {
	url := redisURL(t)
	l := mustOpen(t, url, &spy{}, Options{Prefix: testPrefix(t, url), Timeout: steady})
	burst(t, l, "acct:free", free, now, 16, 10)
	if n := l.leased.Load(); n != 0 || l.leases.len() != 0 {
		t.Errorf("a Free pool leased %d units (%d pools kept), want none", n, l.leases.len())
	}
}

// TestLeaseFetchWhenRedisHangs: a lease being fetched when Redis stops
// answering. Its waiters go to the fallback once the fetch times out, each
// Take once, none waiting for a timeout of its own.
func TestLeaseFetchWhenRedisHangs(t *testing.T) {
	fallback := &spy{}
	var logs logBuffer
	const timeout = 300 * time.Millisecond
	l, _, px := proxied(t, fallback, Options{Timeout: timeout, ProbeInterval: time.Hour, Logger: logs.Logger()})
	limitertest.TakeN(t, l, "acct:1", big, now, 1) // dialled
	if l.down.Load() {
		t.Skip("Redis took over 300ms before the hang was even simulated: this machine is too loaded for a timing test")
	}

	px.setMode(blackhole)
	start := time.Now()
	if n := burst(t, l, "acct:1", big, now, 16, 5); n != 80 {
		t.Errorf("%d of 80 Takes admitted, want all (the fallback's)", n)
	}
	if d := time.Since(start); d > 3*timeout+time.Second {
		t.Errorf("80 Takes with the lease's fetch hanging took %v, want about one timeout", d)
	}
	if got := fallback.takes.Load(); got != 80 {
		t.Errorf("the fallback counted %d Takes, want each of the 80 once", got)
	}
	if n := logs.count(downMsg); n != 1 {
		t.Errorf("outage logged %d times, want once:\n%s", n, logs.String())
	}
}

// oneEach makes n Takes of key at once, one per goroutine, spread over ls in
// turn, and returns how many were admitted.
func oneEach(t *testing.T, ls []*Limiter, key string, lim ratelimit.Limits, n int) int64 {
	t.Helper()
	var admitted atomic.Int64
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		l := ls[i%len(ls)]
		wg.Go(func() {
			<-start
			r, err := l.Take(context.Background(), key, lim, now)
			if err != nil {
				t.Error(err)
				return
			}
			if r.Allowed {
				admitted.Add(1)
			}
		})
	}
	close(start)
	wg.Wait()
	return admitted.Load()
}

// TestLease300Concurrent: 300 requests at once on one quota with room for
// leases, one Take each. On one replica exactly the limit is admitted: its
// requests spend its lease before any is refused. On three, a replica whose
// requests ended may still hold units, counted in Redis: the pool is refused
// early by at most those, never admitted past its limit, and once they are
// given back (the pool idle there) the refused requests sent again get
// exactly the rest.
func TestLease300Concurrent(t *testing.T) {
	url := redisURL(t)
	quota := ratelimit.Limits{Hour: 200, Day: 2000}
	t.Run("one replica", func(t *testing.T) {
		l := mustOpen(t, url, &spy{}, Options{Prefix: testPrefix(t, url), Timeout: steady, LeaseIdle: time.Hour})
		if got := oneEach(t, []*Limiter{l}, "acct:1", quota, 300); got != quota.Hour {
			t.Errorf("300 concurrent Takes admitted %d, want exactly the limit %d", got, quota.Hour)
		}
		t.Logf("%d units leased", l.leased.Load())
	})
	t.Run("three replicas", func(t *testing.T) {
		prefix := testPrefix(t, url)
		var ls []*Limiter
		for range 3 {
			ls = append(ls, mustOpen(t, url, &spy{}, Options{Prefix: prefix, Timeout: steady, LeaseIdle: 100 * time.Millisecond}))
		}
		first := oneEach(t, ls, "acct:1", quota, 300)
		var held int64
		for _, l := range ls {
			held += leaseLeft(l, "acct:1")
		}
		if first > quota.Hour || first < quota.Hour-held {
			t.Errorf("300 concurrent Takes over 3 replicas admitted %d with %d units held, want the limit %d less at most those", first, held, quota.Hour)
		}
		waitFor(t, "the leases to be given back", func() bool {
			for _, l := range ls {
				if l.leases.len() > 0 {
					return false
				}
			}
			return true
		})
		again := oneEach(t, ls, "acct:1", quota, int(300-first))
		if first+again != quota.Hour {
			t.Errorf("300 Takes then the %d refused again: %d + %d admitted, want exactly the limit %d", 300-first, first, again, quota.Hour)
		}
		var leased int64
		for _, l := range ls {
			leased += l.leased.Load()
		}
		t.Logf("first %d admitted (%d units leased, %d held at the end), then %d", first, leased, held, again)
	})
}
