package redis

import (
	"context"
	"strconv"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/cardcat/cardcat/internal/faultproxy"
	"github.com/cardcat/cardcat/internal/ratelimit"
	"github.com/cardcat/cardcat/internal/ratelimit/limitertest"
	"github.com/cardcat/cardcat/internal/ratelimit/memory"
)

// free is the Free plan's quota (account.PlanTerms), the one of the probe
// that found a Redis outage handing every replica a fresh quota (issue 16).
var free = ratelimit.Limits{Hour: 100, Day: 1000}

// replica is one API replica: a limiter that reaches Redis through a proxy
// the test can cut, with a real in-memory fallback as in production.
type replica struct {
	*Limiter
	px   *faultproxy.Proxy
	logs *logBuffer
}

func openReplica(t *testing.T, url, prefix string) replica {
	t.Helper()
	o, err := goredis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	px := faultproxy.Start(t, o.Addr)
	logs := &logBuffer{}
	l := mustOpen(t, "redis://"+px.Addr()+"/"+strconv.Itoa(o.DB), memory.New(memory.Options{}), Options{
		Prefix:            prefix,
		Timeout:           200 * time.Millisecond,
		ProbeInterval:     10 * time.Millisecond,
		HeartbeatInterval: 20 * time.Millisecond,
		Now:               func() time.Time { return now },
		Logger:            logs.Logger(),
	})
	return replica{l, px, logs}
}

// admitted makes n Takes of key and returns how many were allowed.
func admitted(t *testing.T, l ratelimit.Limiter, key string, lim ratelimit.Limits, n int) int {
	t.Helper()
	got := 0
	for range n {
		if limitertest.MustTake(t, l, key, lim, now).Allowed {
			got++
		}
	}
	return got
}

// TestOutageKeepsOneQuota is the probe of issue 16 point 2: two replicas on
// one Redis, each through its own proxy, and Redis cut from both (black-holed,
// then refused). Before the fix each replica counted the outage from zero:
// 100 more requests each on an exhausted Free pool, 200 in all on a fresh one,
// and none of them reached Redis afterwards.
func TestOutageKeepsOneQuota(t *testing.T) {
	for _, tt := range []struct {
		name string
		mode faultproxy.Mode
	}{{"blackhole", faultproxy.Blackhole}, {"refuse", faultproxy.Refuse}} {
		t.Run(tt.name, func(t *testing.T) {
			url := redisURL(t)
			prefix := testPrefix(t, url)
			replicas := []replica{openReplica(t, url, prefix), openReplica(t, url, prefix)}
			waitFor(t, "both replicas to see two live replicas", func() bool {
				return replicas[0].liveReplicas() == 2 && replicas[1].liveReplicas() == 2
			})
			for _, r := range replicas {
				if r.down.Load() {
					t.Skip("Redis took over 200ms before the outage was even simulated: this machine is too loaded for a timing test")
				}
			}

			// The exhausted pool: 100 requests spread over both replicas,
			// then one more on each, refused, as a client retrying would.
			for i := range 100 {
				limitertest.MustTake(t, replicas[i%2], "acct:full", free, now)
			}
			for i, r := range replicas {
				if res := limitertest.MustTake(t, r, "acct:full", free, now); res.Allowed {
					t.Fatalf("replica %d admitted a 101st request before the outage: %+v", i, res)
				}
			}

			for _, r := range replicas {
				r.px.Set(tt.mode)
			}

			// (a) An exhausted pool stays exhausted on every replica.
			for i, r := range replicas {
				if n := admitted(t, r, "acct:full", free, 150); n != 0 {
					t.Errorf("replica %d admitted %d requests of an exhausted pool during the outage, want 0", i, n)
				}
				res := limitertest.MustPeek(t, r, "acct:full", free, now)
				if res.Allowed || res.Hour.Used != 100 || res.RetryAfter <= 0 {
					t.Errorf("replica %d: Peek of the exhausted pool during the outage = %+v, want 100 used, denied, a Retry-After", i, res)
				}
			}

			// (b) A fresh pool gets no more than its limit across both: the
			// room left (all 100) shared by the two live replicas.
			total := 0
			for i, r := range replicas {
				n := admitted(t, r, "acct:fresh", free, 150)
				if n != 50 {
					t.Errorf("replica %d admitted %d requests of a fresh pool during the outage, want its share, 50", i, n)
				}
				total += n
			}
			if total > int(free.Hour) {
				t.Errorf("a fresh pool got %d requests across two replicas during the outage, want at most its limit %d", total, free.Hour)
			}
			for i, r := range replicas {
				if err := r.Healthy(context.Background()); err == nil {
					t.Errorf("replica %d: Healthy during the outage = nil", i)
				}
			}

			// (c) Back: the outage's counts reach Redis.
			for _, r := range replicas {
				r.px.Set(faultproxy.Pass)
			}
			for i, r := range replicas {
				waitFor(t, "replica "+strconv.Itoa(i)+" to count in Redis again", func() bool { return !r.down.Load() })
			}
			third := mustOpen(t, url, &spy{}, Options{Prefix: prefix, Timeout: steady})
			for key, want := range map[string]int64{"acct:full": 100, "acct:fresh": int64(total)} {
				res := limitertest.MustPeek(t, third, key, free, now)
				if res.Hour.Used != want || res.Day.Used != want {
					t.Errorf("Redis after the outage: %s used %d this hour, %d today; want %d both", key, res.Hour.Used, res.Day.Used, want)
				}
			}
			// And counting goes on from there, in Redis.
			if n := admitted(t, replicas[0], "acct:fresh", free, 10); n != 100-total {
				t.Errorf("after the outage the fresh pool admitted %d more, want the %d left", n, 100-total)
			}

			for i, r := range replicas {
				if n := r.logs.count(downMsg); n != 1 {
					t.Errorf("replica %d logged the outage's start %d times, want once:\n%s", i, n, r.logs.String())
				}
				if n := r.logs.count(upMsg); n != 1 {
					t.Errorf("replica %d logged the outage's end %d times, want once:\n%s", i, n, r.logs.String())
				}
				if n := r.logs.count("counted_locally=50 flushed=50"); n != 1 {
					t.Errorf("replica %d: the end of the outage does not say 50 counted locally and flushed:\n%s", i, r.logs.String())
				}
			}
		})
	}
}

// TestReplicasRegister: each replica counts the live ones, and one that stops
// leaves the count at once rather than after the liveness.
func TestReplicasRegister(t *testing.T) {
	url := redisURL(t)
	prefix := testPrefix(t, url)
	// Heartbeats far apart, so that only the ones below count and the
	// stopped replica would stay live for 30 minutes if it did not leave.
	opts := Options{Prefix: prefix, Timeout: steady, HeartbeatInterval: 10 * time.Minute}
	a := mustOpen(t, url, &spy{}, opts)
	b := mustOpen(t, url, &spy{}, opts)
	if err := a.heartbeat(context.Background()); err != nil || a.liveReplicas() != 2 || b.liveReplicas() != 2 {
		t.Fatalf("two replicas see %d and %d live (%v), want 2 and 2", a.liveReplicas(), b.liveReplicas(), err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if err := a.heartbeat(context.Background()); err != nil || a.liveReplicas() != 1 {
		t.Errorf("after the other stopped, the one left sees %d live (%v), want 1", a.liveReplicas(), err)
	}
	if ttl := adminClient(t, url).PTTL(context.Background(), prefix+"replicas").Val(); ttl <= 0 || ttl > 3*opts.HeartbeatInterval {
		t.Errorf("the set of replicas expires in %v, want within three heartbeats", ttl)
	}
}
