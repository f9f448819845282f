package serving

import (
	"math/rand/v2"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zeebo/xxh3"

	"github.com/cardcat/cardcat/internal/pace"
)

// TestHashInSteps: the checksum a megabyte at a time is xxh3.Hash's, at
// every length around a step's.
func TestHashInSteps(t *testing.T) {
	b := make([]byte, 3*hashStep+5)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	for _, n := range []int{0, 1, 239, 240, 1024, hashStep - 1, hashStep, hashStep + 1, 3*hashStep + 5} {
		if got, want := hashInSteps(b[:n], nil), xxh3.Hash(b[:n]); got != want {
			t.Errorf("%d bytes: %016x, xxh3.Hash %016x", n, got, want)
		}
	}
}

// BenchmarkHashStall hashes 512 MB beside a goroutine that ticks every 100
// µs, on one core (GOMAXPROCS 1, as a pinned server), and reports the
// longest wait between two ticks: the time no other goroutine could run.
// xxh3.Hash of it all is one call the scheduler cannot preempt;
// hashInSteps can be preempted between megabytes, and paced it pauses
// (package pace; its own benchmark measures requests woken by the network).
func BenchmarkHashStall(b *testing.B) {
	data := make([]byte, 512<<20)
	for i := range data {
		data[i] = byte(i)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	for _, tt := range []struct {
		name string
		hash func([]byte) uint64
	}{{"whole", xxh3.Hash}, {"steps", func(b []byte) uint64 { return hashInSteps(b, nil) }}, {"paced", func(b []byte) uint64 { return hashInSteps(b, new(pace.Pacer)) }}} {
		b.Run(tt.name, func(b *testing.B) {
			var worst time.Duration
			for b.Loop() {
				var stop atomic.Bool
				longest := make(chan time.Duration)
				go func() {
					var gap time.Duration
					last := time.Now()
					for !stop.Load() {
						time.Sleep(100 * time.Microsecond)
						now := time.Now()
						gap = max(gap, now.Sub(last))
						last = now
					}
					longest <- gap
				}()
				runtime.Gosched()
				tt.hash(data)
				stop.Store(true)
				worst = max(worst, <-longest)
			}
			b.ReportMetric(float64(worst.Microseconds()), "max-stall-µs")
		})
	}
}
