package alertsapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/alerts"
	"github.com/cardcat/cardcat/internal/alertsapi"
	"github.com/cardcat/cardcat/internal/analytics"
	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/catalog/catalogtest"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/httpapi"
	"github.com/cardcat/cardcat/internal/httpapi/openapitest"
	"github.com/cardcat/cardcat/internal/ratelimit"
	"github.com/cardcat/cardcat/internal/ratelimit/memory"
	"github.com/cardcat/cardcat/internal/serving"
	"github.com/cardcat/cardcat/internal/store/sqlite"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// The tests run GET /alerts through the whole API (httpapi's chain and
// admission, with this package's Handler as Deps.Alerts), as cardcat serve
// mounts it, and check every answer against the OpenAPI document.

var testNow = time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)

// The keys of the test accounts: ultraKey's account (ultraID) has the
// alerts of testAlerts, emptyKey's none.
const (
	ultraKey = "pk_test_ultra000000000000000000000000000"
	emptyKey = "pk_test_empty000000000000000000000000000"
	ultraID  = 7
	emptyID  = 8
)

// keys is an Authenticator of fixed keys, each a caller with its account's
// store id, as account.Directory's callers have.
type keys map[string]account.Caller

func (k keys) Authenticate(_ context.Context, key string) (account.Caller, error) {
	if c, ok := k[key]; ok {
		return c, nil
	}
	return account.Caller{}, account.ErrInvalidKey
}

func testKeys() keys {
	caller := func(id int64, plan account.Plan) account.Caller {
		s := strconv.FormatInt(id, 10)
		return account.Caller{AccountID: s, AccountRef: id, KeyID: "pk_test_" + s, Plan: plan, Pool: account.PoolName(id),
			Limits: plan.DefaultLimits()}
	}
	return keys{ultraKey: caller(ultraID, account.Ultra), emptyKey: caller(emptyID, account.Free)}
}

// testAlerts are one of each kind: evaluated and armed with a webhook,
// fired (to its webhook and by email), a move rule paused and never
// evaluated, a Cardmarket one that emails only.
func testAlerts() []alerts.Alert {
	created := time.Date(2026, 11, 20, 9, 30, 0, 123456000, time.UTC)
	return []alerts.Alert{
		{ID: 11, AccountID: ultraID, Game: "dbs", CardID: "dbs_3ef29751ae2b88a4", Source: alerts.TCG, Finish: "Normal",
			Rule: alerts.Rule{Kind: alerts.Above, Cents: 1250}, WebhookID: 3, CreatedAt: created,
			Armed: true, LastVersion: 41, LastPrice: catalog.Cents(1099)},
		{ID: 12, AccountID: ultraID, Game: "pkm", CardID: "pkm_7dfccec2b4149d0f", Source: alerts.TCG, Finish: "Holofoil",
			Rule: alerts.Rule{Kind: alerts.Below, Cents: 4000}, WebhookID: 3, Email: true, CreatedAt: created.Add(time.Hour),
			Armed: false, LastVersion: 42, LastPrice: catalog.Cents(3875)},
		{ID: 15, AccountID: ultraID, Game: "dbs", CardID: "dbs_3ef29751ae2b88a4", Source: alerts.CM, Finish: "foil",
			Rule: alerts.Rule{Kind: alerts.Move, Percent: 20}, Paused: true, CreatedAt: created.Add(2 * time.Hour), Armed: true},
		{ID: 16, AccountID: ultraID, Game: "mtg", CardID: "mtg_0000000000000001", Source: alerts.CM, Finish: "normal",
			Rule: alerts.Rule{Kind: alerts.Below, Cents: 5}, Email: true, CreatedAt: created.Add(3 * time.Hour),
			Armed: true, LastVersion: 42},
	}
}

// fakeStore is the alerts of each account, or err.
type fakeStore struct {
	byAccount map[int64][]alerts.Alert
	err       error
	block     bool // wait for the context to end, then answer its error
}

