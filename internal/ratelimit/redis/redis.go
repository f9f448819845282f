// Package redis is the ratelimit.Limiter for many API replicas: the counters
// live in Redis, so every replica and every game draws on one pool.
//
// Each Take is one script run: a Lua script reads both windows, decides and
// increments atomically, so concurrent replicas can never both take the last
// unit. Takes and Peeks that arrive while a round trip is in flight share the
// next one, pipelined (batch.go); a lone one goes at once.
//
// A pool that is busy on a replica takes a lease instead (lease.go): one
// script run counts up to MaxLease units at once, and the replica admits the
// pool's next requests from them with no round trip. Pipelining shares a
// round trip among concurrent calls but still costs each call its script, its
// encoding and its hand-off, and a client saturating one pool sends all its
// requests through them; a lease drops all three for most of its requests
// (bench/README.md, "The Redis limiter's batches", the lease figures).
// Redis functions were the other way the issue named (26): they would save
// only the script's lookup, not the round trip. Leases keep the limit exact
// because a unit is counted in Redis before any replica admits it: the
// replicas together never admit more than the limit. What they give up is
// bounded: a lease is at most 1/leaseShare of the room left (none within
// leaseRoom of the limit, where every Take is exact again, and none for pools
// whose limits are below it), and its unused units, counted in Redis, go back
// when the pool is idle, when its windows end or its limits change, and at
// Close. While they are held, the other replicas report the pool's Remaining
// lower than exact by at most those units (MaxLease per replica holding a
// lease of it) and may refuse it early by as many; the holder reports the
// pool as of its last round trip for it (the others' requests since then
// unseen), its own unused units as room.
//
// Rate limiting must not take the API down with it: when Redis does not
// answer within a short timeout, requests are counted on a local fallback
// limiter until a background probe sees Redis again. During such an outage a
// pool starts from the counts this replica last saw in Redis and gets only
// its share of the room left (views.go, replicas.go), and what was admitted
// is added to Redis when it answers again (flush.go). A lease held when Redis
// goes away is spent first: its units were counted in Redis already, and are
// part of the counts the share is taken from.
package redis

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/cardcat/cardcat/internal/ratelimit"
)

var (
	_ ratelimit.Limiter       = (*Limiter)(nil)
	_ ratelimit.HealthChecker = (*Limiter)(nil)
)

const (
	// DefaultPrefix starts every key, so that the counters can share a Redis
	// with other data and be found with SCAN.
	DefaultPrefix = "cardcat:rl:"
	// DefaultTimeout bounds one call, connecting included. A request must not
	// wait long for its rate limit: past this, the fallback answers.
	DefaultTimeout = 100 * time.Millisecond
	// DefaultProbeInterval is how often an unreachable Redis is tried again.
	DefaultProbeInterval = time.Second
	// expiryMargin keeps a window's key a little past the window's end, for
	// replicas whose clocks lag behind and still count in that window.
	expiryMargin = 5 * time.Minute
)

// Options tune a Limiter. The zero value is ready to use.
type Options struct {
	Prefix        string        // key prefix; "" means DefaultPrefix
	Timeout       time.Duration // per call; 0 means DefaultTimeout
	ProbeInterval time.Duration // while Redis is down; 0 means DefaultProbeInterval
	Logger        *slog.Logger  // nil means slog.Default()
	// HeartbeatInterval is how often the replica registers itself and counts
	// the live replicas (replicas.go); 0 means DefaultHeartbeatInterval.
	HeartbeatInterval time.Duration
	// Now is the clock that decides which windows are still open when the
	// outage's counts are added to Redis, and when views are swept; Take and
	// Peek use the now they are given. Nil means time.Now.
	Now func() time.Time
	// RoundTrip, when set, is told how long each round trip to Redis took
	// (one script run, or one pipeline of them), failed ones included: the
	// metrics' histogram. It must be quick.
	RoundTrip func(time.Duration)
	// MaxLease bounds the units of a pool one replica may lease (lease.go);
	// 0 means DefaultMaxLease, and 1 or less turns leases off: every Take
	// is then one script run.
	MaxLease int64
	// LeaseIdle is how long a pool goes unused before its lease is given
	// back (between LeaseIdle/2 and LeaseIdle); 0 means DefaultLeaseIdle.
	LeaseIdle time.Duration
}

