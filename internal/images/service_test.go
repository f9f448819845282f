package images_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/images"
)

func TestFirstFetchIsStored(t *testing.T) {
	e := newEnv(t, nil)
	img := e.mustGet(t, 1001)
	if !bytes.Equal(img.Body, jpegOf(1001)) || img.ContentType != "image/jpeg" {
		t.Fatalf("Get = %q (%s), want the CDN's image/jpeg", img.Body, img.ContentType)
	}
	if img.ETag != images.ETagOf(img.Body) || !strings.HasPrefix(img.ETag, `"`) {
		t.Errorf("ETag = %s, want the quoted sha256 prefix %s", img.ETag, images.ETagOf(img.Body))
	}
	if !img.FetchedAt.Equal(e.clock.Now()) {
		t.Errorf("FetchedAt = %v, want the clock's %v", img.FetchedAt, e.clock.Now())
	}
	stored, err := e.stored(t, 1001)
	if err != nil {
		t.Fatalf("stored copy: %v", err)
	}
	if !bytes.Equal(stored.Body, img.Body) || stored.ContentType != "image/jpeg" || stored.ETag != img.ETag || !stored.FetchedAt.Equal(img.FetchedAt) {
		t.Errorf("stored copy %+v differs from the served image", stored)
	}

	e.clock.Add(time.Hour)
	again := e.mustGet(t, 1001)
	if again.ETag != img.ETag {
		t.Errorf("second Get: ETag %s, want %s", again.ETag, img.ETag)
	}
	// A restarted server (or another replica) shares the stored copy.
	if _, err := e.newService(t).Get(context.Background(), 1001); err != nil {
		t.Fatal(err)
	}
	e.checkFetches(t, 1)
}

func TestExpiresAfter24Hours(t *testing.T) {
	e := newEnv(t, nil)
	first := e.mustGet(t, 7)
	e.clock.Add(24*time.Hour - time.Second)
	e.mustGet(t, 7)
	e.checkFetches(t, 1)

	e.cdn.set(func(w http.ResponseWriter, _ *http.Request, id int) {
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("new picture"))
	})
	e.clock.Add(time.Second)
	img := e.mustGet(t, 7)
	e.checkFetches(t, 2)
	if string(img.Body) != "new picture" || img.ContentType != "image/png" || img.ETag == first.ETag {
		t.Fatalf("after 24 h: Get = %q (%s, %s), want the refreshed png", img.Body, img.ContentType, img.ETag)
	}
	if !img.FetchedAt.Equal(e.clock.Now()) {
		t.Errorf("FetchedAt = %v, want %v", img.FetchedAt, e.clock.Now())
	}
	if stored, err := e.stored(t, 7); err != nil || string(stored.Body) != "new picture" {
		t.Fatalf("stored copy after refresh: %v, %v", stored, err)
	}
}

func TestConcurrentGetsMakeOneFetch(t *testing.T) {
	e := newEnv(t, nil)
	gate := make(chan struct{})
	e.cdn.set(serveAfter(gate, serveJPEG))
	const callers = 50
	var wg sync.WaitGroup
	results := make([]*images.Image, callers)
	errs := make([]error, callers)
	for i := range callers {
		wg.Go(func() { results[i], errs[i] = e.svc.Get(context.Background(), 55) })
	}
	time.Sleep(50 * time.Millisecond) // let the callers pile up on the fetch
	close(gate)
	wg.Wait()
	for i := range callers {
		if errs[i] != nil || !bytes.Equal(results[i].Body, jpegOf(55)) {
			t.Fatalf("caller %d: %v, %v", i, results[i], errs[i])
		}
	}
	e.checkFetches(t, 1)
	if n := e.store.puts.Load(); n != 1 {
		t.Errorf("storage puts = %d, want 1", n)
	}
}

// A caller that gives up does not cancel the fetch the others wait for.
func TestCanceledCallerDoesNotPoisonTheFetch(t *testing.T) {
	e := newEnv(t, nil)
	gate := make(chan struct{})
	started := make(chan struct{}, 1)
	e.cdn.set(func(w http.ResponseWriter, r *http.Request, id int) {
		started <- struct{}{}
		serveAfter(gate, serveJPEG)(w, r, id)
	})
	ctx, cancel := context.WithCancel(context.Background())
	first := make(chan error, 1)
	go func() {
		_, err := e.svc.Get(ctx, 9)
		first <- err
	}()
	<-started
	second := make(chan error, 1)
	go func() {
		_, err := e.svc.Get(context.Background(), 9)
		second <- err
	}()
	cancel()
	if err := <-first; !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled caller: got %v, want context.Canceled", err)
	}
	close(gate)
	if err := <-second; err != nil {
		t.Fatalf("other caller: %v", err)
	}
	e.checkFetches(t, 1)
	if _, err := e.stored(t, 9); err != nil {
		t.Fatalf("stored copy: %v", err)
	}
}

