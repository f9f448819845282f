package metrics

import (
	"testing"
	"time"
)

// BenchmarkRequest is HTTP.Request on an existing series: what metrics
// add to every request, alone and from every core at once (one route: the
// worst case, every core adding to the same counter).
//
//	go test ./internal/metrics -run XXX -bench Request
func BenchmarkRequest(b *testing.B) {
	h := New(nil).HTTP(testRoutes)
	h.Request(1, "GET", 200, time.Millisecond)
	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			h.Request(1, "GET", 200, 700*time.Microsecond)
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				h.Request(1, "GET", 200, 700*time.Microsecond)
			}
		})
	})
}