// takeScript counts one request in both windows if both have room, or with
// ARGV[5] == "0" only reads them. The admission rule is ratelimit.Limits.Admits.
// A Take may ask for a lease (lease.go): up to ARGV[6] units at once, but
// never more than the room left in the tighter window divided by ARGV[7], and
// at least the one of the request itself.
//
// KEYS: hour counter, day counter. ARGV: hour limit, day limit, hour key TTL,
// day key TTL (seconds), take (1) or peek (0), and for a lease the most units
// wanted and the share of the room. Returns {allowed, hour used, day used},
// and for an admitted Take the units counted.
//
// The TTLs are computed by the caller from its own now, not as absolute times,
// so that Redis's clock does not matter. They are set only when a key is
// created: INCRBY keeps an existing TTL. Limits beyond 2^53 lose precision as
// Lua numbers; they are unlimited in practice, and the comparisons stay right.
const takeLua = `
local hour = tonumber(redis.call('GET', KEYS[1]) or '0')
local day = tonumber(redis.call('GET', KEYS[2]) or '0')
local hourLimit, dayLimit = tonumber(ARGV[1]), tonumber(ARGV[2])
if hour >= hourLimit or day >= dayLimit then
	return {0, hour, day}
end
if ARGV[5] == '1' then
	local n = 1
	local want = tonumber(ARGV[6] or '1')
	if want > 1 then
		local room = math.min(hourLimit - hour, dayLimit - day)
		n = math.max(1, math.min(want, math.floor(room / tonumber(ARGV[7]))))
	end
	hour = redis.call('INCRBY', KEYS[1], n)
	if hour == n then redis.call('EXPIRE', KEYS[1], ARGV[3]) end
	day = redis.call('INCRBY', KEYS[2], n)
	if day == n then redis.call('EXPIRE', KEYS[2], ARGV[4]) end
	return {1, hour, day, n}
end
return {1, hour, day}
`

var takeScript = goredis.NewScript(takeLua)

// Limiter is the Redis limiter. Create it with Open.
type Limiter struct {
	client        *goredis.Client
	script        *goredis.Script
	fallback      ratelimit.Limiter
	prefix        string
	timeout       time.Duration
	probeInterval time.Duration
	logger        *slog.Logger
	addr          string // for log lines; never the password
	now           func() time.Time
	onRoundTrip   func(time.Duration) // Options.RoundTrip; nil when unset

	// What this replica knows for when Redis goes away.
	views             *views
	id                string       // in the set of replicas
	replicas          atomic.Int64 // live replicas at the last heartbeat; 0 before the first
	heartbeatInterval time.Duration
	sweptDay          int64 // the day views were last swept; housekeep's own

	// The local leases of lease.go; maxLease < 2 means none.
	leases    *leases
	maxLease  int64
	leaseIdle time.Duration
	leased    atomic.Int64 // units leased, for tests and benchmarks
	returned  atomic.Int64 // units given back

	down   atomic.Bool // read on every request; changed under mu
	closed atomic.Bool

	mu        sync.Mutex // orders state changes and the prober's start against Close
	downSince time.Time
	probing   bool // a prober runs; it alone ends an outage it was started for
	stop      chan struct{}
	probers   sync.WaitGroup // the prober and housekeep

	recoverMu sync.Mutex // one recovery (flush, then back to Redis) at a time
	flushed   int64      // requests of this outage added to Redis so far; under recoverMu
	unsure    int64      // requests whose add lost its reply (see flush); under recoverMu

	// Requests answered locally in the current outage, for its log lines.
	localAdmitted, localDenied atomic.Int64

	// The automatic pipelining of batch.go.
	bmu           sync.Mutex
	inFlight      int          // round trips being sent: 0, 1 or 2 (see goAlone)
	callsInFlight int          // calls in them
	lastBatch     int          // calls in the round trip that ended last
	queue         []*call      // waiting for the round trip in flight to end
	spare         []*call      // a sent batch's slice, for the next queue
	rounds        atomic.Int64 // round trips sent, for the benchmarks' calls/round metric
	sentAll       atomic.Int64 // calls sent in them
}

