// Package memory is the in-process ratelimit.Limiter, the default for a single
// machine and the local fallback of the Redis limiter.
//
// It sits on every request's path, so a Take is a hash, one uncontended mutex
// of one shard out of many, and a map lookup, with no allocation once the pool
// is known. Counters are written to a state file in the background and on
// Close, so that a restart does not hand anyone a fresh daily quota.
package memory

import (
	"context"
	"errors"
	"hash/maphash"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cardcat/cardcat/internal/ratelimit"
)

var (
	_ ratelimit.Limiter       = (*Limiter)(nil)
	_ ratelimit.HealthChecker = (*Limiter)(nil)
)

// numShards spreads pools over independent locks so that requests of different
// pools on different cores rarely meet. A power of two, so a mask picks one.
const numShards = 256

// DefaultSaveInterval bounds what a crash (not a clean stop, which saves on
// Close) can lose: the requests counted in the last interval.
const DefaultSaveInterval = time.Second

// Options tune a Limiter. The zero value is ready to use.
type Options struct {
	// SaveInterval is how often changed counters are written to the state file
	// and windows that ended are dropped. Zero means DefaultSaveInterval.
	SaveInterval time.Duration
	// Now is the clock that decides which windows have ended when pruning and
	// loading; Take and Peek use the now they are given. Nil means time.Now.
	Now func() time.Time
	// Logger receives warnings about the state file. Nil means slog.Default().
	Logger *slog.Logger
}

// Limiter is the in-process limiter. Create it with New or Open.
type Limiter struct {
	shards [numShards]shard
	seed   maphash.Seed

	path   string // "" when nothing is persisted
	now    func() time.Time
	logger *slog.Logger

	closed atomic.Bool
	stop   chan struct{}
	done   chan struct{}

	saveMu      sync.Mutex // one save at a time; guards the fields below
	saveErr     error      // of the last save, for Healthy
	mustSave    bool       // a save failed: the next one writes even if no shard is dirty
	lastPruned  int64      // day number of the last prune
	loggedError bool       // a failed save was logged; log again only after a success
}

// shard is padded to a cache line so that two cores locking neighbouring
// shards do not invalidate each other's line. The array may start off a line
// boundary (Go puts a small header before large objects); the fields in use
// then still share their line with no other shard's.
type shard struct {
	mu    sync.Mutex
	pools map[string]*counter
	dirty bool // changed since the last save
	_     [64 - 8 - 8 - 8]byte
}

// counter is one pool's usage, each count tagged with the window it belongs to.
type counter struct {
	hour, hourUsed int64
	day, dayUsed   int64
}

// New returns a limiter that keeps its counters only in memory: for tests, and
// as the Redis limiter's fallback, whose counts matter only during an outage.
func New(opts Options) *Limiter {
	l := newLimiter("", opts)
	l.start(opts.SaveInterval)
	return l
}

// Open returns a limiter that loads its counters from the state file at path
// and keeps writing them there. A missing file is a first start. A file that
// cannot be decoded is moved aside to path+".corrupt" and the limiter starts
// empty with a logged warning: refusing to start would take the API down over
// a file whose only content is today's counts. Any other read error is
// returned, since starting empty would hand out fresh quotas.
func Open(path string, opts Options) (*Limiter, error) {
	if path == "" {
		return nil, errors.New("memory: open: empty state file path")
	}
	l := newLimiter(path, opts)
	if err := l.load(); err != nil {
		return nil, err
	}
	l.start(opts.SaveInterval)
	return l, nil
}

func newLimiter(path string, opts Options) *Limiter {
	l := &Limiter{
		seed:   maphash.MakeSeed(),
		path:   path,
		now:    opts.Now,
		logger: opts.Logger,
		stop:   make(chan struct{}),
		done:   make(chan struct{}),
	}
	if l.now == nil {
		l.now = time.Now
	}
	if l.logger == nil {
		l.logger = slog.Default()
	}
	for i := range l.shards {
		l.shards[i].pools = make(map[string]*counter)
	}
	l.lastPruned = ratelimit.PeriodAt(l.now()).Day
	return l
}

func (l *Limiter) start(interval time.Duration) {
	if interval <= 0 {
		interval = DefaultSaveInterval
	}
	go l.loop(interval)
}

func (l *Limiter) loop(interval time.Duration) {
	defer close(l.done)
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-tick.C:
			_ = l.flush()
		}
	}
}

// flush drops the windows that ended (once per day) and saves what changed.
func (l *Limiter) flush() error {
	l.saveMu.Lock()
	defer l.saveMu.Unlock()
	if today := ratelimit.PeriodAt(l.now()).Day; today != l.lastPruned {
		l.prune(today)
		l.lastPruned = today
	}
	if l.path == "" {
		return nil
	}
	err := l.save()
	l.saveErr = err
	switch {
	case err != nil && !l.loggedError:
		// Once per failure streak: a full disk would otherwise log every second.
		l.logger.Error("rate-limit state not saved; counters would not survive a restart", "path", l.path, "err", err)
		l.loggedError = true
	case err == nil && l.loggedError:
		l.logger.Info("rate-limit state saved again", "path", l.path)
		l.loggedError = false
	}
	return err
}

