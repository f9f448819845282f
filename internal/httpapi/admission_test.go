package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/etag"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/serving"
	"github.com/cardcat/cardcat/internal/store/sqlite"
)

// keyedTargets are a 200 of every keyed JSON route of the fixture (keyB is
// Ultra: the paid routes answer it).
var keyedTargets = []string{
	"/dbs/sets",
	"/dbs/sets/FB01",
	"/dbs/sets/fb03_ar", // a shared code: the disambiguation
	cardPath,
	"/mtg/search?q=bat",
	"/dbs/prices/FB01",
	"/dbs/sets/FB01/statistics",
	"/dbs/sets/FB01/completion-value",
	"/dbs/sets/trending",
	"/dbs/analytics/top-cards",
}

var etagShape = regexp.MustCompile(`^"[0-9a-f]{16}"$`)

// TestETagOnEveryKeyedAnswer: every keyed route's 200 carries the strong tag
// of its bytes (a card's: from its BodyHash; a set page's: the snapshot's
// SetPageTag) and Cache-Control:
// private; sent back, it gets a 304 without a
// body, which is not counted; a tag of another answer gets the 200 again.
func TestETagOnEveryKeyedAnswer(t *testing.T) {
	for _, target := range keyedTargets {
		t.Run(target, func(t *testing.T) {
			l := newLimited(t, Config{KeyedMaxAge: 30 * time.Second})
			w := l.get(target, keyB)
			if w.Code != http.StatusOK {
				t.Fatalf("%d: %s", w.Code, w.Body)
			}
			tag, want := w.Header().Get("ETag"), etag.Of(w.Body.Bytes())
			switch target {
			case "/dbs/sets/FB01":
				g := l.view.Game("dbs")
				want = g.SetPageTag(g.SetsByCode("FB01")[0], 1, setPageDefault)
			case cardPath:
				want = bodyTag(w.Body.String())
			}
			if !etagShape.MatchString(tag) || tag != want {
				t.Fatalf("ETag %q, want %s", tag, want)
			}
			if cc := w.Header().Get("Cache-Control"); cc != "private, max-age=30" {
				t.Errorf("Cache-Control %q", cc)
			}
			for _, inm := range []string{tag, "W/" + tag, `"0000000000000000", ` + tag, "*"} {
				w := l.req(http.MethodGet, target, "X-API-Key", keyB, "If-None-Match", inm)
				if w.Code != http.StatusNotModified {
					t.Fatalf("If-None-Match %s: %d, want 304", inm, w.Code)
				}
				h := w.Header()
				if w.Body.Len() != 0 || h.Get("Content-Type") != "" || h.Get("Content-Length") != "" {
					t.Errorf("If-None-Match %s: the 304 has a body (%d bytes, %q, %q)", inm, w.Body.Len(), h.Get("Content-Type"), h.Get("Content-Length"))
				}
				if h.Get("ETag") != tag || h.Get("Cache-Control") != "private, max-age=30" ||
					h.Get("X-Request-Id") == "" || h.Get("Access-Control-Allow-Origin") != "*" {
					t.Errorf("If-None-Match %s: headers %v", inm, h)
				}
				if got := limitHeaders(w); got != hdr(7000, 6999, 70000, 69999) {
					t.Errorf("If-None-Match %s: X-RateLimit-* %v, want the pool after the one 200", inm, got)
				}
			}
			w = l.req(http.MethodGet, target, "X-API-Key", keyB, "If-None-Match", `"0000000000000000"`)
			if w.Code != http.StatusOK || w.Header().Get("ETag") != tag {
				t.Errorf("another tag: %d, ETag %q; want 200 with %s", w.Code, w.Header().Get("ETag"), tag)
			}
			if h, d := l.usedBy(t, "acct:2"); h != 2 || d != 2 {
				t.Errorf("pool used %d/%d, want 2 (the two 200s; 304s are not counted)", h, d)
			}
		})
	}
}

