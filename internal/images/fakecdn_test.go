package images_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/blob"
	"github.com/cardcat/cardcat/internal/blob/blobtest"
	"github.com/cardcat/cardcat/internal/images"
)

// fakeCDN is a local stand-in for the TCGplayer CDN. It serves
// /product/{id}_in_1000x1000.jpg with respond, and counts the fetches.
type fakeCDN struct {
	*httptest.Server
	fetches  atomic.Int64
	inFlight atomic.Int64
	maxSeen  atomic.Int64

	mu      sync.Mutex
	respond func(w http.ResponseWriter, r *http.Request, productID int)
}

// newFakeCDN starts a fake CDN that answers every product with jpegOf(id).
func newFakeCDN(t *testing.T) *fakeCDN {
	t.Helper()
	cdn := &fakeCDN{respond: serveJPEG}
	cdn.Server = httptest.NewServer(http.HandlerFunc(cdn.serve))
	t.Cleanup(cdn.Close)
	return cdn
}

func (c *fakeCDN) serve(w http.ResponseWriter, r *http.Request) {
	c.fetches.Add(1)
	n := c.inFlight.Add(1)
	defer c.inFlight.Add(-1)
	for {
		m := c.maxSeen.Load()
		if n <= m || c.maxSeen.CompareAndSwap(m, n) {
			break
		}
	}
	name, ok := strings.CutPrefix(r.URL.Path, "/product/")
	idText, ok2 := strings.CutSuffix(name, "_in_1000x1000.jpg")
	id, err := strconv.Atoi(idText)
	if !ok || !ok2 || err != nil {
		http.Error(w, "bad path "+r.URL.Path, http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	respond := c.respond
	c.mu.Unlock()
	respond(w, r, id)
}

// set changes how the CDN answers from now on.
func (c *fakeCDN) set(respond func(w http.ResponseWriter, r *http.Request, productID int)) {
	c.mu.Lock()
	c.respond = respond
	c.mu.Unlock()
}

// template is the image URL template pointing at the fake.
func (c *fakeCDN) template() string {
	return c.URL + "/product/{productId}_in_1000x1000.jpg"
}

// jpegOf is the fake image of a product (only its first bytes are JPEG's).
func jpegOf(productID int) []byte {
	return []byte("\xff\xd8\xff\xe0 fake jpeg of product " + strconv.Itoa(productID))
}

func serveJPEG(w http.ResponseWriter, _ *http.Request, productID int) {
	w.Header().Set("Content-Type", "image/jpeg")
	w.Write(jpegOf(productID))
}

func serveStatus(code int) func(http.ResponseWriter, *http.Request, int) {
	return func(w http.ResponseWriter, _ *http.Request, _ int) {
		http.Error(w, http.StatusText(code), code)
	}
}

// serveAfter answers like next once gate is closed (or the request ends).
func serveAfter(gate <-chan struct{}, next func(http.ResponseWriter, *http.Request, int)) func(http.ResponseWriter, *http.Request, int) {
	return func(w http.ResponseWriter, r *http.Request, id int) {
		select {
		case <-gate:
			next(w, r, id)
		case <-r.Context().Done():
		}
	}
}

// clock is a settable clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock {
	return &clock{now: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)}
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// storage wraps a bucket so that tests can make it fail and count its puts.
type storage struct {
	blob.Bucket
	puts    atomic.Int64
	failGet atomic.Bool
	failPut atomic.Bool
}

var errStorageDown = errors.New("storage down")

func (s *storage) Get(ctx context.Context, name string, w io.Writer) (blob.Attrs, error) {
	if s.failGet.Load() {
		return blob.Attrs{}, errStorageDown
	}
	return s.Bucket.Get(ctx, name, w)
}

func (s *storage) Put(ctx context.Context, name string, r io.Reader, size int64, attrs blob.Attrs) error {
	s.puts.Add(1)
	if s.failPut.Load() {
		return errStorageDown
	}
	return s.Bucket.Put(ctx, name, r, size, attrs)
}

// env is one service under test with its fake CDN, disk storage and clock.
type env struct {
	cdn   *fakeCDN
	store *storage
	clock *clock
	svc   *images.Service
	cfg   images.Config
}

// newEnv builds a service on a fake CDN, with short timeouts; edit adjusts
// the config.
func newEnv(t *testing.T, edit func(*images.Config)) *env {
	t.Helper()
	e := &env{cdn: newFakeCDN(t), clock: newClock()}
	e.store = &storage{Bucket: blobtest.Disk(t)}
	e.cfg = images.Config{
		SourceURL:    e.cdn.template(),
		FetchTimeout: 5 * time.Second, // an upper bound only: no test waits it out
		StaleWait:    5 * time.Second,
	}
	if edit != nil {
		edit(&e.cfg)
	}
	e.svc = e.newService(t)
	return e
}

// newService builds another service on the same CDN, storage and clock, as a
// restarted server or a second replica would.
func (e *env) newService(t *testing.T) *images.Service {
	t.Helper()
	svc, err := images.New(e.cfg, e.store, images.WithClock(e.clock.Now))
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

func (e *env) mustGet(t *testing.T, productID int) *images.Image {
	t.Helper()
	img, err := e.svc.Get(context.Background(), productID)
	if err != nil {
		t.Fatalf("Get(%d): %v", productID, err)
	}
	return img
}

func (e *env) stored(t *testing.T, productID int) (*images.Image, error) {
	t.Helper()
	key, err := images.ProductKey(productID)
	if err != nil {
		t.Fatal(err)
	}
	return images.GetStored(context.Background(), e.store.Bucket, key)
}

func (e *env) checkFetches(t *testing.T, want int64) {
	t.Helper()
	if got := e.cdn.fetches.Load(); got != want {
		t.Fatalf("CDN fetches = %d, want %d", got, want)
	}
}
