package httpapi

import (
	"bytes"
	"encoding/json"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cardcat/cardcat/internal/account/accounttest"
	"github.com/cardcat/cardcat/internal/analytics"
	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/catalog/catalogtest"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/serving"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// testKey is a well-formed key; accounttest.KeyFormat accepts it.
const testKey = "pk_test_abcdefghijklmnopqrstuvwxyz012345"

var testNow = time.Date(2026, 2, 1, 12, 0, 0, 0, time.UTC)

// mustFixture is the catalog package's test catalogue, a fresh copy.
func mustFixture(tb testing.TB) *catalog.Catalog { return catalogtest.Fixture(tb) }

// mustView builds what the server serves of c: its snapshot and paid answers.
func mustView(tb testing.TB, c *catalog.Catalog) *serving.View {
	tb.Helper()
	v, err := serving.Build(c, game.Default(), analytics.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return v
}

// testDeps are the dependencies of a test server on the version v.
func testDeps(v *serving.View) Deps {
	return Deps{
		View:      func() *serving.View { return v },
		Games:     game.Default(),
		Now:       func() time.Time { return testNow },
		Version:   "v1.2.3-test",
		Region:    "test-1",
		PublicURL: "https://api.cardcat.test",
		Auth:      accounttest.KeyFormat{},
	}
}

func mustServer(tb testing.TB, cfg Config, deps Deps) http.Handler {
	tb.Helper()
	s, err := New(cfg, deps)
	if err != nil {
		tb.Fatal(err)
	}
	return s.Handler()
}

// fixtureHandler is the API on the fixture catalogue.
func fixtureHandler(tb testing.TB) http.Handler {
	tb.Helper()
	return mustServer(tb, Config{}, testDeps(mustView(tb, mustFixture(tb))))
}

// do sends a request; headers are name, value pairs. Unless given, the
// request carries testKey and a fixed X-Request-Id.
//
// The request is remembered with its answer, so that checkGolden can check
// the answer against the OpenAPI document's operation of its target.
func do(h http.Handler, method, target string, headers ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, target, nil)
	r.Header.Set("X-API-Key", testKey)
	r.Header.Set("X-Request-Id", "test-request")
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i+1] == "" {
			r.Header.Del(headers[i])
			continue
		}
		r.Header.Set(headers[i], headers[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	requestOf.Store(w, r)
	return w
}

// requestOf maps an answer of do to its request.
var requestOf sync.Map // *httptest.ResponseRecorder → *http.Request

func get(h http.Handler, target string, headers ...string) *httptest.ResponseRecorder {
	return do(h, http.MethodGet, target, headers...)
}

// goldenHeaders are the headers a golden file records. The X-RateLimit-*
// headers appear only where the test server has a limiter (ratelimit_test.go).
var goldenHeaders = []string{"Content-Type", "X-Content-Type-Options", "Cache-Control", "ETag", "Allow", "Retry-After", "WWW-Authenticate",
	"Access-Control-Allow-Origin", "Access-Control-Allow-Methods", "Access-Control-Allow-Headers",
	"X-RateLimit-Limit-Hour", "X-RateLimit-Remaining-Hour", "X-RateLimit-Limit-Day", "X-RateLimit-Remaining-Day"}

// checkGolden compares an answer with testdata/golden/{name}.json: the
// status, the goldenHeaders present, and the body (indented, key order and
// escapes kept as sent).
//
// Before that, the answer is checked against the OpenAPI document: the
// operation of its request (status, headers, body), or the document's shared
// answers for a path or method no operation has (openapitest).
func checkGolden(t *testing.T, name string, w *httptest.ResponseRecorder) {
	t.Helper()
	if r, ok := requestOf.Load(w); ok {
		checkAnswer(t, r.(*http.Request), w)
	} else {
		t.Errorf("%s: the answer was not made by do, so its request is not known: it cannot be checked against the OpenAPI document", name)
	}
	var out bytes.Buffer
	hdr := map[string]string{}
	for _, k := range goldenHeaders {
		if v := w.Header().Get(k); v != "" {
			hdr[k] = v
		}
	}
	hb, _ := json.Marshal(hdr)
	body := w.Body.Bytes()
	if len(body) == 0 {
		body = []byte("null")
	}
	if !json.Valid(body) {
		t.Fatalf("%s: body is not JSON: %s", name, body)
	}
	out.WriteString(`{"status":` + itoa(w.Code) + `,"headers":`)
	out.Write(hb)
	out.WriteString(`,"body":`)
	out.Write(body)
	out.WriteString("}")
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, out.Bytes(), "", "  "); err != nil {
		t.Fatal(err)
	}
	pretty.WriteByte('\n')

	path := filepath.Join("testdata", "golden", name+".json")
	if *update {
		if err := os.WriteFile(path, pretty.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/httpapi -update)", err)
	}
	if diff := cmp.Diff(string(want), pretty.String()); diff != "" {
		t.Errorf("%s differs from %s (-want +got):\n%s", name, path, diff)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// goldenCase is one request whose answer is kept in a golden file.
type goldenCase struct {
	name, target string
	status       int
	headers      []string
}

func runGolden(t *testing.T, h http.Handler, cases []goldenCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := get(h, tc.target, tc.headers...)
			if w.Code != tc.status {
				t.Errorf("GET %s: status %d, want %d; body %s", tc.target, w.Code, tc.status, w.Body)
			}
			checkGolden(t, tc.name, w)
		})
	}
}

func TestNewRequiresDeps(t *testing.T) {
	if _, err := New(Config{}, Deps{}); err == nil {
		t.Error("New without Snapshot and Games must fail")
	}
}

// TestSnapshotReadOncePerRequest: a new catalogue version may be swapped in
// at any time; one answer must come from one snapshot.
func TestSnapshotReadOncePerRequest(t *testing.T) {
	snap := mustView(t, mustFixture(t))
	var calls atomic.Int64
	deps := testDeps(snap)
	deps.View = func() *serving.View { calls.Add(1); return snap }
	h := mustServer(t, Config{}, deps)
	for _, target := range []string{
		"/dbs/sets", "/dbs/sets/FB01", "/dbs/sets/fb03_ar", "/dbs/sets/nope",
		"/dbs/cards/" + catalog.TCGCardID("dbs", 535600), "/dbs/cards/" + catalog.TCGCardID("mtg", 541300),
		"/dbs/cards/" + catalog.CMCardID("mtg", 1, 780002), "/dbs/search?q=goku", "/health",
	} {
		calls.Store(0)
		w := get(h, target)
		if n := calls.Load(); n != 1 {
			t.Errorf("GET %s (%d) read the snapshot %d times, want 1", target, w.Code, n)
		}
	}
}

func TestNoSnapshotYet(t *testing.T) {
	deps := testDeps(nil)
	h := mustServer(t, Config{}, deps)
	runGolden(t, h, []goldenCase{
		{"errors_no_catalogue_yet", "/dbs/sets", 503, nil},
		{"public_health_no_catalogue_yet", "/health", 503, nil},
	})
}