// TestRevalidationGolden: a 200 with its ETag and the 304 of that tag, with
// the pool's headers.
func TestRevalidationGolden(t *testing.T) {
	l := newLimited(t, Config{KeyedMaxAge: 30 * time.Second})
	w := l.get(cardPath, keyA1)
	checkGolden(t, "revalidate_card_200", w)
	w = l.req(http.MethodGet, cardPath, "X-API-Key", keyA1, "If-None-Match", w.Header().Get("ETag"))
	checkGolden(t, "revalidate_card_304", w)
}

// TestRevalidationAtThePoolEdge: with the pool used up, a matching
// If-None-Match is still answered 304, counts nothing and shows the exhausted
// pool; any other answer is the 429, which drops the answer's own headers.
func TestRevalidationAtThePoolEdge(t *testing.T) {
	usage := &usageLog{}
	l := newLimited(t, Config{}, func(d *Deps) { d.Usage = usage })
	w := l.get("/dbs/sets/FB01", keySmall) // 3 an hour, 5 a day
	tag := w.Header().Get("ETag")
	for range 2 {
		l.get("/dbs/sets", keySmall)
	}
	if w := l.get("/dbs/sets/FB01", keySmall); w.Code != http.StatusTooManyRequests {
		t.Fatalf("fourth request: %d, want 429", w.Code)
	}
	recorded := len(usage.get())

	tests := []struct {
		name, target, inm string
		status            int
	}{
		{"matching tag", "/dbs/sets/FB01", tag, http.StatusNotModified},
		{"star", "/dbs/sets/FB01", "*", http.StatusNotModified},
		{"other tag", "/dbs/sets/FB01", `"0000000000000000"`, http.StatusTooManyRequests},
		{"the tag of another answer", "/dbs/sets/FB01?page=2&limit=1", tag, http.StatusTooManyRequests},
		{"an error answer", "/dbs/sets/nope", "*", http.StatusTooManyRequests},
		{"a parameter error", "/dbs/sets/FB01?page=0", tag, http.StatusTooManyRequests},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := l.req(http.MethodGet, tt.target, "X-API-Key", keySmall, "If-None-Match", tt.inm)
			if w.Code != tt.status {
				t.Fatalf("%d, want %d: %s", w.Code, tt.status, w.Body)
			}
			if got := limitHeaders(w); got != hdr(3, 0, 5, 2) {
				t.Errorf("X-RateLimit-* %v, want the exhausted pool", got)
			}
			h := w.Header()
			if tt.status == http.StatusTooManyRequests {
				if h.Get("ETag") != "" || h.Get("Cache-Control") != noStore[0] || h.Get("Retry-After") == "" || h.Get("X-Request-Id") == "" {
					t.Errorf("the 429's headers: %v", h)
				}
				r, _ := requestOf.Load(w)
				checkAnswer(t, r.(*http.Request), w)
			}
		})
	}
	if h, d := l.usedBy(t, "acct:3"); h != 3 || d != 3 {
		t.Errorf("pool used %d/%d, want 3 (nothing counted at the edge)", h, d)
	}
	// Usage sees the 429s (refused), never the 304s.
	var refused, counted int
	for _, c := range usage.get()[recorded:] {
		if c.Refused {
			refused++
		} else {
			counted++
		}
	}
	if refused != 4 || counted != 0 {
		t.Errorf("usage recorded %d refused and %d counted, want the 4 429s only", refused, counted)
	}
	checkGolden(t, "revalidate_304_exhausted_pool", l.req(http.MethodGet, "/dbs/sets/FB01", "X-API-Key", keySmall, "If-None-Match", tag))
}

