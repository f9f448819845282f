package redis

import (
	"hash/maphash"
	"sync"

	"github.com/cardcat/cardcat/internal/ratelimit"
)

// What a replica knows of each pool, for when Redis goes away.
//
// Counting an outage from zero would hand every replica a fresh quota (issue
// 16: 100 more requests per replica on an exhausted Free pool). So every
// answer from Redis is remembered here, per pool, with its windows: during an
// outage a pool starts from the counts this replica last saw, and may use only
// this replica's share of the room left (share). The requests admitted locally
// are added here too, so that they can be added to Redis when it is back
// (flush.go). Only the current windows are kept: a newer window replaces an
// older one, and pools whose day ended are swept (sweep).

// numViewShards spreads pools over independent locks, as memory does.
const numViewShards = 64

type views struct {
	seed   maphash.Seed
	shards [numViewShards]viewShard
}

// viewShard is padded to a cache line (see memory's shard).
type viewShard struct {
	mu    sync.Mutex
	pools map[string]*view
	_     [64 - 8 - 8]byte
}

// view is one pool in the windows it names. A window's counts start at zero
// when a newer window replaces it: counts of an ended window are never added
// to Redis.
type view struct {
	hour, day           int64 // the windows (ratelimit.Period) of the counts below
	hourSeen, daySeen   int64 // the highest counts Redis answered in them
	hourLocal, dayLocal int64 // admitted here during an outage, not yet in Redis
}

func newViews() *views {
	v := &views{seed: maphash.MakeSeed()}
	for i := range v.shards {
		v.shards[i].pools = make(map[string]*view)
	}
	return v
}

func (v *views) shard(key string) *viewShard {
	return &v.shards[maphash.String(v.seed, key)&(numViewShards-1)]
}

// advance moves pv to the windows of p when they are newer, dropping the
// counts of the windows that ended. It reports whether pv is now in p's hour
// and in p's day: an answer for older windows (a clock stepped back, a reply
// that overtook a later one) changes nothing.
func (pv *view) advance(p ratelimit.Period) (inHour, inDay bool) {
	if p.Hour > pv.hour {
		pv.hour, pv.hourSeen, pv.hourLocal = p.Hour, 0, 0
	}
	if p.Day > pv.day {
		pv.day, pv.daySeen, pv.dayLocal = p.Day, 0, 0
	}
	return pv.hour == p.Hour, pv.day == p.Day
}

// get returns key's view, creating it; the caller holds s.mu.
func (s *viewShard) get(key string) *view {
	pv := s.pools[key]
	if pv == nil {
		pv = new(view)
		s.pools[key] = pv
	}
	return pv
}

// observe remembers what Redis answered for key in the windows of p. Counts
// only grow within a window, so the highest answer is the latest.
func (v *views) observe(key string, p ratelimit.Period, hourUsed, dayUsed int64) {
	s := v.shard(key)
	s.mu.Lock()
	pv := s.get(key)
	inHour, inDay := pv.advance(p)
	if inHour {
		pv.hourSeen = max(pv.hourSeen, hourUsed)
	}
	if inDay {
		pv.daySeen = max(pv.daySeen, dayUsed)
	}
	s.mu.Unlock()
}

// seen returns the counts Redis last answered for key in the windows of p,
// zero for a window it has not answered (a fresh pool, or a new hour).
func (v *views) seen(key string, p ratelimit.Period) (hourUsed, dayUsed int64) {
	s := v.shard(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	pv := s.pools[key]
	if pv == nil {
		return 0, 0
	}
	if pv.hour == p.Hour {
		hourUsed = pv.hourSeen
	}
	if pv.day == p.Day {
		dayUsed = pv.daySeen
	}
	return hourUsed, dayUsed
}

// addLocal records one request admitted locally for key in the windows of p.
func (v *views) addLocal(key string, p ratelimit.Period) {
	s := v.shard(key)
	s.mu.Lock()
	pv := s.get(key)
	inHour, inDay := pv.advance(p)
	if inHour {
		pv.hourLocal++
	}
	if inDay {
		pv.dayLocal++
	}
	s.mu.Unlock()
}

// refundLocal gives back up to n of the requests admitted locally for key in
// the windows of p, so that they are not added to Redis when it is back.
func (v *views) refundLocal(key string, p ratelimit.Period, n int64) {
	s := v.shard(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	pv := s.pools[key]
	if pv == nil {
		return
	}
	if pv.hour == p.Hour {
		pv.hourLocal -= min(n, pv.hourLocal)
	}
	if pv.day == p.Day {
		pv.dayLocal -= min(n, pv.dayLocal)
	}
}

// share is the quota of one replica during an outage: the room each window
// had when this replica last saw it, divided among the live replicas it last
// saw, rounded down. Rounded down, the shares never add up to more than the
// room, so the replicas together stay within the limit (when they all saw the
// same counts); a window with less room than replicas admits nothing here.
func share(lim ratelimit.Limits, hourSeen, daySeen, replicas int64) ratelimit.Limits {
	replicas = max(replicas, 1)
	return ratelimit.Limits{
		Hour: max(lim.Hour-hourSeen, 0) / replicas,
		Day:  max(lim.Day-daySeen, 0) / replicas,
	}
}

// pending is a pool's local counts on their way to Redis.
type pending struct {
	key       string
	period    ratelimit.Period
	hour, day int64 // to add; zero when that window ended
	replyHour int64 // Redis's counts after the add
	replyDay  int64
	err       error
}

// takeLocal removes and returns the local counts of the windows of p (those
// of ended windows are dropped), to be added to Redis.
func (v *views) takeLocal(p ratelimit.Period) []pending {
	var out []pending
	for i := range v.shards {
		s := &v.shards[i]
		s.mu.Lock()
		for key, pv := range s.pools {
			if pv.hourLocal == 0 && pv.dayLocal == 0 {
				continue
			}
			var h, d int64
			if pv.hour == p.Hour {
				h = pv.hourLocal
			}
			if pv.day == p.Day {
				d = pv.dayLocal
			}
			pv.hourLocal, pv.dayLocal = 0, 0
			if h > 0 || d > 0 {
				out = append(out, pending{key: key, period: p, hour: h, day: d})
			}
		}
		s.mu.Unlock()
	}
	return out
}

// putBack returns the counts of a failed add, unless their windows ended
// meanwhile.
func (v *views) putBack(f pending) {
	s := v.shard(f.key)
	s.mu.Lock()
	pv := s.get(f.key)
	inHour, inDay := pv.advance(f.period)
	if inHour {
		pv.hourLocal += f.hour
	}
	if inDay {
		pv.dayLocal += f.day
	}
	s.mu.Unlock()
}

// sweep drops the pools whose day ended before today: nothing of them matters
// any more.
func (v *views) sweep(today int64) {
	for i := range v.shards {
		s := &v.shards[i]
		s.mu.Lock()
		for key, pv := range s.pools {
			if pv.day < today {
				delete(s.pools, key)
			}
		}
		s.mu.Unlock()
	}
}

// len is the number of pools kept, for tests.
func (v *views) len() int {
	n := 0
	for i := range v.shards {
		s := &v.shards[i]
		s.mu.Lock()
		n += len(s.pools)
		s.mu.Unlock()
	}
	return n
}