// prune deletes the pools whose day ended before today. A pool still in
// today keeps its entry even when its hour ended, because the day count matters.
func (l *Limiter) prune(today int64) {
	for i := range l.shards {
		s := &l.shards[i]
		s.mu.Lock()
		for key, c := range s.pools {
			if c.day < today {
				delete(s.pools, key)
				s.dirty = true
			}
		}
		s.mu.Unlock()
	}
}

// Take implements ratelimit.Limiter.
func (l *Limiter) Take(_ context.Context, key string, lim ratelimit.Limits, now time.Time) (ratelimit.Result, error) {
	return l.do(key, lim, now, true)
}

// Peek implements ratelimit.Limiter.
func (l *Limiter) Peek(_ context.Context, key string, lim ratelimit.Limits, now time.Time) (ratelimit.Result, error) {
	return l.do(key, lim, now, false)
}

// Refund implements ratelimit.Limiter.
func (l *Limiter) Refund(_ context.Context, key string, n int64, now time.Time) error {
	if l.closed.Load() {
		return ratelimit.ErrClosed
	}
	if n <= 0 {
		return nil
	}
	p := ratelimit.PeriodAt(now)
	s := &l.shards[l.shardIndex(key)]
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.pools[key]
	if c == nil {
		return nil
	}
	if c.hour == p.Hour && c.hourUsed > 0 {
		c.hourUsed -= min(n, c.hourUsed)
		s.dirty = true
	}
	if c.day == p.Day && c.dayUsed > 0 {
		c.dayUsed -= min(n, c.dayUsed)
		s.dirty = true
	}
	return nil
}

func (l *Limiter) do(key string, lim ratelimit.Limits, now time.Time, take bool) (ratelimit.Result, error) {
	if l.closed.Load() {
		return ratelimit.Result{}, ratelimit.ErrClosed
	}
	p := ratelimit.PeriodAt(now)
	s := &l.shards[l.shardIndex(key)]

	s.mu.Lock()
	c := s.pools[key]
	hourUsed, dayUsed := c.usedIn(&p)
	allowed := lim.Admits(hourUsed, dayUsed)
	if take && allowed {
		hourUsed++
		dayUsed++
		if c == nil {
			c = new(counter)
			s.pools[key] = c
		}
		*c = counter{hour: p.Hour, hourUsed: hourUsed, day: p.Day, dayUsed: dayUsed}
		s.dirty = true
	}
	s.mu.Unlock()

	return ratelimit.NewResult(lim, p, hourUsed, dayUsed, allowed, now), nil
}

// Reset forgets every count, as if no request had been made. The Redis
// limiter calls it when an outage starts: its fallback then counts only that
// outage's requests, on top of the counts the Redis limiter last saw, which
// include any earlier outage's once they were added to Redis.
func (l *Limiter) Reset() {
	for i := range l.shards {
		s := &l.shards[i]
		s.mu.Lock()
		if len(s.pools) > 0 {
			clear(s.pools)
			s.dirty = true
		}
		s.mu.Unlock()
	}
}

// usedIn returns the counts in the windows of p. When the counter belongs to a
// later window than p (the clock stepped back), that later window is the one
// counted and reported, and p is moved to it: a clock step must never hand a
// pool back the quota it already used.
func (c *counter) usedIn(p *ratelimit.Period) (hourUsed, dayUsed int64) {
	if c == nil {
		return 0, 0
	}
	if c.hour >= p.Hour {
		p.Hour, hourUsed = c.hour, c.hourUsed
	}
	if c.day >= p.Day {
		p.Day, dayUsed = c.day, c.dayUsed
	}
	return hourUsed, dayUsed
}

func (l *Limiter) shardIndex(key string) uint64 {
	return maphash.String(l.seed, key) & (numShards - 1)
}

// Healthy reports whether the counters are being saved; a failing save means a
// restart would lose them.
func (l *Limiter) Healthy(context.Context) error {
	if l.closed.Load() {
		return ratelimit.ErrClosed
	}
	l.saveMu.Lock()
	defer l.saveMu.Unlock()
	return l.saveErr
}

// Close stops the background saving and saves the counters a last time. Call it
// after the server stopped taking requests: a Take racing with Close may be
// answered yet not saved. Closing twice is harmless.
func (l *Limiter) Close() error {
	if l.closed.Swap(true) {
		return nil
	}
	close(l.stop)
	<-l.done
	return l.flush()
}