func TestUpstreamNotFound(t *testing.T) {
	e := newEnv(t, nil)
	e.cdn.set(serveStatus(http.StatusNotFound))
	_, err := e.svc.Get(context.Background(), 404)
	if !errors.Is(err, images.ErrNotFound) || errors.Is(err, images.ErrUnavailable) {
		t.Fatalf("Get: got %v, want ErrNotFound", err)
	}
	if _, err := e.stored(t, 404); !errors.Is(err, images.ErrNotStored) {
		t.Fatalf("a 404 left something in storage: %v", err)
	}
	// The answer is remembered for NotFoundInterval: the CDN is not asked again.
	e.cdn.set(serveJPEG)
	e.clock.Add(images.DefaultNotFoundInterval - time.Second)
	if _, err := e.svc.Get(context.Background(), 404); !errors.Is(err, images.ErrNotFound) {
		t.Fatalf("Get within NotFoundInterval: got %v, want ErrNotFound", err)
	}
	e.checkFetches(t, 1)
	e.clock.Add(time.Second)
	e.mustGet(t, 404)
	e.checkFetches(t, 2)
}

func TestUpstreamFailures(t *testing.T) {
	closedAddr := func(t *testing.T) string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		return "http://" + addr + "/{productId}.jpg"
	}
	tests := []struct {
		name    string
		edit    func(t *testing.T, c *images.Config)
		respond func(w http.ResponseWriter, r *http.Request, id int)
		within  time.Duration
	}{
		{name: "500", respond: serveStatus(http.StatusInternalServerError)},
		{name: "503", respond: serveStatus(http.StatusServiceUnavailable)},
		{name: "403", respond: serveStatus(http.StatusForbidden)},
		{
			name: "timeout",
			edit: func(t *testing.T, c *images.Config) { c.FetchTimeout = 100 * time.Millisecond },
			respond: func(w http.ResponseWriter, r *http.Request, id int) {
				<-r.Context().Done() // never answers
			},
			within: 1500 * time.Millisecond,
		},
		{
			name: "slow body",
			edit: func(t *testing.T, c *images.Config) { c.FetchTimeout = 100 * time.Millisecond },
			respond: func(w http.ResponseWriter, r *http.Request, id int) {
				w.Header().Set("Content-Type", "image/jpeg")
				w.Write([]byte("\xff\xd8"))
				w.(http.Flusher).Flush()
				<-r.Context().Done() // the rest never comes
			},
			within: 1500 * time.Millisecond,
		},
		{
			name:    "unreachable",
			edit:    func(t *testing.T, c *images.Config) { c.SourceURL = closedAddr(t) },
			respond: serveJPEG,
		},
		{
			name: "html",
			respond: func(w http.ResponseWriter, _ *http.Request, _ int) {
				w.Header().Set("Content-Type", "text/html; charset=utf-8")
				w.Write([]byte("<html>Access denied</html>"))
			},
		},
		{
			name: "svg",
			respond: func(w http.ResponseWriter, _ *http.Request, _ int) {
				w.Header().Set("Content-Type", "image/svg+xml")
				w.Write([]byte(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`))
			},
		},
		{
			name: "no content type",
			respond: func(w http.ResponseWriter, _ *http.Request, _ int) {
				w.Header()["Content-Type"] = nil // keep net/http from sniffing one
				w.Write([]byte("\xff\xd8\xff\xe0"))
			},
		},
		{
			name: "empty body",
			respond: func(w http.ResponseWriter, _ *http.Request, _ int) {
				w.Header().Set("Content-Type", "image/jpeg")
			},
		},
		{
			name: "oversized with length",
			edit: func(t *testing.T, c *images.Config) { c.MaxBytes = 1000 },
			respond: func(w http.ResponseWriter, _ *http.Request, _ int) {
				w.Header().Set("Content-Type", "image/jpeg")
				w.Write(bytes.Repeat([]byte("x"), 1001))
			},
		},
		{
			name: "oversized chunked",
			edit: func(t *testing.T, c *images.Config) { c.MaxBytes = 1000 },
			respond: func(w http.ResponseWriter, _ *http.Request, _ int) {
				w.Header().Set("Content-Type", "image/jpeg")
				for range 20 {
					w.Write(bytes.Repeat([]byte("x"), 100))
					w.(http.Flusher).Flush()
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, func(c *images.Config) {
				if tt.edit != nil {
					tt.edit(t, c)
				}
			})
			e.cdn.set(tt.respond)
			start := time.Now()
			img, err := e.svc.Get(context.Background(), 3)
			if !errors.Is(err, images.ErrUnavailable) || errors.Is(err, images.ErrNotFound) {
				t.Fatalf("Get = %v, %v; want ErrUnavailable", img, err)
			}
			if tt.within > 0 && time.Since(start) > tt.within {
				t.Errorf("Get took %v, want under %v", time.Since(start), tt.within)
			}
			if _, err := e.stored(t, 3); !errors.Is(err, images.ErrNotStored) {
				t.Errorf("a failed fetch left something in storage: %v", err)
			}
		})
	}
}

func TestMaxBytesIsInclusive(t *testing.T) {
	e := newEnv(t, func(c *images.Config) { c.MaxBytes = 1000 })
	e.cdn.set(func(w http.ResponseWriter, _ *http.Request, _ int) {
		w.Header().Set("Content-Type", "image/webp")
		w.Write(bytes.Repeat([]byte("x"), 1000))
	})
	if img := e.mustGet(t, 1); len(img.Body) != 1000 || img.ContentType != "image/webp" {
		t.Fatalf("Get = %d bytes of %s, want 1000 of image/webp", len(img.Body), img.ContentType)
	}
}

func TestStaleCopyWhenSourceFails(t *testing.T) {
	e := newEnv(t, nil)
	first := e.mustGet(t, 12)
	e.clock.Add(25 * time.Hour)
	e.cdn.set(serveStatus(http.StatusBadGateway))

	stale := e.mustGet(t, 12)
	if stale.ETag != first.ETag || !stale.FetchedAt.Equal(first.FetchedAt) {
		t.Fatalf("source down: Get = %+v, want the stale copy", stale)
	}
	e.checkFetches(t, 2)
	// The refresh is retried at most once per retry interval (jittered up
	// to twice that).
	e.clock.Add(images.DefaultRetryInterval - time.Millisecond)
	e.mustGet(t, 12)
	e.checkFetches(t, 2)
	e.clock.Add(images.DefaultRetryInterval + time.Millisecond)
	e.mustGet(t, 12)
	e.checkFetches(t, 3)

	e.cdn.set(func(w http.ResponseWriter, _ *http.Request, _ int) {
		w.Header().Set("Content-Type", "image/jpeg")
		w.Write([]byte("fresh again"))
	})
	e.clock.Add(time.Minute)
	if img := e.mustGet(t, 12); string(img.Body) != "fresh again" {
		t.Fatalf("source back: Get = %q, want the new image", img.Body)
	}
	e.checkFetches(t, 4)
}

// A stale copy is given after StaleWait when the source hangs; the refresh
// goes on and stores the new image when it comes.
func TestStaleCopyWhenSourceIsSlow(t *testing.T) {
	e := newEnv(t, func(c *images.Config) { c.StaleWait = 50 * time.Millisecond })
	first := e.mustGet(t, 21)
	e.clock.Add(25 * time.Hour)
	gate := make(chan struct{})
	e.cdn.set(serveAfter(gate, func(w http.ResponseWriter, _ *http.Request, _ int) {
		w.Header().Set("Content-Type", "image/jpeg")
		w.Write([]byte("late but new"))
	}))
	start := time.Now()
	img := e.mustGet(t, 21)
	if img.ETag != first.ETag {
		t.Fatalf("slow source: Get = %q, want the stale copy", img.Body)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("slow source: Get took %v, want about StaleWait", d)
	}
	close(gate)
	deadline := time.Now().Add(2 * time.Second)
	for {
		if stored, err := e.stored(t, 21); err == nil && string(stored.Body) == "late but new" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the refresh did not store the new image")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if img := e.mustGet(t, 21); string(img.Body) != "late but new" {
		t.Fatalf("after the refresh: Get = %q", img.Body)
	}
	e.checkFetches(t, 2)
}

func TestHostileProductIDs(t *testing.T) {
	e := newEnv(t, nil)
	for _, id := range []int{0, -1, -1001, math.MinInt} {
		img, err := e.svc.Get(context.Background(), id)
		if !errors.Is(err, images.ErrInvalidProduct) || !errors.Is(err, images.ErrNotFound) {
			t.Errorf("Get(%d) = %v, %v; want ErrInvalidProduct (an ErrNotFound)", id, img, err)
		}
		if _, err := images.ProductKey(id); !errors.Is(err, images.ErrInvalidProduct) {
			t.Errorf("ProductKey(%d): got %v, want ErrInvalidProduct", id, err)
		}
	}
	e.checkFetches(t, 0)
	if n := e.store.puts.Load(); n != 0 {
		t.Errorf("storage puts = %d, want 0", n)
	}
	if k, err := images.ProductKey(math.MaxInt); err != nil || k.String() != "tcgplayer/9223372036854775807" {
		t.Errorf("ProductKey(MaxInt) = %q, %v", k, err)
	}
}

func TestConcurrentFetchesAreCapped(t *testing.T) {
	e := newEnv(t, func(c *images.Config) { c.MaxConcurrentFetches = 2 })
	gate := make(chan struct{})
	e.cdn.set(serveAfter(gate, serveJPEG))
	var wg sync.WaitGroup
	for id := 1; id <= 8; id++ {
		wg.Go(func() {
			if _, err := e.svc.Get(context.Background(), id); err != nil {
				t.Errorf("Get(%d): %v", id, err)
			}
		})
	}
	for deadline := time.Now().Add(2 * time.Second); e.cdn.inFlight.Load() < 2 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond) // room for a third fetch, were the cap broken
	if n := e.cdn.inFlight.Load(); n != 2 {
		t.Errorf("fetches in flight while the CDN hangs = %d, want the cap of 2", n)
	}
	close(gate)
	wg.Wait()
	e.checkFetches(t, 8)
	if n := e.cdn.maxSeen.Load(); n > 2 {
		t.Errorf("at most %d fetches were in flight at once, want 2", n)
	}
}

func TestStorageFailureStillServes(t *testing.T) {
	e := newEnv(t, nil)
	e.store.failGet.Store(true)
	e.store.failPut.Store(true)
	if img := e.mustGet(t, 5); !bytes.Equal(img.Body, jpegOf(5)) {
		t.Fatalf("Get = %q", img.Body)
	}
	if _, err := e.svc.ProbeStorage(context.Background()); !errors.Is(err, errStorageDown) {
		t.Fatalf("ProbeStorage with storage down: got %v, want its error", err)
	}
	e.store.failGet.Store(false)
	e.store.failPut.Store(false)
	d, err := e.svc.ProbeStorage(context.Background())
	if err != nil || d <= 0 {
		t.Fatalf("ProbeStorage = %v, %v; want a positive response time", d, err)
	}
}

func TestNewValidatesConfig(t *testing.T) {
	for _, url := range []string{
		"https://cdn.example/product/1.jpg",
		"ftp://cdn.example/{productId}.jpg",
		"/product/{productId}.jpg",
		"http://[::1/{productId}",
	} {
		if _, err := images.New(images.Config{SourceURL: url}, &storage{}); err == nil {
			t.Errorf("New with source URL %q succeeded", url)
		}
	}
	if _, err := images.New(images.Config{}, nil); err == nil {
		t.Error("New without storage succeeded")
	}
	if _, err := images.New(images.Config{}, &storage{}); err != nil {
		t.Errorf("New with the default config: %v", err)
	}
}

// A 404 from the source does not take away an image that was stored.
func TestStaleCopyWhenSourceSaysNotFound(t *testing.T) {
	e := newEnv(t, nil)
	first := e.mustGet(t, 13)
	e.clock.Add(25 * time.Hour)
	e.cdn.set(serveStatus(http.StatusNotFound))
	if img := e.mustGet(t, 13); img.ETag != first.ETag {
		t.Fatalf("Get = %q, want the stale copy", img.Body)
	}
	e.checkFetches(t, 2)
}

// An object stored without an ETag (by an older version, or by hand) gets one.
func TestStoredWithoutETag(t *testing.T) {
	e := newEnv(t, nil)
	key, _ := images.ProductKey(8)
	body := []byte("\xff\xd8\xff stored by hand")
	if err := images.PutStored(context.Background(), e.store, key, &images.Image{Body: body, ContentType: "image/jpeg", FetchedAt: e.clock.Now()}); err != nil {
		t.Fatal(err)
	}
	if img := e.mustGet(t, 8); img.ETag != images.ETagOf(body) {
		t.Fatalf("ETag = %q, want %q", img.ETag, images.ETagOf(body))
	}
	e.checkFetches(t, 0)
}