// TestRevalidationNeedsAKey: a matching If-None-Match without a valid key is
// the 401, counted in the client's guard bucket; a paid route without paid
// access is the 403, counted, never a 304.
func TestRevalidationNeedsAKey(t *testing.T) {
	l := newLimited(t, Config{})
	tag := l.get(cardPath, keyA1).Header().Get("ETag")
	for i, key := range []string{"", "pk_live_short", "pk_live_" + "x0000000000000000000000000000000"} {
		w := l.req(http.MethodGet, cardPath, "X-API-Key", key, "If-None-Match", tag)
		if w.Code != http.StatusUnauthorized || w.Header().Get("ETag") != "" {
			t.Errorf("key %q: %d, ETag %q; want 401 without one", key, w.Code, w.Header().Get("ETag"))
		}
		if h, _ := l.usedBy(t, "ip:192.0.2.1"); h != int64(i+1) {
			t.Errorf("key %q: guard bucket used %d, want %d", key, h, i+1)
		}
	}
	tag = l.get("/dbs/sets/trending", keyB).Header().Get("ETag")
	w := l.req(http.MethodGet, "/dbs/sets/trending", "X-API-Key", keyA1, "If-None-Match", tag)
	if w.Code != http.StatusForbidden || w.Header().Get("ETag") != "" {
		t.Errorf("paid route without paid access: %d, ETag %q; want 403 without one", w.Code, w.Header().Get("ETag"))
	}
	if h, _ := l.usedBy(t, "acct:1"); h != 2 {
		t.Errorf("account 1 used %d, want 2 (the card and the 403)", h)
	}
}

// TestImageRevalidationNotCounted: an image's 304 is not counted either, and
// keeps the image's public Cache-Control.
func TestImageRevalidationNotCounted(t *testing.T) {
	cdn := newFakeCDN(t)
	l := newLimited(t, Config{}, func(d *Deps) { d.Images = imageService(t, cdn) })
	target := "/dbs/images/" + catalog.TCGCardID("dbs", 535600)
	w := l.get(target, keyA1)
	if w.Code != http.StatusOK || w.Header().Get("ETag") == "" {
		t.Fatalf("image: %d, ETag %q", w.Code, w.Header().Get("ETag"))
	}
	for range 3 {
		w := l.req(http.MethodGet, target, "X-API-Key", keyA1, "If-None-Match", w.Header().Get("ETag"))
		if w.Code != http.StatusNotModified || w.Header().Get("Cache-Control") != "public, max-age=86400" {
			t.Fatalf("revalidation: %d, Cache-Control %q", w.Code, w.Header().Get("Cache-Control"))
		}
		if got := limitHeaders(w); got != hdr(100, 99, 1000, 999) {
			t.Errorf("X-RateLimit-* %v, want the pool after the one 200", got)
		}
	}
	if h, _ := l.usedBy(t, "acct:1"); h != 1 {
		t.Errorf("pool used %d, want 1", h)
	}
}

// TestETagSameOnEveryServer: two servers on the same catalogue, and two
// built from one store (two replicas, or one after a restart), give the same
// ETag for the same answer.
func TestETagSameOnEveryServer(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "cardcat.db")
	fromStore := func() *serving.View {
		st, err := sqlite.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		h := serving.NewHolder(st, game.Default(), slog.New(slog.DiscardHandler))
		if err := h.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
		return h.Current()
	}
	st, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.ReplaceCatalog(ctx, 0, mustFixture(t).Games, "{}", testNow); err != nil {
		t.Fatal(err)
	}
	st.Close()

	ultra := func(d Deps) Deps { d.Auth = ultraAuth{}; return d }
	servers := map[string]http.Handler{
		"memory 1": mustServer(t, Config{}, ultra(testDeps(mustView(t, mustFixture(t))))),
		"memory 2": mustServer(t, Config{}, ultra(testDeps(mustView(t, mustFixture(t))))),
		"store 1":  mustServer(t, Config{}, ultra(testDeps(fromStore()))),
		"store 2":  mustServer(t, Config{}, ultra(testDeps(fromStore()))),
	}
	for _, target := range keyedTargets {
		tags, bodies := map[string]string{}, map[string]string{}
		for name, h := range servers {
			w := get(h, target)
			if w.Code != http.StatusOK {
				t.Fatalf("%s %s: %d", name, target, w.Code)
			}
			tags[name], bodies[name] = w.Header().Get("ETag"), w.Body.String()
		}
		if tags["memory 1"] != tags["memory 2"] || tags["store 1"] != tags["store 2"] {
			t.Errorf("%s: tags differ between servers of one catalogue: %v", target, tags)
		}
		// From the store, the version also has the TCGplayer history that
		// trending's market_t reads: other bytes, so another tag.
		if same := bodies["memory 1"] == bodies["store 1"]; same != (tags["memory 1"] == tags["store 1"]) {
			t.Errorf("%s: same bytes %v, but tags %v", target, same, tags)
		}
	}
}

