package images_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/faultproxy"
	"github.com/cardcat/cardcat/internal/images"
)

// logRecorder is a slog.Handler that keeps every record.
type logRecorder struct {
	mu      sync.Mutex
	records []slog.Record
}

func (l *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (l *logRecorder) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *logRecorder) WithGroup(string) slog.Handler            { return l }
func (l *logRecorder) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	l.records = append(l.records, r.Clone())
	l.mu.Unlock()
	return nil
}

// atLeast returns the records of level min or above.
func (l *logRecorder) atLeast(min slog.Level) []slog.Record {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []slog.Record
	for _, r := range l.records {
		if r.Level >= min {
			out = append(out, r)
		}
	}
	return out
}

func attrOf(r slog.Record, key string) (slog.Value, bool) {
	var v slog.Value
	found := false
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == key {
			v, found = a.Value, true
			return false
		}
		return true
	})
	return v, found
}

func describe(rs []slog.Record) string {
	var b strings.Builder
	for _, r := range rs {
		fmt.Fprintf(&b, "\n  %s %q", r.Level, r.Message)
		r.Attrs(func(a slog.Attr) bool { fmt.Fprintf(&b, " %s=%v", a.Key, a.Value); return true })
	}
	return b.String()
}

// The source fails for 30 s, then comes back: how long after its return is
// the first image given? Failures used to be remembered for a minute (about
// 60 s to recover); now a product's failure is remembered for 2-4 s, and the
// first fetch that succeeds ends the outage for every product.
func TestRecoveryWithinSeconds(t *testing.T) {
	const step = 250 * time.Millisecond // between two requests, on the service's clock
	const bound = 4*time.Second + step  // twice the default RetryInterval of 2 s, then the next request
	for _, products := range []int{1, 5} {
		t.Run(fmt.Sprintf("%d products", products), func(t *testing.T) {
			e := newEnv(t, nil)
			e.cdn.set(serveStatus(http.StatusServiceUnavailable))
			ask := func(i int) error {
				_, err := e.svc.Get(context.Background(), 100+i%products)
				return err
			}
			i := 0
			for outageEnd := e.clock.Now().Add(30 * time.Second); e.clock.Now().Before(outageEnd); i++ {
				if err := ask(i); !errors.Is(err, images.ErrUnavailable) {
					t.Fatalf("source down: Get = %v, want ErrUnavailable", err)
				}
				e.clock.Add(step)
			}
			// Sparing the source: one fetch per product per RetryInterval at
			// most, and once it is known to be down one probe per ProbeInterval.
			outageFetches := e.cdn.fetches.Load()
			if limit := int64(30*time.Second/images.DefaultProbeInterval) + 3; outageFetches > limit {
				t.Errorf("%d fetches during a 30 s outage, want at most %d", outageFetches, limit)
			}

			e.cdn.set(serveJPEG)
			back := e.clock.Now()
			for ; ask(i) != nil; i++ {
				e.clock.Add(step)
				if e.clock.Now().Sub(back) > 2*time.Minute {
					t.Fatal("no image 2 minutes after the source came back")
				}
			}
			took := e.clock.Now().Sub(back)
			t.Logf("source back: first image after %v (%d fetches during the 30 s outage)", took, outageFetches)
			if took > bound {
				t.Errorf("first image %v after the source came back, want within %v", took, bound)
			}
			// Every product recovers with the first success.
			for p := range products {
				if _, err := e.svc.Get(context.Background(), 100+p); err != nil {
					t.Errorf("product %d after recovery: %v", 100+p, err)
				}
			}
		})
	}
}