// Open connects to the Redis at url (redis://[user:password@]host:port/db or
// rediss:// for TLS, as go-redis ParseURL reads it) and counts on fallback while
// Redis is unreachable. The Limiter owns fallback from then on and closes it.
//
// An unreachable Redis is not an error here, so that the API starts and serves
// during an outage; it is logged and probed. Only a bad URL is an error.
// Timeouts given in the URL are replaced by opts.Timeout.
func Open(ctx context.Context, url string, fallback ratelimit.Limiter, opts Options) (*Limiter, error) {
	if fallback == nil {
		return nil, errors.New("redis: open: nil fallback limiter")
	}
	o, err := goredis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("redis: open: %w", err)
	}
	l := &Limiter{
		script:            takeScript,
		fallback:          fallback,
		prefix:            opts.Prefix,
		timeout:           opts.Timeout,
		probeInterval:     opts.ProbeInterval,
		logger:            opts.Logger,
		addr:              o.Addr,
		now:               opts.Now,
		onRoundTrip:       opts.RoundTrip,
		views:             newViews(),
		heartbeatInterval: opts.HeartbeatInterval,
		leases:            newLeases(),
		maxLease:          opts.MaxLease,
		leaseIdle:         opts.LeaseIdle,
		stop:              make(chan struct{}),
	}
	if l.prefix == "" {
		l.prefix = DefaultPrefix
	}
	if l.timeout <= 0 {
		l.timeout = DefaultTimeout
	}
	if l.probeInterval <= 0 {
		l.probeInterval = DefaultProbeInterval
	}
	if l.logger == nil {
		l.logger = slog.Default()
	}
	if l.now == nil {
		l.now = time.Now
	}
	if l.heartbeatInterval <= 0 {
		l.heartbeatInterval = DefaultHeartbeatInterval
	}
	if l.maxLease == 0 {
		l.maxLease = DefaultMaxLease
	}
	if l.leaseIdle <= 0 {
		l.leaseIdle = DefaultLeaseIdle
	}
	id := make([]byte, 8)
	rand.Read(id)
	l.id = hex.EncodeToString(id)
	l.sweptDay = ratelimit.PeriodAt(l.now()).Day

	// Every wait is bounded by the call's timeout. No retries: a Take whose
	// reply was lost may have counted already, and counting it again would
	// charge the pool twice; the fallback answers instead, and the prober
	// (not a waiting request) redials.
	o.DialTimeout = l.timeout
	o.ReadTimeout = l.timeout
	o.WriteTimeout = l.timeout
	o.PoolTimeout = l.timeout
	o.ContextTimeoutEnabled = true
	o.MaxRetries = -1
	o.DialerRetries = 1
	// RESP2 unless the URL asks for a protocol (protocol=3): the replies are
	// three integers either way, and with RESP3 go-redis looks for push
	// notifications after every reply of a pipeline, 11% of the limiter's
	// CPU in a profile of BenchmarkTake/parallel16. What RESP3 adds,
	// client-side caching and the maintenance notifications of managed
	// Redis upgrades, a limiter with a 100 ms budget and a local fallback
	// can do without.
	if o.Protocol == 0 {
		o.Protocol = 2
	}
	l.client = goredis.NewClient(o)

	if err := l.heartbeat(ctx); err != nil {
		l.markDown(err)
	}
	l.probers.Add(1)
	go l.housekeep()
	if l.maxLease > 1 {
		l.probers.Add(1)
		go l.keepLeases()
	}
	return l, nil
}

// Take implements ratelimit.Limiter.
func (l *Limiter) Take(ctx context.Context, key string, lim ratelimit.Limits, now time.Time) (ratelimit.Result, error) {
	if l.maxLease > 1 {
		if l.closed.Load() {
			return ratelimit.Result{}, ratelimit.ErrClosed
		}
		return l.takeLeased(ctx, key, lim, now)
	}
	return l.do(ctx, key, lim, now, true)
}

// Peek implements ratelimit.Limiter. The units of this replica's lease of
// the pool not admitted yet are reported as room, not as used.
func (l *Limiter) Peek(ctx context.Context, key string, lim ratelimit.Limits, now time.Time) (ratelimit.Result, error) {
	r, err := l.do(ctx, key, lim, now, false)
	if err != nil || l.maxLease < 2 {
		return r, err
	}
	return l.peekLeased(key, lim, r, now), nil
}