func (f *fakeStore) Alerts(ctx context.Context, accountID int64) ([]alerts.Alert, error) {
	if f.block {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return f.byAccount[accountID], f.err
}

var (
	viewOnce sync.Once
	view     *serving.View
	viewErr  error
)

func testView(tb testing.TB) *serving.View {
	tb.Helper()
	viewOnce.Do(func() { view, viewErr = serving.Build(catalogtest.Fixture(tb), game.Default(), analytics.Options{}) })
	if viewErr != nil {
		tb.Fatal(viewErr)
	}
	return view
}

// newServer is the API with surface as Deps.Alerts (none when nil) and
// limiter (none when nil).
func newServer(tb testing.TB, surface httpapi.KeyedSurface, limiter ratelimit.Limiter) http.Handler {
	tb.Helper()
	v := testView(tb)
	s, err := httpapi.New(httpapi.Config{}, httpapi.Deps{
		View: func() *serving.View { return v }, Games: game.Default(), Now: func() time.Time { return testNow },
		Version: "v1.2.3-test", Region: "test-1", PublicURL: "https://api.cardcat.test",
		Auth: testKeys(), Alerts: surface, Limiter: limiter,
	})
	if err != nil {
		tb.Fatal(err)
	}
	return s.Handler()
}

func handlerOf(st alertsapi.Lister) httpapi.KeyedSurface { return &alertsapi.Handler{Store: st} }

var (
	checkerOnce sync.Once
	checker     *openapitest.Checker
	checkerErr  error
)

// check checks an answer against the document the server serves.
func check(t *testing.T, h http.Handler, r *http.Request, w *httptest.ResponseRecorder) {
	t.Helper()
	checkerOnce.Do(func() {
		doc := get(h, "/openapi.json", "")
		checker, checkerErr = openapitest.New(doc.Body.Bytes(), openapitest.AllowNoLimiter())
	})
	if checkerErr != nil {
		t.Fatal(checkerErr)
	}
	if err := checker.Check(r, w.Code, w.Header(), w.Body.Bytes()); err != nil {
		t.Error(err)
	}
}

func request(target, key string, headers ...string) *http.Request {
	r := httptest.NewRequest(http.MethodGet, target, nil)
	if key != "" {
		r.Header.Set("X-API-Key", key)
	}
	r.Header.Set("X-Request-Id", "test-request")
	for i := 0; i+1 < len(headers); i += 2 {
		r.Header.Set(headers[i], headers[i+1])
	}
	return r
}

func get(h http.Handler, target, key string, headers ...string) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, request(target, key, headers...))
	return w
}

// goldenHeaders are the headers a golden file records (as httpapi's).
var goldenHeaders = []string{"Content-Type", "Cache-Control", "ETag", "Retry-After", "WWW-Authenticate",
	"X-RateLimit-Limit-Hour", "X-RateLimit-Remaining-Hour", "X-RateLimit-Limit-Day", "X-RateLimit-Remaining-Day"}

// checkGolden compares an answer with testdata/golden/{name}.json, in the
// form of httpapi's golden files (status, headers, body), which
// internal/httpapi's TestOpenAPIExamples reads alerts_list.json of.
func checkGolden(t *testing.T, name string, w *httptest.ResponseRecorder) {
	t.Helper()
	hdr := map[string]string{}
	for _, k := range goldenHeaders {
		if v := w.Header().Get(k); v != "" {
			hdr[k] = v
		}
	}
	hb, _ := json.Marshal(hdr)
	var out bytes.Buffer
	out.WriteString(`{"status":` + strconv.Itoa(w.Code) + `,"headers":`)
	out.Write(hb)
	out.WriteString(`,"body":`)
	out.Write(w.Body.Bytes())
	out.WriteString("}")
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, out.Bytes(), "", "  "); err != nil {
		t.Fatalf("%s: %v\n%s", name, err, w.Body)
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
		t.Fatalf("%v (run go test ./internal/alertsapi -update)", err)
	}
	if diff := cmp.Diff(string(want), pretty.String()); diff != "" {
		t.Errorf("%s differs from %s (-want +got):\n%s", name, path, diff)
	}
}