// An outage is logged once when it starts (WARN, with the first error) and
// once when it ends (INFO, with its length and the answers it cost), however
// many answers it fails or serves stale; per fetch, at DEBUG at most.
func TestOutageIsLoggedOnce(t *testing.T) {
	e := newEnv(t, nil)
	logs := &logRecorder{}
	svc, err := images.New(e.cfg, e.store, images.WithClock(e.clock.Now), images.WithLogger(slog.New(logs)))
	if err != nil {
		t.Fatal(err)
	}
	const products = 10
	for p := range products / 2 { // half the products have a copy, which goes stale
		if _, err := svc.Get(context.Background(), 200+p); err != nil {
			t.Fatal(err)
		}
	}
	e.clock.Add(25 * time.Hour)

	e.cdn.set(serveStatus(http.StatusServiceUnavailable))
	start := e.clock.Now()
	var unavailable, stale int
	var badRetryAfter []time.Duration
	// ask asks for a product, counts a failed or stale answer, and reports
	// whether the image was fresh.
	ask := func(p int) (fresh bool) {
		img, err := svc.Get(context.Background(), 200+p)
		switch {
		case errors.Is(err, images.ErrUnavailable):
			unavailable++
			if d := images.RetryAfter(err); d <= 0 || d > 4*time.Second {
				badRetryAfter = append(badRetryAfter, d)
			}
		case err != nil:
			t.Fatalf("Get: %v", err)
		case e.clock.Now().Sub(img.FetchedAt) >= images.DefaultTTL:
			stale++
		default:
			return true
		}
		return false
	}
	for i := range 500 {
		if ask(i % products) {
			t.Fatalf("Get gave a fresh image while the source is down")
		}
		e.clock.Add(100 * time.Millisecond)
	}
	e.cdn.set(serveJPEG)
	for p := range products {
		for !ask(p) {
			e.clock.Add(100 * time.Millisecond)
		}
	}
	outage := e.clock.Now().Sub(start)

	lines := logs.atLeast(slog.LevelInfo)
	t.Logf("%d answers failed, %d stale: %d log lines at INFO or above", unavailable, stale, len(lines))
	if len(lines) != 2 || lines[0].Level != slog.LevelWarn || lines[0].Message != "image source failing" ||
		lines[1].Level != slog.LevelInfo || lines[1].Message != "image source recovered" {
		t.Fatalf("log lines at INFO or above:%s\nwant one WARN \"image source failing\", one INFO \"image source recovered\"", describe(lines))
	}
	if v, _ := attrOf(lines[0], "err"); !strings.Contains(v.String(), "503") {
		t.Errorf("the WARN's err = %q, want the first failure's cause (503)", v)
	}
	for key, want := range map[string]int64{"unavailable": int64(unavailable), "stale": int64(stale)} {
		if v, ok := attrOf(lines[1], key); !ok || v.Int64() != want {
			t.Errorf("recovered: %s = %v, want %d", key, v, want)
		}
	}
	if v, _ := attrOf(lines[1], "outage"); v.Duration() <= 0 || v.Duration() > outage {
		t.Errorf("recovered: outage = %v, want within (0, %v]", v, outage)
	}
	if len(badRetryAfter) > 0 {
		t.Errorf("RetryAfter of %d failed answers out of (0, 4s]: %v", len(badRetryAfter), badRetryAfter[:min(5, len(badRetryAfter))])
	}
	if unavailable == 0 || stale == 0 {
		t.Errorf("%d failed and %d stale answers: the test should make both", unavailable, stale)
	}
}

// inFlight is an http.RoundTripper that counts the requests in flight.
type inFlight struct {
	next     http.RoundTripper
	now, max atomic.Int64
}

func (f *inFlight) RoundTrip(r *http.Request) (*http.Response, error) {
	n := f.now.Add(1)
	defer f.now.Add(-1)
	for m := f.max.Load(); n > m && !f.max.CompareAndSwap(m, n); m = f.max.Load() {
	}
	return f.next.RoundTrip(r)
}

