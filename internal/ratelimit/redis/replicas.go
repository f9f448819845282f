package redis

import (
	"context"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/cardcat/cardcat/internal/ratelimit"
)

// Replicas register themselves, so that during an outage each knows among how
// many the room left in a pool is to be shared (views.go, share).
//
// One sorted set under the prefix holds the replica ids, scored by the time of
// their last heartbeat (Redis's clock, so that the replicas' clocks do not
// matter). A replica whose heartbeat is older than three intervals is not
// live; the set expires when every replica is gone.

// DefaultHeartbeatInterval is how often a replica says it is live and reads
// how many others are.
const DefaultHeartbeatInterval = 5 * time.Second

// heartbeatLua registers ARGV[1] now and counts the live replicas.
//
// KEYS: the set. ARGV: replica id, liveness (milliseconds). Returns the number
// of live replicas, this one included.
const heartbeatLua = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[2]))
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return redis.call('ZCARD', KEYS[1])
`

var heartbeatScript = goredis.NewScript(heartbeatLua)

func (l *Limiter) replicasKey() string { return l.prefix + "replicas" }

// heartbeat registers this replica and remembers how many are live.
func (l *Limiter) heartbeat(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, l.timeout)
	defer cancel()
	n, err := heartbeatScript.Run(ctx, l.client, []string{l.replicasKey()}, l.id, (3 * l.heartbeatInterval).Milliseconds()).Int64()
	if err != nil {
		return err
	}
	l.replicas.Store(n)
	return nil
}

// liveReplicas is the number of live replicas this one last saw, itself
// included; 1 when it never reached Redis.
func (l *Limiter) liveReplicas() int64 {
	return max(l.replicas.Load(), 1)
}

// deregister takes this replica out of the set when it stops, so that the
// others' shares grow at once rather than after the liveness.
func (l *Limiter) deregister() {
	ctx, cancel := context.WithTimeout(context.Background(), l.timeout)
	defer cancel()
	l.client.ZRem(ctx, l.replicasKey(), l.id)
}

// housekeep beats the heart while Redis answers, and drops the views of
// ended days, until the limiter closes.
func (l *Limiter) housekeep() {
	defer l.probers.Done()
	tick := time.NewTicker(l.heartbeatInterval)
	defer tick.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-tick.C:
		}
		if !l.down.Load() {
			// A failed heartbeat keeps the last count: the requests, not the
			// heartbeat, decide that Redis is down.
			_ = l.heartbeat(context.Background())
		}
		if today := ratelimit.PeriodAt(l.now()).Day; today != l.sweptDay {
			l.views.sweep(today)
			l.sweptDay = today
		}
	}
}