func TestAlertsGolden(t *testing.T) {
	st := &fakeStore{byAccount: map[int64][]alerts.Alert{ultraID: testAlerts()}}
	h := newServer(t, handlerOf(st), nil)
	failing := newServer(t, handlerOf(&fakeStore{err: errors.New("connection refused")}), nil)
	unconfigured := newServer(t, nil, nil)
	for _, tc := range []struct {
		name   string
		h      http.Handler
		target string
		key    string
		status int
	}{
		{"alerts_list", h, "/alerts", ultraKey, 200},
		{"alerts_page_2", h, "/alerts?limit=3&page=2", ultraKey, 200},
		{"alerts_page_past_end", h, "/alerts?page=3&limit=2", ultraKey, 200},
		{"alerts_limit_clamped", h, "/alerts?limit=5000&page=99999999999999999999999", ultraKey, 200},
		{"alerts_none", h, "/alerts", emptyKey, 200},
		{"alerts_invalid_limit", h, "/alerts?limit=0", ultraKey, 400},
		{"alerts_invalid_page", h, "/alerts?page=first", ultraKey, 400},
		{"alerts_key_missing", h, "/alerts", "", 401},
		{"alerts_unavailable", failing, "/alerts", ultraKey, 503},
		{"alerts_not_configured", unconfigured, "/alerts", ultraKey, 503},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := request(tc.target, tc.key)
			w := httptest.NewRecorder()
			tc.h.ServeHTTP(w, r)
			if w.Code != tc.status {
				t.Errorf("GET %s: %d, want %d: %s", tc.target, w.Code, tc.status, w.Body)
			}
			check(t, tc.h, r, w)
			checkGolden(t, tc.name, w)
		})
	}
}

// TestAlertsCounted: GET /alerts is counted like every keyed request (a
// 400 too), and the revalidation of an unchanged list is a 304, never
// counted; a changed list is a 200 again.
func TestAlertsCounted(t *testing.T) {
	lim := memory.New(memory.Options{})
	t.Cleanup(func() { lim.Close() })
	st := &fakeStore{byAccount: map[int64][]alerts.Alert{ultraID: testAlerts()}}
	h := newServer(t, handlerOf(st), lim)
	remaining := func(w *httptest.ResponseRecorder) int {
		n, err := strconv.Atoi(w.Header().Get("X-RateLimit-Remaining-Hour"))
		if err != nil {
			t.Fatalf("X-RateLimit-Remaining-Hour %q: %v", w.Header().Get("X-RateLimit-Remaining-Hour"), err)
		}
		return n
	}
	first := get(h, "/alerts", ultraKey)
	if first.Code != http.StatusOK || first.Header().Get("ETag") == "" || first.Header().Get("Cache-Control") != "private, no-cache" {
		t.Fatalf("GET /alerts: %d, ETag %q, Cache-Control %q", first.Code, first.Header().Get("ETag"), first.Header().Get("Cache-Control"))
	}
	n := remaining(first)
	if w := get(h, "/alerts?limit=0", ultraKey); w.Code != http.StatusBadRequest || remaining(w) != n-1 {
		t.Errorf("GET /alerts?limit=0: %d, remaining %d, want 400 and %d", w.Code, remaining(w), n-1)
	}
	r := request("/alerts", ultraKey, "If-None-Match", first.Header().Get("ETag"))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != http.StatusNotModified || remaining(w) != n-1 || w.Header().Get("Cache-Control") != "private, no-cache" {
		t.Errorf("revalidation: %d, remaining %d, Cache-Control %q; want 304, %d (not counted), private, no-cache",
			w.Code, remaining(w), w.Header().Get("Cache-Control"), n-1)
	}
	check(t, h, r, w)
	st.byAccount[ultraID][0].Paused = true
	if w := get(h, "/alerts", ultraKey, "If-None-Match", first.Header().Get("ETag")); w.Code != http.StatusOK || remaining(w) != n-2 {
		t.Errorf("revalidation of a changed list: %d, remaining %d; want 200, %d", w.Code, remaining(w), n-2)
	}
}

