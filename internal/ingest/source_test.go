package ingest_test

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/ingest"
	"github.com/cardcat/cardcat/internal/testkit"
)

// upstreamServer serves the sample mirror under the live sources' URL
// layout: tcgcsv paths without .json, Cardmarket's productList/ and
// priceGuide/ files, with ETags. failFirst makes the first request of each
// path answer 503.
type upstreamServer struct {
	*httptest.Server
	mu         sync.Mutex
	requests   map[string]int
	notMod     int
	userAgents map[string]bool
}

func newUpstream(t *testing.T, failFirst bool) *upstreamServer {
	u := &upstreamServer{requests: map[string]int{}, userAgents: map[string]bool{}}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.mu.Lock()
		u.requests[r.URL.Path]++
		n := u.requests[r.URL.Path]
		u.userAgents[r.UserAgent()] = true
		u.mu.Unlock()
		if failFirst && n == 1 {
			http.Error(w, "try later", http.StatusServiceUnavailable)
			return
		}
		var file string
		switch p := r.URL.Path; {
		case strings.HasPrefix(p, "/tcgcsv/tcgplayer/"):
			file = strings.TrimPrefix(p, "/tcgcsv/") + ".json"
		case strings.HasPrefix(p, "/cm/productList/products_"), strings.HasPrefix(p, "/cm/priceGuide/price_guide_"):
			base := filepath.Base(p) // products_singles_13.json
			i := strings.LastIndex(base, "_")
			game := strings.TrimSuffix(base[i+1:], ".json")
			file = "cardmarket/" + game + "/" + base[:i] + ".json"
		default:
			http.NotFound(w, r)
			return
		}
		b, err := os.ReadFile(filepath.Join(sampleDir, filepath.FromSlash(file)))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		etag := `"` + file + `"`
		if r.Header.Get("If-None-Match") == etag {
			u.mu.Lock()
			u.notMod++
			u.mu.Unlock()
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("ETag", etag)
		w.Write(b)
	}))
	t.Cleanup(u.Close)
	return u
}

func liveSource(u *upstreamServer, cacheDir string) *ingest.HTTPSource {
	return &ingest.HTTPSource{
		TCGBaseURL:        u.URL + "/tcgcsv",
		CardmarketBaseURL: u.URL + "/cm",
		LocalDir:          sampleDir, // links/ and expansions.json have no live source
		UserAgent:         "cardcat/test",
		Backoff:           time.Millisecond,
		CacheDir:          cacheDir,
	}
}

// TestLiveSourceMatchesMirror ingests the sample through the live URL layout,
// with transient failures, and gets the catalogue the mirror gives.
func TestLiveSourceMatchesMirror(t *testing.T) {
	u := newUpstream(t, true)
	live, _, err := ingest.Build(context.Background(), liveSource(u, ""), game.Default(), now, ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	mirror, _ := sample(t)
	if diff := cmp.Diff(mirror, live); diff != "" {
		t.Errorf("live ingest differs from the mirror (-mirror +live):\n%s", diff)
	}
	if !u.userAgents["cardcat/test"] || len(u.userAgents) != 1 {
		t.Errorf("user agents %v", u.userAgents)
	}
	for p, n := range u.requests {
		if n > 2 {
			t.Errorf("%s fetched %d times", p, n)
		}
	}
}

// TestLiveSourceConditional: a second ingest asks with the ETags it kept and
// reads the unchanged files from its cache.
func TestLiveSourceConditional(t *testing.T) {
	u := newUpstream(t, false)
	cache := t.TempDir()
	src := liveSource(u, cache)
	first, _, err := ingest.Build(context.Background(), src, game.Default(), now, ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if u.notMod != 0 {
		t.Fatalf("first ingest got %d answers 304", u.notMod)
	}
	second, _, err := ingest.Build(context.Background(), src, game.Default(), now, ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if u.notMod == 0 {
		t.Error("second ingest sent no conditional request")
	}
	if diff := cmp.Diff(first, second); diff != "" {
		t.Errorf("cached ingest differs:\n%s", diff)
	}
}

func TestLiveSourceErrors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, "/missing"):
			http.NotFound(w, r)
		case strings.HasSuffix(r.URL.Path, "/forbidden"):
			http.Error(w, "no", http.StatusForbidden)
		default:
			http.Error(w, "down", http.StatusBadGateway)
		}
	}))
	defer srv.Close()
	src := &ingest.HTTPSource{TCGBaseURL: srv.URL, Backoff: time.Millisecond, Retries: 2}
	ctx := context.Background()
	if _, err := src.Open(ctx, "tcgplayer/missing.json"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("404: %v, want a missing file", err)
	}
	if _, err := src.Open(ctx, "tcgplayer/forbidden.json"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("403: %v, want a missing file", err)
	}
	_, err := src.Open(ctx, "tcgplayer/80/groups.json")
	var fe *ingest.FetchError
	if !errors.As(err, &fe) || fe.Attempts != 3 || !strings.Contains(err.Error(), "502") {
		t.Errorf("502: %v, want a FetchError of 3 attempts naming the status", err)
	}
	if _, err := src.Open(ctx, "cardmarket/1/expansions.json"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("expansions.json has no live source and no local dir: %v", err)
	}
	// A cancelled ingest stops retrying at once.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	slow := &ingest.HTTPSource{TCGBaseURL: srv.URL, Backoff: time.Hour, Retries: 5}
	if _, err := slow.Open(cctx, "tcgplayer/80/groups.json"); err == nil {
		t.Error("cancelled fetch succeeded")
	}
}

