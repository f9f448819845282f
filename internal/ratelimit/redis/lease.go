package redis

import (
	"context"
	"fmt"
	"hash/maphash"
	"math"
	"sync"
	"sync/atomic"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/cardcat/cardcat/internal/ratelimit"
)

// Local leases of a pool's budget.
//
// A pool that is busy on this replica (a Take of it arrives while another is
// on its way to Redis) and has plenty of room takes a lease: one script run
// counts up to its size in Redis at once, and this replica then admits the
// pool's requests from it without a round trip until it is spent. The units
// are counted in Redis before any of them is admitted, so the replicas
// together never admit more than the limit. A lease is at most the room left
// in the tighter window divided by leaseShare (the script decides, with the
// counts it reads), so near the limit the leases shrink and then stop: once
// an answer shows less room than leaseRoom, every Take of the pool is exact
// again, one unit per script run, as without leases.
//
// What a lease costs is under-admission while it is held: its unused units
// are counted in Redis, so another replica may be told the pool is exhausted
// while they wait here. They are given back (the refund script) when the pool
// has been idle on this replica for LeaseIdle/2 to LeaseIdle, when the
// limiter closes, and when a newer window or other limits make it void. A pool's Take
// waits for the lease being fetched rather than going to Redis on its own, so
// that one replica holds one lease per pool.
//
// The size adapts: a pool's first lease is minLease units, and it doubles,
// up to MaxLease, each time the previous one was fetched in the keeper's
// current tick or the one before (a tick is LeaseIdle/2); a pool unused for
// two ticks gives its lease back and is forgotten, so a lightly used key never
// reserves much.

const (
	// DefaultMaxLease bounds the units one replica holds for one pool.
	DefaultMaxLease = 512
	// DefaultLeaseIdle is how long a pool goes unused on a replica before
	// its lease is given back.
	DefaultLeaseIdle = 500 * time.Millisecond
	// minLease is a pool's first lease.
	minLease = 8
	// leaseShare: a lease is at most the room left over leaseShare.
	leaseShare = 16
	// leaseRoom is the least room in both windows for a lease: with less,
	// a lease would be under minLease and every Take is exact. Pools whose
	// limits are below it (the Free plan's 100 an hour, the portal's
	// throttles) never lease.
	leaseRoom = leaseShare * minLease
)

type leases struct {
	seed   maphash.Seed
	shards [numViewShards]leaseShard
	gen    atomic.Int64 // ticks of the keeper, for idleness

	vmu    sync.Mutex
	voided []lease // leases a newer window or other limits made void, to give back
}

// leaseShard is padded to a cache line (see memory's shard).
type leaseShard struct {
	mu    sync.Mutex
	pools map[string]*lease
	_     [64 - 8 - 8]byte
}

// lease is one pool on this replica: its lease, if any, and what decides
// whether it takes the next one.
type lease struct {
	key               string
	period            ratelimit.Period // the windows the units were counted in
	lim               ratelimit.Limits // the limits they were counted against
	left              int64            // counted in Redis, not admitted yet
	hourSeen, daySeen int64            // the highest counts Redis answered with the lease in them
	size              int64            // the next lease's size; 0 until the pool is busy
	grantGen          int64            // the keeper's tick of the last grant
	usedGen           int64            // the keeper's tick of the last Take
	inFlight          int              // exact Takes of the pool on their way to Redis
	near              bool             // the last answer left too little room for a lease
	fetch             chan struct{}    // while a lease is fetched; closed when it ends
}

func newLeases() *leases {
	ls := &leases{seed: maphash.MakeSeed()}
	for i := range ls.shards {
		ls.shards[i].pools = make(map[string]*lease)
	}
	return ls
}

func (ls *leases) shard(key string) *leaseShard {
	return &ls.shards[maphash.String(ls.seed, key)&(numViewShards-1)]
}

// get returns key's lease in the windows of p, creating it; a lease of older
// windows or other limits is voided first. It returns nil when the pool is
// not to lease: limits below leaseRoom, or p older than the pool's windows (a
// clock stepped back). Such a Take goes to Redis exactly, without touching
// the lease. The caller holds s.mu.
func (ls *leases) get(s *leaseShard, key string, p ratelimit.Period, lim ratelimit.Limits) *lease {
	e := s.pools[key]
	if min(lim.Hour, lim.Day) < leaseRoom {
		if e != nil && e.left > 0 {
			ls.void(e)
		}
		return nil
	}
	if e == nil {
		e = &lease{key: key, period: p}
		s.pools[key] = e
	}
	switch {
	case e.period == p:
		if e.left > 0 && e.lim != lim {
			ls.void(e)
		}
	case p.Hour > e.period.Hour:
		ls.void(e)
		e.period, e.near = p, false
	default:
		return nil
	}
	e.usedGen = ls.gen.Load()
	return e
}

