package redis

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/cardcat/cardcat/internal/ratelimit"
)

// addLua adds the requests a replica admitted during an outage to a pool's
// counters, so that the day's total stays true.
//
// KEYS: hour counter, day counter. ARGV: to add to the hour, to the day, hour
// key TTL, day key TTL (seconds). Returns {hour used, day used}. A count of
// zero (its window ended) leaves its key alone; a key the add creates gets the
// TTL a Take would have given it.
const addLua = `
local out = {}
for i = 1, 2 do
	local n = tonumber(ARGV[i])
	if n > 0 then
		out[i] = redis.call('INCRBY', KEYS[i], n)
		if redis.call('TTL', KEYS[i]) < 0 then redis.call('EXPIRE', KEYS[i], ARGV[i + 2]) end
	else
		out[i] = tonumber(redis.call('GET', KEYS[i]) or '0')
	end
end
return out
`

var addScript = goredis.NewScript(addLua)

// flushChunk bounds one pipeline of adds, so that each fits in the timeout.
const flushChunk = 1000

// flush adds the local counts of the windows still open to Redis, one script
// per pool (both of its counters are on one Redis Cluster slot), pipelined.
// It returns the requests whose counts reached Redis (each counts once, in its
// day), those whose add may or may not have run, and the first error.
//
// The counts of an add that surely did not run stay local for the next
// attempt. One whose reply was lost may have counted already; like a Take's
// (see Open), it is not sent again, so that no pool is charged twice.
func (l *Limiter) flush(ctx context.Context) (flushed, unsure int64, err error) {
	now := l.now()
	todo := l.views.takeLocal(ratelimit.PeriodAt(now))
	if len(todo) == 0 {
		return 0, 0, nil
	}
	defer func() {
		for _, f := range todo {
			switch {
			case f.err == nil:
				flushed += f.day
				l.views.observe(f.key, f.period, f.replyHour, f.replyDay)
			case notRun(f.err):
				l.views.putBack(f)
			default:
				unsure += f.day
			}
		}
	}()
	for i := range todo {
		todo[i].err = errNotSent
	}

	lctx, cancel := context.WithTimeout(ctx, l.timeout)
	err = addScript.Load(lctx, l.client).Err()
	cancel()
	if err != nil {
		return 0, 0, fmt.Errorf("redis: flush: load script: %w", err)
	}
	for start := 0; start < len(todo); start += flushChunk {
		chunk := todo[start:min(start+flushChunk, len(todo))]
		if err := l.flushChunk(ctx, chunk, now); err != nil {
			return 0, 0, err
		}
	}
	return 0, 0, nil
}

// errNotSent marks an add no round trip carried yet.
var errNotSent = errors.New("redis: flush: not sent")

// notRun reports whether an add that failed with err surely did not change
// Redis: never sent, refused before a connection was made, or a script Redis
// did not have (flushed between the load and the adds).
func notRun(err error) bool {
	var opErr *net.OpError
	return errors.Is(err, errNotSent) ||
		(errors.As(err, &opErr) && opErr.Op == "dial") ||
		goredis.HasErrorPrefix(err, "NOSCRIPT")
}

func (l *Limiter) flushChunk(ctx context.Context, chunk []pending, now time.Time) error {
	ctx, cancel := context.WithTimeout(ctx, l.timeout)
	defer cancel()
	pipe := l.client.Pipeline()
	cmds := make([]*goredis.Cmd, len(chunk))
	for i, f := range chunk {
		keys := l.keys(f.key, f.period)
		cmds[i] = addScript.EvalSha(ctx, pipe, keys[:], f.hour, f.day,
			ttl(f.period.HourEnd(), now), ttl(f.period.DayEnd(), now))
	}
	pipe.Exec(ctx)
	var first error
	for i, cmd := range cmds {
		v, err := cmd.Int64Slice()
		if err == nil && len(v) != 2 {
			err = fmt.Errorf("unexpected reply %v", v)
		}
		if err != nil {
			chunk[i].err = err
			if first == nil {
				first = fmt.Errorf("redis: flush: %w", err)
			}
			continue
		}
		chunk[i].err = nil
		chunk[i].replyHour, chunk[i].replyDay = v[0], v[1]
	}
	return first
}