// TestLiveSourceUnreachable: without the network (a closed port), each
// retry is logged once, and the ingest's error is a FetchError that names
// the URL once.
func TestLiveSourceUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	ln.Close()
	var logs testkit.SyncBuffer
	src := &ingest.HTTPSource{TCGBaseURL: base, CardmarketBaseURL: base, Backoff: time.Millisecond, Retries: 2,
		Log: slog.New(slog.NewTextHandler(&logs, nil))}
	_, _, err = ingest.Build(context.Background(), src, game.Default(), now, ingest.Options{})
	var fe *ingest.FetchError
	if !errors.As(err, &fe) || fe.Attempts != 3 {
		t.Fatalf("Build: %v, want a FetchError of 3 attempts", err)
	}
	url := base + "/tcgplayer/"
	if msg := err.Error(); strings.Count(msg, base) != 1 || !strings.Contains(msg, url) || !strings.Contains(msg, "connection refused") {
		t.Errorf("error %q: want the URL once, then why", msg)
	}
	if n := strings.Count(logs.String(), "fetch failed, retrying"); n != 2 {
		t.Errorf("%d retry lines, want 2:\n%s", n, &logs)
	}
	if d := src.Describe("."); d != base+" and "+base {
		t.Errorf("Describe(.) = %q, want both base URLs", d)
	}
}

func TestLiveSourceURLs(t *testing.T) {
	s := &ingest.HTTPSource{}
	for name, want := range map[string]string{
		"tcgplayer/categories.json":              "https://tcgcsv.com/tcgplayer/categories",
		"tcgplayer/80/groups.json":               "https://tcgcsv.com/tcgplayer/80/groups",
		"tcgplayer/80/23401/products.json":       "https://tcgcsv.com/tcgplayer/80/23401/products",
		"tcgplayer/80/23401/prices.json":         "https://tcgcsv.com/tcgplayer/80/23401/prices",
		"cardmarket/13/products_singles.json":    "https://downloads.s3.cardmarket.com/productCatalog/productList/products_singles_13.json",
		"cardmarket/13/products_nonsingles.json": "https://downloads.s3.cardmarket.com/productCatalog/productList/products_nonsingles_13.json",
		"cardmarket/1/price_guide.json":          "https://downloads.s3.cardmarket.com/productCatalog/priceGuide/price_guide_1.json",
		"cardmarket/1/expansions.json":           "",
	} {
		if got := s.URL(name); got != want {
			t.Errorf("URL(%s) = %q, want %q", name, got, want)
		}
	}
}
