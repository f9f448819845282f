package redis

import (
	"context"
	"math"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/ratelimit"
)

// BenchmarkTake measures one Take against the Redis at CARDCAT_TEST_REDIS_URL:
// mostly the round trip, which is the cost the Redis backend adds per request.
func BenchmarkTake(b *testing.B) {
	url := redisURL(b)
	l, err := Open(context.Background(), url, &spy{}, Options{Prefix: testPrefix(b, url), Timeout: time.Second})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { l.Close() })
	unlimited := ratelimit.Limits{Hour: math.MaxInt64, Day: math.MaxInt64}
	ctx := context.Background()
	now := time.Now()

	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := l.Take(ctx, "acct:1", unlimited, now); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.ReportAllocs()
		var worker atomic.Int64
		b.RunParallel(func(pb *testing.PB) {
			key := "acct:" + strconv.FormatInt(worker.Add(1), 10)
			for pb.Next() {
				if _, err := l.Take(ctx, key, unlimited, now); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
	if l.down.Load() {
		b.Fatal("the benchmark ran on the fallback; the figures are not Redis's")
	}
}
