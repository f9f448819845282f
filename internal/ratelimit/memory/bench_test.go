package memory

import (
	"context"
	"math"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/ratelimit"
)

// BenchmarkTake measures the cost the in-process limiter adds to a request.
func BenchmarkTake(b *testing.B) {
	unlimited := ratelimit.Limits{Hour: math.MaxInt64, Day: math.MaxInt64}
	ctx := context.Background()
	now := time.Now()
	keys := make([]string, 10000)
	for i := range keys {
		keys[i] = "acct:" + strconv.Itoa(i)
	}
	newLimiter := func(b *testing.B) *Limiter {
		l, err := Open(b.TempDir()+"/ratelimit.json", Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { l.Close() })
		for _, k := range keys {
			l.Take(ctx, k, unlimited, now)
		}
		return l
	}

	b.Run("serial/one-pool", func(b *testing.B) {
		l := newLimiter(b)
		b.ReportAllocs()
		for b.Loop() {
			l.Take(ctx, "acct:1", unlimited, now)
		}
	})
	b.Run("serial/10k-pools", func(b *testing.B) {
		l := newLimiter(b)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			l.Take(ctx, keys[i%len(keys)], unlimited, now)
			i++
		}
	})
	b.Run("parallel/10k-pools", func(b *testing.B) {
		l := newLimiter(b)
		b.ReportAllocs()
		var worker atomic.Int64
		b.RunParallel(func(pb *testing.PB) {
			i := int(worker.Add(1)) * 7919
			for pb.Next() {
				l.Take(ctx, keys[i%len(keys)], unlimited, now)
				i++
			}
		})
	})
	b.Run("parallel/one-pool", func(b *testing.B) {
		l := newLimiter(b)
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				l.Take(ctx, "acct:1", unlimited, now)
			}
		})
	})
}