// void drops e's lease and queues its units to be given back. Under the
// shard's lock.
func (ls *leases) void(e *lease) {
	if e.left > 0 {
		ls.vmu.Lock()
		ls.voided = append(ls.voided, lease{key: e.key, period: e.period, left: e.left})
		ls.vmu.Unlock()
	}
	e.left, e.hourSeen, e.daySeen = 0, 0, 0
}

// admit takes one unit of e's lease. Under the shard's lock, with e.left > 0.
func (e *lease) admit(lim ratelimit.Limits, now time.Time) ratelimit.Result {
	e.left--
	return e.result(lim, now)
}

// result reports the pool as Redis last counted it with the lease, less the
// units of the lease not admitted yet.
func (e *lease) result(lim ratelimit.Limits, now time.Time) ratelimit.Result {
	return ratelimit.NewResult(lim, e.period, e.hourSeen-e.left, e.daySeen-e.left, true, now)
}

// observe merges a Take's answer, with granted units counted, into e. Under
// the shard's lock.
func (e *lease) observe(lim ratelimit.Limits, r ratelimit.Result, granted int64) {
	if granted > 1 || e.left > 0 {
		if e.left == 0 {
			e.hourSeen, e.daySeen = r.Hour.Used, r.Day.Used
		} else {
			e.hourSeen, e.daySeen = max(e.hourSeen, r.Hour.Used), max(e.daySeen, r.Day.Used)
		}
	}
	if granted > 1 {
		e.left += granted - 1
		e.lim = lim
	}
	e.near = min(lim.Hour-r.Hour.Used, lim.Day-r.Day.Used) < leaseRoom
}

// endRoundTrip ends a Take's round trip that asked for want units: a
// lease's fetch wakes its waiters. Under the shard's lock.
func (e *lease) endRoundTrip(want int64) {
	if want > 1 {
		close(e.fetch)
		e.fetch = nil
	} else {
		e.inFlight--
	}
}

// nextSize is the size of the lease a busy pool asks for now: doubled when
// the last one was spent within a tick.
func (e *lease) nextSize(gen, most int64) int64 {
	switch {
	case e.size == 0:
		e.size = minLease
	case gen-e.grantGen <= 1:
		e.size = min(2*e.size, most)
	}
	e.size = min(e.size, most)
	e.grantGen = gen
	return e.size
}

// takeLeased is Take with leases: from this replica's lease of the pool when
// it has units, otherwise a round trip that may fetch a lease.
func (l *Limiter) takeLeased(ctx context.Context, key string, lim ratelimit.Limits, now time.Time) (ratelimit.Result, error) {
	p := ratelimit.PeriodAt(now)
	s := l.leases.shard(key)
	retried := false
	for {
		s.mu.Lock()
		e := l.leases.get(s, key, p, lim)
		if e == nil {
			s.mu.Unlock()
			return l.do(ctx, key, lim, now, true)
		}
		if e.left > 0 {
			// Counted in Redis already: also during an outage.
			r := e.admit(lim, now)
			s.mu.Unlock()
			return r, nil
		}
		if l.down.Load() {
			s.mu.Unlock()
			return l.local(ctx, key, lim, now, true)
		}
		if ch := e.fetch; ch != nil {
			s.mu.Unlock()
			select {
			case <-ch:
				continue
			case <-ctx.Done():
				return ratelimit.Result{}, fmt.Errorf("redis: take: %w", ctx.Err())
			}
		}
		want := int64(1)
		rctx := ctx
		if !e.near && (e.inFlight > 0 || e.size > 0) {
			want = e.nextSize(l.leases.gen.Load(), l.maxLease)
			e.fetch = make(chan struct{})
			// The lease is for the waiters too: its caller giving up must
			// not lose it (counted in Redis, its answer dropped).
			rctx = context.WithoutCancel(ctx)
		} else {
			e.inFlight++
		}
		s.mu.Unlock()

		r, granted, err := l.roundTrip(rctx, key, lim, now, true, want)

		if err != nil {
			// A fetch's failure is never its caller's (it ran without the
			// caller's cancellation): the outage starts before its waiters
			// wake, so that they go to the fallback rather than to Redis.
			gone := callerGone(ctx)
			if want > 1 || gone == nil {
				l.markDown(err)
			}
			s.mu.Lock()
			e.endRoundTrip(want)
			s.mu.Unlock()
			if gone != nil {
				return ratelimit.Result{}, fmt.Errorf("redis: take: %w", gone)
			}
			return l.local(ctx, key, lim, now, true)
		}
		s.mu.Lock()
		e.endRoundTrip(want)
		l.views.observe(key, p, r.Hour.Used, r.Day.Used)
		if e.period != p || l.leases.get(s, key, p, lim) != e {
			// The pool moved on to newer windows (or was forgotten) while
			// this Take was in flight: its lease is void at once.
			s.mu.Unlock()
			if granted > 1 {
				l.leases.vmu.Lock()
				l.leases.voided = append(l.leases.voided, lease{key: key, period: p, left: granted - 1})
				l.leases.vmu.Unlock()
				r = ratelimit.NewResult(lim, p, r.Hour.Used-(granted-1), r.Day.Used-(granted-1), true, now)
			}
			return r, nil
		}
		if granted > 1 {
			l.leased.Add(granted)
		}
		e.observe(lim, r, granted)
		switch {
		case r.Allowed && e.left > 0:
			r = e.result(lim, now)
		case !r.Allowed && e.left > 0 && e.lim == lim:
			// Redis is full with this replica's lease in it: a lease
			// granted meanwhile has room for this request.
			r = e.admit(lim, now)
		case !r.Allowed && e.fetch != nil && !retried:
			// A lease fetched meanwhile may have room for it: wait for it.
			s.mu.Unlock()
			retried = true
			continue
		}
		s.mu.Unlock()
		return r, nil
	}
}