// TestMCPIgnoresIfNoneMatch: a tool call runs its route in process without
// the caller's If-None-Match: its answer is the body, never a 304.
func TestMCPIgnoresIfNoneMatch(t *testing.T) {
	m := newMCPServer(t)
	resp, body := m.rest(t, cardPath, keyA1)
	tag := resp.Header.Get("ETag")
	if tag == "" {
		t.Fatal("no ETag on the card")
	}
	mc := mcp.NewClient(&mcp.Implementation{Name: "cardcat-test", Version: "1"}, nil)
	client, err := mc.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: m.url + mcpPath,
		HTTPClient: &http.Client{Transport: headers{"X-API-Key": keyA1, "If-None-Match": tag}}, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	_, text := call(t, client, "get_card", map[string]any{"game": "dbs", "id": catalog.TCGCardID("dbs", 535600)})
	if !jsonEqual(t, []byte(text), []byte(body)) {
		t.Errorf("tool answer %.200s, want the card %.200s", text, body)
	}
}

// headers adds its headers to every request.
type headers map[string]string

func (hs headers) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range hs {
		r.Header.Set(k, v)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// TestRevalidationCountsWhatFails: a request with If-None-Match waits for
// its reply before it is counted; a handler that panics is still counted
// (a 500, like one counted up front), and a download refused at the pool's
// edge is the 429, its file given back, the pool unchanged.
func TestRevalidationCountsWhatFails(t *testing.T) {
	t.Run("a panic", func(t *testing.T) {
		l := newLimited(t, Config{}, func(d *Deps) { d.View = func() *serving.View { panic("handler bug") } })
		w := l.req(http.MethodGet, "/dbs/sets/FB01", "X-API-Key", keySmall, "If-None-Match", `"0000000000000000"`)
		if w.Code != http.StatusInternalServerError {
			t.Fatalf("%d, want 500", w.Code)
		}
		if h, _ := l.usedBy(t, "acct:3"); h != 1 {
			t.Errorf("pool used %d, want the panicking request counted once", h)
		}
	})
	t.Run("a download at the edge", func(t *testing.T) {
		l := newLimited(t, Config{}, func(d *Deps) { d.Bulk = mustBulk(t, d.View()) })
		w := l.get("/dbs/bulk/cards.jsonl.gz", keySmall)
		if w.Code != http.StatusOK || w.Header().Get("ETag") == "" {
			t.Fatalf("download: %d %v", w.Code, w.Header())
		}
		tag := w.Header().Get("ETag")
		for range 2 {
			l.get("/dbs/sets", keySmall)
		}
		if w := l.req(http.MethodGet, "/dbs/bulk/cards.jsonl.gz", "X-API-Key", keySmall, "If-None-Match", tag); w.Code != http.StatusNotModified {
			t.Errorf("its tag at the edge: %d, want 304", w.Code)
		}
		w = l.req(http.MethodGet, "/dbs/bulk/cards.jsonl.gz", "X-API-Key", keySmall, "If-None-Match", `"0000"`)
		if w.Code != http.StatusTooManyRequests || w.Header().Get("Content-Disposition") != "" || w.Header().Get("ETag") != "" {
			t.Errorf("another tag at the edge: %d %v, want the 429 without the file's headers", w.Code, w.Header())
		}
		if h, _ := l.usedBy(t, "acct:3"); h != 3 {
			t.Errorf("pool used %d, want 3", h)
		}
	})
}