// A source that hangs (black-holed: connections accepted, never answered):
// fetches end at the fetch timeout, at most MaxConcurrentFetches at once;
// once the source is known to be down, callers are answered at once and one
// probe at a time goes to the source; the first image comes soon after the
// source is back; and no goroutine is left behind.
func TestHangingSource(t *testing.T) {
	const (
		fetchTimeout  = 400 * time.Millisecond
		probeInterval = 100 * time.Millisecond
		slots         = 4
	)
	e := newEnv(t, nil)
	proxy := faultproxy.Start(t, strings.TrimPrefix(e.cdn.URL, "http://"))
	transport := http.DefaultTransport.(*http.Transport).Clone()
	counter := &inFlight{next: transport}
	cfg := e.cfg
	cfg.SourceURL = "http://" + proxy.Addr() + "/product/{productId}_in_1000x1000.jpg"
	cfg.FetchTimeout = fetchTimeout
	cfg.MaxConcurrentFetches = slots
	cfg.RetryInterval = 200 * time.Millisecond
	cfg.ProbeInterval = probeInterval
	svc, err := images.New(cfg, e.store, images.WithHTTPClient(&http.Client{Transport: counter}))
	if err != nil {
		t.Fatal(err)
	}
	goroutines := runtime.NumGoroutine()

	// getAll asks for the products at once, and returns how long each took.
	getAll := func(t *testing.T, ids []int) []time.Duration {
		t.Helper()
		took := make([]time.Duration, len(ids))
		var wg sync.WaitGroup
		for i, id := range ids {
			wg.Go(func() {
				start := time.Now()
				_, err := svc.Get(context.Background(), id)
				took[i] = time.Since(start)
				if !errors.Is(err, images.ErrUnavailable) {
					t.Errorf("Get(%d) with the source hanging: %v, want ErrUnavailable", id, err)
				}
			})
		}
		wg.Wait()
		return took
	}
	ids := func(from, n int) []int {
		out := make([]int, n)
		for i := range out {
			out[i] = from + i
		}
		return out
	}

	proxy.Set(faultproxy.Blackhole)
	// The first callers find the source hanging: each waits the fetch
	// timeout at most, fetches stay within their slots.
	for _, d := range getAll(t, ids(1, 2*slots)) {
		if d > fetchTimeout+300*time.Millisecond {
			t.Errorf("a Get took %v with the source hanging, want about the fetch timeout (%v)", d, fetchTimeout)
		}
	}
	if n := counter.max.Load(); n > slots {
		t.Errorf("%d fetches were in flight at once, want at most %d", n, slots)
	}

	// The source is known to be down: the next callers are answered at once,
	// but one, the probe, which waits for the source.
	time.Sleep(probeInterval)
	counter.max.Store(counter.now.Load())
	took := getAll(t, ids(101, 20))
	slow := 0
	for _, d := range took {
		if d > fetchTimeout/2 {
			slow++
		}
	}
	t.Logf("source down: %d of %d callers waited for the source (longest %v)", slow, len(took), maxOf(took))
	if slow > 1 {
		t.Errorf("%d callers waited for a source known to be down, want at most 1 (the probe)", slow)
	}
	if n := counter.max.Load(); n > 1 {
		t.Errorf("%d fetches in flight at once while the source is down, want 1 probe", n)
	}

	// The source comes back while a probe hangs on a black-holed connection.
	time.Sleep(probeInterval)
	probe := make(chan struct{})
	go func() {
		defer close(probe)
		svc.Get(context.Background(), 300)
	}()
	time.Sleep(50 * time.Millisecond)
	proxy.Set(faultproxy.Pass)
	back := time.Now()
	for id := 301; ; id++ {
		if _, err := svc.Get(context.Background(), id); err == nil {
			break
		}
		if time.Since(back) > 10*time.Second {
			t.Fatal("no image 10 s after the source came back")
		}
		time.Sleep(20 * time.Millisecond)
	}
	recovered := time.Since(back)
	t.Logf("source back: first image after %v", recovered)
	if bound := fetchTimeout + probeInterval + 300*time.Millisecond; recovered > bound {
		t.Errorf("first image %v after the source came back, want within %v (a hung probe's timeout, then the next probe)", recovered, bound)
	}
	<-probe

	transport.CloseIdleConnections()
	deadline := time.Now().Add(3 * time.Second)
	for runtime.NumGoroutine() > goroutines && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > goroutines {
		buf := make([]byte, 1<<20)
		t.Errorf("%d goroutines after the outage, %d before:\n%s", n, goroutines, buf[:runtime.Stack(buf, true)])
	}
}

func maxOf(ds []time.Duration) time.Duration {
	var m time.Duration
	for _, d := range ds {
		m = max(m, d)
	}
	return m
}