func (l *Limiter) do(ctx context.Context, key string, lim ratelimit.Limits, now time.Time, take bool) (ratelimit.Result, error) {
	if l.closed.Load() {
		return ratelimit.Result{}, ratelimit.ErrClosed
	}
	if !l.down.Load() {
		r, _, err := l.roundTrip(ctx, key, lim, now, take, 1)
		if err == nil {
			l.views.observe(key, ratelimit.PeriodAt(now), r.Hour.Used, r.Day.Used)
			return r, nil
		}
		if err := callerGone(ctx); err != nil {
			// The caller gave up (client gone, server stopping): not Redis's
			// fault, and nobody is waiting for an answer.
			return ratelimit.Result{}, fmt.Errorf("redis: take: %w", err)
		}
		l.markDown(err)
	}
	return l.local(ctx, key, lim, now, take)
}

// local answers during an outage. The fallback counts only this outage's
// requests (it is reset when one starts), against this replica's share of the
// room the pool had when Redis last answered; the answer reports the pool as
// Redis last had it plus what the fallback counted.
func (l *Limiter) local(ctx context.Context, key string, lim ratelimit.Limits, now time.Time, take bool) (ratelimit.Result, error) {
	p := ratelimit.PeriodAt(now)
	hourSeen, daySeen := l.views.seen(key, p)
	quota := share(lim, hourSeen, daySeen, l.liveReplicas())
	var r ratelimit.Result
	var err error
	if take {
		r, err = l.fallback.Take(ctx, key, quota, now)
	} else {
		r, err = l.fallback.Peek(ctx, key, quota, now)
	}
	if err != nil {
		return r, err
	}
	if take {
		if r.Allowed {
			l.views.addLocal(key, p)
			l.localAdmitted.Add(1)
		} else {
			l.localDenied.Add(1)
		}
	}
	return ratelimit.NewResult(lim, p, hourSeen+r.Hour.Used, daySeen+r.Day.Used, r.Allowed, now), nil
}

// callerGone returns why the caller of ctx stopped waiting, or nil if it has
// not. A deadline counts from the instant it passes, not from when ctx reports
// it: the network deadline go-redis derived from it can fire first, and that
// timeout is the caller's budget running out, not Redis failing.
func callerGone(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d, ok := ctx.Deadline(); ok && !time.Now().Before(d) {
		return context.DeadlineExceeded
	}
	return nil
}

// keys names the counters of pool key in the windows of p. The pool key sits
// in braces, a Redis Cluster hash tag, so that both counters of a pool are on
// one node (a script may only touch keys of one slot); the fixed suffix after
// the last brace keeps any two pool keys from naming the same counter.
func (l *Limiter) keys(key string, p ratelimit.Period) [2]string {
	buf := make([]byte, 0, len(l.prefix)+len(key)+2+3+20)
	buf = append(buf, l.prefix...)
	buf = append(buf, '{')
	buf = append(buf, key...)
	buf = append(buf, "}:h:"...)
	n := len(buf) - 2 // the position of 'h'
	buf = strconv.AppendInt(buf, p.Hour, 10)
	hour := string(buf)
	buf = append(buf[:n], 'd', ':')
	buf = strconv.AppendInt(buf, p.Day, 10)
	return [2]string{hour, string(buf)}
}

// ttl is the lifetime of a key whose window ends at end, in whole seconds
// rounded up.
func ttl(end, now time.Time) int64 {
	d := end.Sub(now) + expiryMargin
	return int64((d + time.Second - 1) / time.Second)
}

func (l *Limiter) ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, l.timeout)
	defer cancel()
	return l.client.Ping(ctx).Err()
}

// markDown switches to the fallback and makes sure a prober runs, logging once
// per outage rather than once per request.
func (l *Limiter) markDown(cause error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.down.Load() || l.closed.Load() {
		return
	}
	// The fallback starts empty: the views hold what Redis last said,
	// earlier outages' requests included once they were added to it.
	if r, ok := l.fallback.(interface{ Reset() }); ok {
		r.Reset()
	}
	l.localAdmitted.Store(0)
	l.localDenied.Store(0)
	l.down.Store(true)
	l.downSince = time.Now()
	l.logger.Error("redis rate limiter unreachable; counting on the local limiter until it answers again",
		"addr", l.addr, "replicas", l.liveReplicas(), "err", cause)
	if !l.probing {
		l.probing = true
		l.probers.Add(1)
		go l.probe()
	}
}

