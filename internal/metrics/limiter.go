package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// RedisFallback reports the Redis limiter: local is whether it counts on
// its local fallback (Redis unreachable), read at scrape time. It also
// registers the round-trip histogram that RedisRoundTrip fills. Call it once,
// when the limiter is Redis.
func (m *Metrics) RedisFallback(local func() bool) {
	if m == nil {
		return
	}
	m.reg.MustRegister(m.redisRTT, prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Namespace: namespace, Name: "ratelimit_redis_fallback",
		Help: "1 while the Redis limiter counts on its local fallback (Redis unreachable), else 0.",
	}, func() float64 {
		if local() {
			return 1
		}
		return 0
	}))
}

// newRedisRTT is the round-trip histogram, made with the Metrics (so that
// RedisRoundTrip never races with its creation) and registered by
// RedisFallback.
func newRedisRTT() prometheus.Histogram {
	return prometheus.NewHistogram(prometheus.HistogramOpts{
		Namespace: namespace, Name: "ratelimit_redis_round_trip_seconds",
		Help: "Round trips of the Redis limiter (one script run, or one pipeline of them), failed ones included.",
		// Redis answers in well under a millisecond on a LAN; a round trip
		// is cut at the limiter's timeout (100 ms by default).
		Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25},
	})
}

// RedisRoundTrip records one round trip of the Redis limiter
// (redis.Options.RoundTrip); it is exposed once RedisFallback was called.
func (m *Metrics) RedisRoundTrip(d time.Duration) {
	if m == nil {
		return
	}
	m.redisRTT.Observe(d.Seconds())
}
