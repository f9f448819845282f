package redis

import (
	"context"
	"fmt"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/cardcat/cardcat/internal/ratelimit"
)

// refundLua gives back up to ARGV[1] requests of a pool's two counters,
// never below zero, in one script run: atomic like a Take, so that a Take
// racing with it sees the count before the refund or after it, and two
// refunds never give back the same request.
//
// KEYS: hour counter, day counter. ARGV: the most to give back. Returns
// {hour used, day used}. A counter that does not exist is left absent; one
// given back to zero keeps its key and its TTL.
const refundLua = `
local out = {}
for i = 1, 2 do
	local used = tonumber(redis.call('GET', KEYS[i]) or '0')
	local n = math.min(tonumber(ARGV[1]), used)
	if n > 0 then used = redis.call('DECRBY', KEYS[i], n) end
	out[i] = used
end
return out
`

var refundScript = goredis.NewScript(refundLua)

// Refund implements ratelimit.Limiter. It is not batched with Takes and
// Peeks: refunds are rare (a login that succeeded, a password reset), and
// each is a script run of its own, bounded by the timeout. Like a Take whose
// reply was lost, a refund that timed out is not sent again.
//
// The views keep the highest counts Redis answered before the refund, so
// that during an outage a pool looks as used as it was, never less. During
// an outage only what was counted locally can be given back: a refund of a
// request Redis counted before the outage is dropped, and the pool stays
// charged for it.
func (l *Limiter) Refund(ctx context.Context, key string, n int64, now time.Time) error {
	if l.closed.Load() {
		return ratelimit.ErrClosed
	}
	if n <= 0 {
		return nil
	}
	p := ratelimit.PeriodAt(now)
	if !l.down.Load() {
		// This replica's lease of the pool goes back with the refund, so
		// that a refund that clears the pool leaves no unit admitted here
		// on top of a fresh quota.
		n = saturatingAdd(n, l.dropLease(key, p))
		keys := l.keys(key, p)
		rctx, cancel := context.WithTimeout(ctx, l.timeout)
		start := time.Now()
		err := refundScript.Run(rctx, l.client, keys[:], n).Err()
		cancel()
		l.roundTripDone(start)
		if err == nil {
			return nil
		}
		if err := callerGone(ctx); err != nil {
			return fmt.Errorf("redis: refund: %w", err)
		}
		l.markDown(err)
	}
	l.views.refundLocal(key, p, n)
	return l.fallback.Refund(ctx, key, n, now)
}
