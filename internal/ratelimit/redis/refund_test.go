package redis

import (
	"testing"

	"github.com/cardcat/cardcat/internal/faultproxy"
	"github.com/cardcat/cardcat/internal/ratelimit"
	"github.com/cardcat/cardcat/internal/ratelimit/limitertest"
)

// TestRefundDuringOutage: what was counted locally and given back during an
// outage is not added to Redis when it is back; a refund of what Redis
// counted before the outage cannot reach it, and the pool stays charged.
func TestRefundDuringOutage(t *testing.T) {
	url := redisURL(t)
	prefix := testPrefix(t, url)
	r := openReplica(t, url, prefix)
	waitFor(t, "the replica to see itself live", func() bool { return r.liveReplicas() == 1 })
	pool := ratelimit.Limits{Hour: 10, Day: 100}

	limitertest.TakeN(t, r, "login:before", pool, now, 2)
	r.px.Set(faultproxy.Refuse)
	limitertest.TakeN(t, r, "login:during", pool, now, 5)
	if !r.down.Load() {
		t.Fatal("the Takes went to Redis through a refusing proxy")
	}
	limitertest.MustRefund(t, r, "login:during", 3, now)
	limitertest.MustRefund(t, r, "login:before", 1, now)
	if res := limitertest.MustPeek(t, r, "login:during", pool, now); res.Hour.Used != 2 || res.Day.Used != 2 {
		t.Errorf("during the outage, after 5 Takes and a refund of 3: %+v, want 2 used", res)
	}

	r.px.Set(faultproxy.Pass)
	waitFor(t, "the replica to count in Redis again", func() bool { return !r.down.Load() })
	third := mustOpen(t, url, &spy{}, Options{Prefix: prefix, Timeout: steady})
	for key, want := range map[string]int64{"login:during": 2, "login:before": 2} {
		if res := limitertest.MustPeek(t, third, key, pool, now); res.Hour.Used != want || res.Day.Used != want {
			t.Errorf("Redis after the outage: %s used %d/%d (hour/day), want %d", key, res.Hour.Used, res.Day.Used, want)
		}
	}
	limitertest.MustRefund(t, r, "login:before", 1, now)
	if res := limitertest.MustPeek(t, third, "login:before", pool, now); res.Hour.Used != 1 {
		t.Errorf("a refund after the outage left %d used in Redis, want 1", res.Hour.Used)
	}
}
