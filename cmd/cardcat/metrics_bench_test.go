package main

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/httpapi"
	"github.com/cardcat/cardcat/internal/metrics"
	"github.com/cardcat/cardcat/internal/ratelimit/memory"
	"github.com/cardcat/cardcat/internal/serving"
)

// BenchmarkChainMetrics is what the metrics add to a card-detail request:
// the chain as serve wires it by default (account-backed keys, the
// in-process limiter), without and with metrics.Metrics, in turns of 256
// requests within one run (see BenchmarkChain's Interleaved). It reports
// each one's ns and allocations per request and metrics-% over the chain
// without them, in wall-clock time and in the CPU time of the benchmark's
// own thread (locked to it), which a machine shared with other work
// disturbs far less: the descheduled time is not in it.
//
//	go test ./cmd/cardcat -run XXX -bench ChainMetrics
func BenchmarkChainMetrics(b *testing.B) {
	f := newChainFixture(b)
	mem := memory.New(memory.Options{})
	b.Cleanup(func() { mem.Close() })
	build := func(mx *metrics.Metrics) http.Handler {
		api, err := httpapi.New(httpapi.Config{}, httpapi.Deps{
			View:      func() *serving.View { return f.view },
			Games:     game.Default(),
			Logger:    slog.New(slog.DiscardHandler),
			PublicURL: "http://localhost:8080",
			Auth:      account.NewAuthenticator(f.dir, time.Now),
			Limiter:   mem,
			Metrics:   mx,
		})
		if err != nil {
			b.Fatal(err)
		}
		return api.Handler()
	}
	hs := []http.Handler{build(nil), build(metrics.New(nil))}
	reqs := make([]*http.Request, len(f.targets))
	for i, t := range f.targets {
		reqs[i] = httptest.NewRequest(http.MethodGet, t, nil)
		reqs[i].Header.Set("X-API-Key", f.key)
	}
	w := &benchSink{h: http.Header{}}
	for _, h := range hs {
		for _, r := range reqs { // every series made before measuring
			clear(w.h)
			h.ServeHTTP(w, r)
			if w.code != 0 && w.code != http.StatusOK {
				b.Fatalf("%s: status %d", r.URL, w.code)
			}
		}
	}
	allocs := make([]float64, len(hs))
	for k, h := range hs {
		allocs[k] = testing.AllocsPerRun(1000, func() {
			clear(w.h)
			h.ServeHTTP(w, reqs[0])
		})
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	const batch = 256
	cpu := make([]time.Duration, len(hs))
	spent := make([]time.Duration, len(hs))
	count := make([]int, len(hs))
	n := 0
	for b.Loop() {
		if n%batch == 0 {
			k := (n / batch) % len(hs)
			start, startCPU := time.Now(), threadCPU(b)
			for j := range batch {
				clear(w.h)
				hs[k].ServeHTTP(w, reqs[(n+j)%len(reqs)])
			}
			cpu[k] += threadCPU(b) - startCPU
			spent[k] += time.Since(start)
			count[k] += batch
		}
		n++
	}
	if count[0] == 0 || count[1] == 0 {
		return
	}
	ns := func(k int) float64 { return float64(spent[k].Nanoseconds()) / float64(count[k]) }
	b.ReportMetric(ns(0), "off-ns")
	b.ReportMetric(ns(1), "metrics-ns")
	b.ReportMetric(100*(ns(1)-ns(0))/ns(0), "metrics-%")
	cpuNs := func(k int) float64 { return float64(cpu[k].Nanoseconds()) / float64(count[k]) }
	b.ReportMetric(cpuNs(0), "off-cpu-ns")
	b.ReportMetric(cpuNs(1), "metrics-cpu-ns")
	b.ReportMetric(100*(cpuNs(1)-cpuNs(0))/cpuNs(0), "metrics-cpu-%")
	b.ReportMetric(allocs[0], "off-allocs")
	b.ReportMetric(allocs[1], "metrics-allocs")
}

// threadCPU is the CPU time of the calling thread.
func threadCPU(b *testing.B) time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ts.Nano())
}
