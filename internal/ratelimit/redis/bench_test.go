package redis

import (
	"context"
	"math"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/cardcat/cardcat/internal/ratelimit"
)

// BenchmarkTake measures one Take against the Redis at CARDCAT_TEST_REDIS_URL:
// mostly the round trip, which is the cost the Redis backend adds per request.
//
// Wall time per op says little on a shared machine where the server competes
// with Redis for the cores, so each variant also reports the CPU this process
// spent per Take (cpu-ns/op, from getrusage) and the CPU Redis spent per Take
// (redis-cpu-ns/op, from INFO cpu; it includes anyone else's use of that Redis
// during the run). parallel16 runs 16 goroutines per GOMAXPROCS, like a server
// pinned to one or two CPUs under 32 connections, each goroutine with a pool
// of its own; onekey16 is the same with every goroutine on one pool, as under
// one busy client (where leases apply). takes/round is Takes per round trip,
// calls/round calls per round trip (a lease's fetch is one call).
func BenchmarkTake(b *testing.B) {
	url := redisURL(b)
	l, err := Open(context.Background(), url, &spy{}, Options{Prefix: testPrefix(b, url), Timeout: time.Second})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { l.Close() })
	admin := adminClient(b, url)
	unlimited := ratelimit.Limits{Hour: math.MaxInt64, Day: math.MaxInt64}
	ctx := context.Background()
	now := time.Now()

	// measure wraps a benchmark body with the CPU metrics.
	measure := func(b *testing.B, body func()) {
		b.ReportAllocs()
		rounds, sent := l.rounds.Load(), l.sentAll.Load()
		redisBefore := redisCPU(b, admin)
		cpuBefore := processCPU()
		body()
		cpu := processCPU() - cpuBefore
		redis := redisCPU(b, admin) - redisBefore
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
		b.ReportMetric(float64(redis.Nanoseconds())/float64(b.N), "redis-cpu-ns/op")
		if n := l.rounds.Load() - rounds; n > 0 {
			b.ReportMetric(float64(l.sentAll.Load()-sent)/float64(n), "calls/round")
			b.ReportMetric(float64(b.N)/float64(n), "takes/round")
		}
	}
	parallel := func(b *testing.B) {
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
	}

	b.Run("serial", func(b *testing.B) {
		measure(b, func() {
			for b.Loop() {
				if _, err := l.Take(ctx, "acct:1", unlimited, now); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
	b.Run("parallel", func(b *testing.B) {
		measure(b, func() { parallel(b) })
	})
	b.Run("parallel16", func(b *testing.B) {
		b.SetParallelism(16)
		measure(b, func() { parallel(b) })
	})
	b.Run("onekey16", func(b *testing.B) {
		b.SetParallelism(16)
		measure(b, func() {
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := l.Take(ctx, "acct:one", unlimited, now); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	})
	if l.down.Load() {
		b.Fatal("the benchmark ran on the fallback; the figures are not Redis's")
	}
}

// processCPU is the user and system CPU time this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// redisCPU is the user and system CPU time the Redis server has used, from
// INFO cpu (used_cpu_sys and used_cpu_user, in seconds with microseconds).
func redisCPU(b *testing.B, admin *goredis.Client) time.Duration {
	b.Helper()
	info, err := admin.Info(context.Background(), "cpu").Result()
	if err != nil {
		b.Fatal(err)
	}
	var total time.Duration
	for _, line := range strings.Split(info, "\n") {
		name, value, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok || (name != "used_cpu_sys" && name != "used_cpu_user") {
			continue
		}
		s, err := strconv.ParseFloat(value, 64)
		if err != nil {
			b.Fatalf("INFO cpu: %s: %v", line, err)
		}
		total += time.Duration(s * float64(time.Second))
	}
	return total
}