// peekLeased corrects a Peek's answer for this replica's lease of the pool:
// its units not admitted yet are counted in Redis, not used.
func (l *Limiter) peekLeased(key string, lim ratelimit.Limits, r ratelimit.Result, now time.Time) ratelimit.Result {
	p := ratelimit.PeriodAt(now)
	s := l.leases.shard(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.pools[key]
	if e == nil || e.period != p || e.left == 0 || e.lim != lim {
		return r
	}
	return ratelimit.NewResult(lim, p, max(r.Hour.Used-e.left, 0), max(r.Day.Used-e.left, 0), true, now)
}

// dropLease ends this replica's lease of key in the windows of p and returns
// its units not admitted yet, for a Refund to give back with its own.
func (l *Limiter) dropLease(key string, p ratelimit.Period) int64 {
	s := l.leases.shard(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.pools[key]
	if e == nil || e.period != p {
		return 0
	}
	n := e.left
	e.left, e.hourSeen, e.daySeen = 0, 0, 0
	return n
}

// takeIdle removes and returns the leases of the pools not used since the
// tick before gen (all of them when gen is math.MaxInt64), and forgets those
// pools.
func (ls *leases) takeIdle(gen int64) []lease {
	ls.vmu.Lock()
	out := ls.voided
	ls.voided = nil
	ls.vmu.Unlock()
	for i := range ls.shards {
		s := &ls.shards[i]
		s.mu.Lock()
		for key, e := range s.pools {
			if e.usedGen >= gen-1 || e.fetch != nil || e.inFlight > 0 {
				continue
			}
			if e.left > 0 {
				out = append(out, lease{key: key, period: e.period, left: e.left})
			}
			delete(s.pools, key)
		}
		s.mu.Unlock()
	}
	return out
}

// keepLeases gives back the leases of idle pools and the void ones every
// LeaseIdle/2, until the limiter closes. During an outage it keeps them: a
// lease is still good for its pool's requests, and the refunds could not
// reach Redis.
func (l *Limiter) keepLeases() {
	defer l.probers.Done()
	tick := time.NewTicker(l.leaseIdle / 2)
	defer tick.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-tick.C:
		}
		gen := l.leases.gen.Add(1)
		if l.down.Load() {
			continue
		}
		l.giveBack(l.leases.takeIdle(gen))
	}
}

// giveBack returns the units of leases to the counters they were counted
// in, one refund script per pool, pipelined (a counter that expired stays
// absent). A refund that fails is not tried again: its units stay counted,
// the pool under-admitted by them until its windows end, never over.
func (l *Limiter) giveBack(ls []lease) {
	type refund struct {
		keys [2]string
		n    int64
		cmd  *goredis.Cmd
	}
	var todo []refund
	ctx, cancel := context.WithTimeout(context.Background(), l.timeout)
	defer cancel()
	pipe := l.client.Pipeline()
	for _, e := range ls {
		if e.left <= 0 {
			continue
		}
		r := refund{keys: l.keys(e.key, e.period), n: e.left}
		r.cmd = refundScript.EvalSha(ctx, pipe, r.keys[:], r.n)
		todo = append(todo, r)
		l.returned.Add(e.left)
	}
	if len(todo) == 0 {
		return
	}
	start := time.Now()
	pipe.Exec(ctx)
	// NOSCRIPT (a restart or SCRIPT FLUSH): nothing ran; EVAL caches it again.
	var retry goredis.Pipeliner
	for _, r := range todo {
		if goredis.HasErrorPrefix(r.cmd.Err(), "NOSCRIPT") {
			if retry == nil {
				retry = l.client.Pipeline()
			}
			refundScript.Eval(ctx, retry, r.keys[:], r.n)
		}
	}
	if retry != nil {
		retry.Exec(ctx)
	}
	l.roundTripDone(start)
}

// saturatingAdd is a + b, at most math.MaxInt64, for non-negative a and b.
func saturatingAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// len is the number of pools kept, for tests.
func (ls *leases) len() int {
	n := 0
	for i := range ls.shards {
		s := &ls.shards[i]
		s.mu.Lock()
		n += len(s.pools)
		s.mu.Unlock()
	}
	return n
}
