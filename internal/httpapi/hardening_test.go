package httpapi

import (
	"bytes"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/serving"
)

// Tests of the probe's findings on the request's edges (issue 16): keys in
// URLs kept out of the access log, Strict-Transport-Security, Cache-Control.
// OPTIONS * and the counts kept over a stop are tested on a real server, in
// cmd/cardcat (hardening_test.go).

// aKey is shaped like a live key; the API never reads one from a URL.
const aKey = "pk_live_AbCdEfGhIjKlMnOpQrStUvWxYz012345"

// TestAccessLogRedactsKeys: a key sent in the query string reaches neither
// access-log writer; the rest of the target does.
func TestAccessLogRedactsKeys(t *testing.T) {
	const target = "/dbs/sets?api_key=" + aKey + "&page=2"
	const want = "/dbs/sets?api_key=REDACTED&page=2"

	var entries []AccessEntry
	deps := testDeps(mustView(t, mustFixture(t)))
	deps.AccessLog = func(e AccessEntry) { entries = append(entries, e) }
	get(mustServer(t, Config{}, deps), target)
	if len(entries) != 1 || entries[0].Path != want {
		t.Errorf("Deps.AccessLog got %+v, want one entry with path %s", entries, want)
	}

	var logs bytes.Buffer
	deps = testDeps(mustView(t, mustFixture(t)))
	deps.Logger = slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == "path" && a.Value.String() != want {
			t.Errorf("the slog access line's path is %s, want %s", a.Value, want)
		}
		return a
	}}))
	get(mustServer(t, Config{}, deps), target)
	if !strings.Contains(logs.String(), `"msg":"request"`) || strings.Contains(logs.String(), aKey) {
		t.Errorf("no slog access line, or one that has the key:\n%s", logs.String())
	}
}

// TestStrictTransportSecurity: every answer of a server whose callers use
// https asks browsers to keep to https; none over http.
func TestStrictTransportSecurity(t *testing.T) {
	for _, publicURL := range []string{"https://api.cardcat.test", "HTTPS://api.cardcat.test", "http://localhost:8080"} {
		deps := testDeps(mustView(t, mustFixture(t)))
		deps.PublicURL = publicURL
		h := mustServer(t, Config{}, deps)
		want := ""
		if strings.HasPrefix(strings.ToLower(publicURL), "https:") {
			want = "max-age=31536000"
		}
		for _, tc := range []struct {
			method, target string
			headers        []string
		}{
			{"GET", "/", nil},
			{"GET", "/health", nil},
			{"GET", "/dbs/sets", nil},
			{"GET", "/dbs/sets", []string{"X-API-Key", ""}},
			{"GET", "/nope", nil},
			{"POST", "/dbs/sets", nil},
			{"OPTIONS", "/dbs/sets", []string{"Origin", "https://app.example", "Access-Control-Request-Method", "GET"}},
		} {
			w := do(h, tc.method, tc.target, tc.headers...)
			if got := w.Header().Get("Strict-Transport-Security"); got != want {
				t.Errorf("public URL %s, %s %s (%d): Strict-Transport-Security %q, want %q", publicURL, tc.method, tc.target, w.Code, got, want)
			}
		}
	}
}

// TestCacheControl: a keyed route's JSON answer is private and revalidated,
// every error is never stored, images stay public for 24 h, and public routes
// keep what they had.
func TestCacheControl(t *testing.T) {
	cdn := newFakeCDN(t)
	h := imageHandler(t, cdn)
	lim := newLimited(t, Config{})
	panicking := testDeps(nil)
	panicking.View = func() *serving.View { panic("boom") }
	image := "/dbs/images/" + catalog.TCGCardID("dbs", 535600)
	etag := get(h, image).Header().Get("ETag")

	const private, noStore = "private, no-cache", "no-store"
	for _, tc := range []struct {
		name    string
		h       http.Handler
		method  string
		target  string
		headers []string
		status  int
		want    string
	}{
		{"keyed 200", h, "GET", "/dbs/sets", nil, 200, private},
		{"keyed 200, card", h, "GET", "/dbs/cards/" + catalog.TCGCardID("dbs", 535600), nil, 200, private},
		{"keyed 200, search", h, "GET", "/dbs/search?q=goku", nil, 200, private},
		{"paid 200", lim.h, "GET", "/dbs/sets/trending", []string{"X-API-Key", keyB}, 200, private},
		{"image 200", h, "GET", image, nil, 200, "public, max-age=86400"},
		{"image 304", h, "GET", image, []string{"If-None-Match", etag}, 304, "public, max-age=86400"},
		{"image 404", h, "GET", "/dbs/images/" + catalog.TCGCardID("dbs", 541181), nil, 404, noStore},
		{"400", h, "GET", "/dbs/cards/nope", nil, 400, noStore},
		{"401", h, "GET", "/dbs/sets", []string{"X-API-Key", ""}, 401, noStore},
		{"403", lim.h, "GET", "/dbs/sets/trending", []string{"X-API-Key", keyA1}, 403, noStore},
		{"404 set", h, "GET", "/dbs/sets/nope", nil, 404, noStore},
		{"404 endpoint", h, "GET", "/nope", nil, 404, noStore},
		{"405", h, "POST", "/dbs/sets", nil, 405, noStore},
		{"405 OPTIONS", h, "OPTIONS", "/dbs/sets", nil, 405, noStore},
		{"500 panic", mustServer(t, Config{}, panicking), "GET", "/dbs/sets", nil, 500, noStore},
		{"503 loading", mustServer(t, Config{}, testDeps(nil)), "GET", "/dbs/sets", nil, 503, noStore},
		{"public /", h, "GET", "/", nil, 200, ""},
		{"public /games", h, "GET", "/games", nil, 200, ""},
		{"public /health", h, "GET", "/health", nil, 200, ""},
		{"public /openapi.json", h, "GET", "/openapi.json", nil, 200, "public, max-age=3600"},
		{"public / without a key", h, "GET", "/", []string{"X-API-Key", ""}, 200, ""},
		{"preflight", h, "OPTIONS", "/dbs/sets", []string{"Origin", "https://app.example", "Access-Control-Request-Method", "GET"}, 204, ""},
	} {
		w := do(tc.h, tc.method, tc.target, tc.headers...)
		if w.Code != tc.status {
			t.Errorf("%s: %s %s answered %d, want %d", tc.name, tc.method, tc.target, w.Code, tc.status)
		}
		if got := w.Header().Get("Cache-Control"); got != tc.want {
			t.Errorf("%s: %s %s (%d): Cache-Control %q, want %q", tc.name, tc.method, tc.target, w.Code, got, tc.want)
		}
	}

	// 429, once the pool of three requests an hour is used up.
	for range 3 {
		lim.get("/dbs/sets", keySmall)
	}
	if w := lim.get("/dbs/sets", keySmall); w.Code != 429 || w.Header().Get("Cache-Control") != noStore {
		t.Errorf("429: %d, Cache-Control %q", w.Code, w.Header().Get("Cache-Control"))
	}
}