// TestAlertsPages: the pages of a Business account's 10,000 alerts, at the
// largest limit, hold every alert once, in order.
func TestAlertsPages(t *testing.T) {
	var many []alerts.Alert
	for i := range 10_000 {
		many = append(many, alerts.Alert{ID: int64(i + 1), AccountID: ultraID, Game: "dbs", CardID: "dbs_3ef29751ae2b88a4",
			Source: alerts.TCG, Finish: "Normal", Rule: alerts.Rule{Kind: alerts.Above, Cents: int64(i + 1)}, Armed: true, CreatedAt: testNow})
	}
	h := newServer(t, handlerOf(&fakeStore{byAccount: map[int64][]alerts.Alert{ultraID: many}}), nil)
	next := int64(1)
	for page := 1; ; page++ {
		w := get(h, "/alerts?limit=1000&page="+strconv.Itoa(page), ultraKey)
		var b struct {
			Alerts     []struct{ ID int64 }
			Pagination struct {
				Page, Limit, Total int
				TotalPages         int `json:"total_pages"`
			}
		}
		if err := json.Unmarshal(w.Body.Bytes(), &b); err != nil || w.Code != http.StatusOK {
			t.Fatalf("page %d: %d %v", page, w.Code, err)
		}
		for _, a := range b.Alerts {
			if a.ID != next {
				t.Fatalf("page %d: alert %d, want %d", page, a.ID, next)
			}
			next++
		}
		if b.Pagination.Total != 10_000 || b.Pagination.TotalPages != 10 {
			t.Fatalf("page %d: pagination %+v", page, b.Pagination)
		}
		if page == b.Pagination.TotalPages {
			break
		}
	}
	if next != 10_001 {
		t.Errorf("the pages held %d alerts, want 10,000", next-1)
	}
}

// TestAlertsTimeout: a store that does not answer is a 503 after the
// handler's Timeout, not a request held open.
func TestAlertsTimeout(t *testing.T) {
	h := newServer(t, &alertsapi.Handler{Store: &fakeStore{block: true}, Timeout: 50 * time.Millisecond}, nil)
	start := time.Now()
	w := get(h, "/alerts", ultraKey)
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") == "" {
		t.Errorf("GET /alerts on a store that does not answer: %d, Retry-After %q", w.Code, w.Header().Get("Retry-After"))
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("answered after %v", d)
	}
}

// TestAlertsStore: on the SQLite store, each account sees its own alerts,
// as the CLI and the portal create them, and no other's; email says which
// of them email their firings.
func TestAlertsStore(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "cardcat.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ids := map[string]int64{}
	for _, email := range []string{"a@example.com", "b@example.com"} {
		acc := &account.Account{Email: email, Plan: account.Ultra}
		if err := st.CreateAccount(ctx, acc); err != nil {
			t.Fatal(err)
		}
		ids[email] = acc.ID
	}
	for i, email := range []string{"a@example.com", "a@example.com", "b@example.com"} {
		a := &alerts.Alert{AccountID: ids[email], Game: "dbs", CardID: "dbs_3ef29751ae2b88a4", Source: alerts.TCG, Finish: "Normal",
			Rule: alerts.Rule{Kind: alerts.Above, Cents: int64(100 * (i + 1))}, Email: i == 1}
		if err := st.CreateAlert(ctx, a, 10); err != nil {
			t.Fatal(err)
		}
	}
	auth := keys{}
	for email, id := range ids {
		key := "pk_test_" + strings.Repeat(email[:1], 32)
		auth[key] = account.Caller{AccountID: strconv.FormatInt(id, 10), AccountRef: id, Plan: account.Ultra,
			Pool: account.PoolName(id), Limits: account.Ultra.DefaultLimits()}
	}
	s, err := httpapi.New(httpapi.Config{}, httpapi.Deps{View: func() *serving.View { return testView(t) }, Games: game.Default(),
		Auth: auth, Alerts: handlerOf(st)})
	if err != nil {
		t.Fatal(err)
	}
	type alert struct {
		Threshold float64
		Email     bool
	}
	for key, want := range map[string][]alert{
		"pk_test_" + strings.Repeat("a", 32): {{1, false}, {2, true}},
		"pk_test_" + strings.Repeat("b", 32): {{3, false}},
	} {
		w := get(s.Handler(), "/alerts", key)
		var b struct {
			Alerts []struct {
				Threshold float64
				Email     *bool
				Created   time.Time
			}
		}
		if err := json.Unmarshal(w.Body.Bytes(), &b); err != nil || w.Code != http.StatusOK {
			t.Fatalf("%s: %d %v %s", key[:9], w.Code, err, w.Body)
		}
		var got []alert
		for _, a := range b.Alerts {
			if a.Created.IsZero() || a.Email == nil {
				t.Fatalf("alert without its creation time or email: %s", w.Body)
			}
			got = append(got, alert{a.Threshold, *a.Email})
		}
		if !cmp.Equal(got, want) {
			t.Errorf("%s...: alerts (threshold, email) %v, want %v", key[:9], got, want)
		}
	}
}