// recover ends an outage once Redis answered a ping: the outage's counts are
// added to Redis first, so that no request counted in Redis misses them, then
// requests go to Redis again, then what was admitted locally in between
// (requests that had already chosen the fallback) is added too. If the adds
// fail the outage goes on, and the counts stay for the next attempt.
func (l *Limiter) recover(ctx context.Context) error {
	l.recoverMu.Lock()
	defer l.recoverMu.Unlock()
	if !l.down.Load() {
		return nil
	}
	// The live replicas may have changed during the outage.
	if err := l.heartbeat(ctx); err != nil {
		return fmt.Errorf("redis: heartbeat: %w", err)
	}
	flushed, unsure, err := l.flush(ctx)
	l.flushed += flushed
	l.unsure += unsure
	if err != nil {
		return err
	}
	l.mu.Lock()
	if !l.down.Load() || l.closed.Load() {
		l.mu.Unlock()
		return nil
	}
	l.down.Store(false)
	l.mu.Unlock()
	late, lateUnsure, err := l.flush(ctx)
	if err != nil {
		// Still local: the next outage's recovery adds them.
		l.logger.Warn("redis rate limiter: requests counted locally at the end of the outage not added to Redis yet", "addr", l.addr, "err", err)
	}
	attrs := []any{"addr", l.addr, "outage", time.Since(l.downSince).Round(time.Millisecond),
		"counted_locally", l.localAdmitted.Load(), "flushed", l.flushed + late, "denied_locally", l.localDenied.Load()}
	if u := l.unsure + lateUnsure; u > 0 {
		attrs = append(attrs, "flush_unsure", u)
	}
	l.logger.Info("redis rate limiter reachable again", attrs...)
	l.flushed, l.unsure = 0, 0
	return nil
}

// probe pings Redis until it answers or the limiter closes. Requests never
// probe themselves, so that during an outage none of them waits for a timeout.
func (l *Limiter) probe() {
	defer l.probers.Done()
	tick := time.NewTicker(l.probeInterval)
	defer tick.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-tick.C:
		}
		if l.ping(context.Background()) != nil || l.recover(context.Background()) != nil {
			continue
		}
		l.mu.Lock()
		if !l.down.Load() {
			// Ending the prober under mu, so that a failure right after
			// finds no prober and starts a new one.
			l.probing = false
			l.mu.Unlock()
			return
		}
		l.mu.Unlock()
	}
}

// Healthy pings Redis, for the /health cache check. Its answer also moves the
// limiter to or from the fallback, so /health never contradicts the limiter.
func (l *Limiter) Healthy(ctx context.Context) error {
	if l.closed.Load() {
		return ratelimit.ErrClosed
	}
	if err := l.ping(ctx); err != nil {
		l.markDown(err)
		return fmt.Errorf("redis: ping %s: %w", l.addr, err)
	}
	// Not the caller's cancellation: an add it cut short could not be told
	// from one whose reply was lost (see flush).
	if err := l.recover(context.WithoutCancel(ctx)); err != nil {
		return fmt.Errorf("redis: %s answers, but the outage's counts were not added: %w", l.addr, err)
	}
	return nil
}

// Local reports whether requests are counted on the local fallback (Redis
// unreachable), for the metrics.
func (l *Limiter) Local() bool { return l.down.Load() }

// Close stops the prober and closes the Redis client and the fallback.
// Closing twice is harmless.
func (l *Limiter) Close() error {
	l.mu.Lock()
	if l.closed.Swap(true) {
		l.mu.Unlock()
		return nil
	}
	close(l.stop)
	l.mu.Unlock()
	l.probers.Wait()
	if !l.down.Load() {
		l.giveBack(l.leases.takeIdle(math.MaxInt64))
		l.deregister()
	}
	var errs []error
	if err := l.client.Close(); err != nil {
		errs = append(errs, fmt.Errorf("redis: close client: %w", err))
	}
	if err := l.fallback.Close(); err != nil {
		errs = append(errs, fmt.Errorf("redis: close fallback: %w", err))
	}
	return errors.Join(errs...)
}
