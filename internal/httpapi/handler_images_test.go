package httpapi

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/blob/fileblob"
	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/images"
)

// fakeCDN serves a small JPEG for every product, or the status the test sets.
type fakeCDN struct {
	status  atomic.Int32 // 0 = 200
	fetches atomic.Int32
	srv     *httptest.Server
}

var jpeg = []byte("\xff\xd8\xff\xe0 fake jpeg body")

func newFakeCDN(t *testing.T) *fakeCDN {
	c := &fakeCDN{}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.fetches.Add(1)
		if st := c.status.Load(); st != 0 {
			w.WriteHeader(int(st))
			return
		}
		w.Header().Set("Content-Type", "image/jpeg")
		w.Write(jpeg)
	}))
	t.Cleanup(c.srv.Close)
	return c
}

// imageHandler is the fixture API with images from a fake CDN cached on disk.
func imageHandler(t *testing.T, cdn *fakeCDN) http.Handler {
	t.Helper()
	deps := testDeps(mustView(t, mustFixture(t)))
	deps.Images = imageService(t, cdn)
	return mustServer(t, Config{}, deps)
}

// imageService serves the images of a fake CDN, cached on disk.
func imageService(t *testing.T, cdn *fakeCDN) *images.Service {
	t.Helper()
	st, err := fileblob.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	svc, err := images.New(images.Config{
		SourceURL:    cdn.srv.URL + "/product/{productId}_in_1000x1000.jpg",
		FetchTimeout: 2 * time.Second,
		// Under a second, so that the 502's Retry-After is always 1 (the
		// remembered failure is jittered up to twice RetryInterval).
		RetryInterval: 100 * time.Millisecond,
	}, st, images.WithClock(func() time.Time { return testNow }))
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

func TestImage(t *testing.T) {
	cdn := newFakeCDN(t)
	h := imageHandler(t, cdn)
	goku := "/dbs/images/" + catalog.TCGCardID("dbs", 535600)

	w := get(h, goku)
	if w.Code != http.StatusOK || w.Body.String() != string(jpeg) {
		t.Fatalf("image: %d %q", w.Code, w.Body.String())
	}
	for k, want := range map[string]string{
		"Content-Type":                "image/jpeg",
		"Cache-Control":               "public, max-age=86400",
		"X-Image-Size":                "unsized",
		"Access-Control-Allow-Origin": "*",
	} {
		if got := w.Header().Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	etag := w.Header().Get("ETag")
	if etag == "" {
		t.Fatal("no ETag")
	}
	// Revalidation: 304, no body; and served from storage, not the CDN.
	w = get(h, goku, "If-None-Match", etag)
	if w.Code != http.StatusNotModified || w.Body.Len() != 0 {
		t.Errorf("If-None-Match: %d %q", w.Code, w.Body.String())
	}
	if n := cdn.fetches.Load(); n != 1 {
		t.Errorf("CDN fetched %d times, want 1", n)
	}
	// The size parameter of the base API is ignored.
	if w := get(h, goku+"?size=small"); w.Code != http.StatusOK {
		t.Errorf("?size=small: %d", w.Code)
	}
}

func TestImageErrors(t *testing.T) {
	cdn := newFakeCDN(t)
	h := imageHandler(t, cdn)
	tests := []struct {
		name, path string
		cdnStatus  int
		want       int
		golden     string
	}{
		{"Cardmarket-only card", "/dbs/images/" + catalog.CMCardID("dbs", 13, 700050), 0, 404, "image_cardmarket_only"},
		{"product without image", "/dbs/images/" + catalog.TCGCardID("dbs", 541181), 0, 404, "image_none"},
		{"unknown card", "/dbs/images/dbs_0000000000000000", 0, 404, ""},
		{"malformed id", "/dbs/images/not-an-id", 0, 400, ""},
		{"traversal: refused by the path check", "/dbs/images/..%2F..%2Fetc%2Fpasswd", 0, 404, ""},
		{"hostile characters", "/dbs/images/dbs_%3Cscript%3E%00", 0, 400, ""},
		{"other game's id", "/dbs/images/" + catalog.TCGCardID("mtg", 1), 0, 400, ""},
		{"source 404", "/dbs/images/" + catalog.TCGCardID("dbs", 535600), 404, 404, ""},
		{"source down", "/mtg/images/" + firstMTGImage(t), 500, 502, "image_unavailable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cdn.status.Store(int32(tt.cdnStatus))
			w := get(h, tt.path)
			if w.Code != tt.want {
				t.Fatalf("%s: %d %s, want %d", tt.path, w.Code, w.Body.String(), tt.want)
			}
			if !strings.HasPrefix(w.Header().Get("Content-Type"), "application/json") {
				t.Errorf("error answer is %q", w.Header().Get("Content-Type"))
			}
			if tt.golden != "" {
				checkGolden(t, tt.golden, w)
			}
		})
	}
}

// firstMTGImage is the id of a fixture Magic card that has an image.
func firstMTGImage(t *testing.T) string {
	t.Helper()
	for _, g := range mustFixture(t).Games {
		if g.Game != "mtg" {
			continue
		}
		for _, c := range g.Cards {
			if c.OnTCG() && c.ImageCount > 0 {
				return c.ID
			}
		}
	}
	t.Fatal("fixture has no Magic card with an image")
	return ""
}
