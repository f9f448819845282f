package metrics

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"

	"github.com/cardcat/cardcat/internal/analytics"
	"github.com/cardcat/cardcat/internal/catalog/catalogtest"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/metrics/metricstest"
	"github.com/cardcat/cardcat/internal/serving"
)

// family returns the gathered family name of m's registry, failing the test
// when it is missing.
func family(t *testing.T, m *Metrics, name string) *dto.MetricFamily {
	t.Helper()
	fams, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if f.GetName() == name {
			return f
		}
	}
	t.Fatalf("no %s among the gathered metrics", name)
	return nil
}

// value is the value of the series of name whose labels are labels
// (name=value pairs), and whether there is one.
func value(t *testing.T, m *Metrics, name string, labels ...string) (float64, bool) {
	t.Helper()
	fams, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if f.GetName() == name {
			return metricstest.Value(f, labels...)
		}
	}
	return 0, false
}

func mustValue(t *testing.T, m *Metrics, want float64, name string, labels ...string) {
	t.Helper()
	got, ok := value(t, m, name, labels...)
	if !ok {
		t.Errorf("%s%v: no series", name, labels)
		return
	}
	if got != want {
		t.Errorf("%s%v = %v, want %v", name, labels, got, want)
	}
}

var testRoutes = []Route{{Template: "unmatched"}, {Template: "/{game}/sets", Game: "dbs"}, {Template: "/{game}/sets", Game: "mtg"}, {Template: "/health"}}

func TestHTTPRequests(t *testing.T) {
	t.Parallel()
	m := New(nil)
	h := m.HTTP(testRoutes)
	for range 3 {
		h.Request(1, "GET", 200, 2*time.Millisecond)
	}
	h.Request(2, "GET", 0, time.Millisecond) // nothing written: net/http's 200
	h.Request(0, "BREW", 405, time.Millisecond)
	h.Request(0, "GET", 599, time.Millisecond)  // not in the fast table
	h.Request(99, "GET", 200, time.Millisecond) // no such route: ignored
	h.Request(-1, "GET", 200, time.Millisecond)

	mustValue(t, m, 3, "cardcat_http_requests_total", "route", "/{game}/sets", "game", "dbs", "method", "GET", "status", "200")
	mustValue(t, m, 1, "cardcat_http_requests_total", "route", "/{game}/sets", "game", "mtg", "method", "GET", "status", "200")
	mustValue(t, m, 1, "cardcat_http_requests_total", "route", "unmatched", "game", "", "method", "other", "status", "405")
	mustValue(t, m, 1, "cardcat_http_requests_total", "route", "unmatched", "game", "", "method", "GET", "status", "599")
	// One histogram per template: both games' requests.
	mustValue(t, m, 4, "cardcat_http_request_duration_seconds", "route", "/{game}/sets")
	if n := len(family(t, m, "cardcat_http_requests_total").GetMetric()); n != 4 {
		t.Errorf("%d request series, want the 4 answered", n)
	}
	if _, ok := value(t, m, "cardcat_http_requests_total", "route", "/health"); ok {
		t.Error("a series for a route never requested")
	}

	// A second server with the same routes shares the series.
	m.HTTP(testRoutes).Request(1, "GET", 200, time.Millisecond)
	mustValue(t, m, 4, "cardcat_http_requests_total", "route", "/{game}/sets", "game", "dbs", "method", "GET", "status", "200")
}

// TestHTTPRequestAllocs: once a series exists, recording a request does
// not allocate.
func TestHTTPRequestAllocs(t *testing.T) {
	h := New(nil).HTTP(testRoutes)
	h.Request(1, "GET", 200, time.Millisecond)
	h.RateLimit(true, Refused)
	if n := testing.AllocsPerRun(1000, func() {
		h.Request(1, "GET", 200, time.Millisecond)
		h.RateLimit(false, Admitted)
	}); n != 0 {
		t.Errorf("%v allocations per request", n)
	}
}

func TestNilMetrics(t *testing.T) {
	t.Parallel()
	var m *Metrics
	h := m.HTTP(testRoutes)
	h.Request(1, "GET", 200, time.Millisecond)
	h.RateLimit(true, Refused)
	m.Image(ImageFetched)
	m.RecordIngest(IngestRun{Outcome: IngestFailed})
	m.RedisRoundTrip(time.Millisecond)
	m.RedisFallback(func() bool { return true })
	m.Catalogue(nil, nil)
}

func TestRateLimitDecisions(t *testing.T) {
	t.Parallel()
	m := New(nil)
	h := m.HTTP(testRoutes)
	h.RateLimit(false, Admitted)
	h.RateLimit(false, Admitted)
	h.RateLimit(true, Refused)
	h.RateLimit(true, Unchecked)
	h.RateLimit(true, Decision(7)) // not a decision: ignored
	mustValue(t, m, 2, "cardcat_ratelimit_decisions_total", "bucket", "account", "decision", "admitted")
	mustValue(t, m, 0, "cardcat_ratelimit_decisions_total", "bucket", "account", "decision", "refused")
	mustValue(t, m, 1, "cardcat_ratelimit_decisions_total", "bucket", "guard", "decision", "refused")
	mustValue(t, m, 1, "cardcat_ratelimit_decisions_total", "bucket", "guard", "decision", "unchecked")
}

func TestImages(t *testing.T) {
	t.Parallel()
	m := New(nil)
	m.Image(ImageStored)
	m.Image(ImageStored)
	m.Image(ImageStale)
	m.Image(ImageOutcome(-1))
	mustValue(t, m, 2, "cardcat_image_requests_total", "outcome", "stored")
	mustValue(t, m, 1, "cardcat_image_requests_total", "outcome", "stale")
	mustValue(t, m, 0, "cardcat_image_requests_total", "outcome", "failed")
}

func TestRedis(t *testing.T) {
	t.Parallel()
	m := New(nil)
	m.RedisRoundTrip(time.Millisecond) // before RedisFallback: kept, not exposed
	if _, ok := value(t, m, "cardcat_ratelimit_redis_round_trip_seconds"); ok {
		t.Error("the Redis histogram is exposed without a Redis limiter")
	}
	local := false
	m.RedisFallback(func() bool { return local })
	m.RedisRoundTrip(3 * time.Millisecond)
	mustValue(t, m, 2, "cardcat_ratelimit_redis_round_trip_seconds")
	mustValue(t, m, 0, "cardcat_ratelimit_redis_fallback")
	local = true
	mustValue(t, m, 1, "cardcat_ratelimit_redis_fallback")
}

// TestRecordIngest: the hook of the scheduled ingest. Outcomes are bounded,
// a failed run keeps the last counts and success time.
func TestRecordIngest(t *testing.T) {
	t.Parallel()
	m := New(nil)
	at := time.Date(2026, 11, 25, 3, 0, 0, 0, time.UTC)
	m.RecordIngest(IngestRun{Outcome: IngestSucceeded, At: at, Duration: 90 * time.Second, Version: 7,
		Games: []IngestGame{{Game: "dbs", Sets: 3, Cards: 120, Linked: 100, PricesChanged: 9, CardsChanged: 4, CardsRemoved: 1}}})
	mustValue(t, m, 1, "cardcat_ingest_runs_total", "outcome", "succeeded")
	mustValue(t, m, 1, "cardcat_ingest_last_outcome", "outcome", "succeeded")
	mustValue(t, m, float64(at.Unix()), "cardcat_ingest_last_run_timestamp_seconds")
	mustValue(t, m, float64(at.Unix()), "cardcat_ingest_last_success_timestamp_seconds")
	mustValue(t, m, 90, "cardcat_ingest_last_duration_seconds")
	mustValue(t, m, 7, "cardcat_ingest_last_version")
	mustValue(t, m, 120, "cardcat_ingest_last_count", "game", "dbs", "what", "cards")
	mustValue(t, m, 1, "cardcat_ingest_last_count", "game", "dbs", "what", "cards_removed")

	later := at.Add(24 * time.Hour)
	m.RecordIngest(IngestRun{Outcome: IngestFailed, At: later, Duration: time.Minute,
		Games: []IngestGame{{Game: "dbs", Cards: 1}}})
	mustValue(t, m, 1, "cardcat_ingest_runs_total", "outcome", "failed")
	mustValue(t, m, 0, "cardcat_ingest_last_outcome", "outcome", "succeeded")
	mustValue(t, m, 1, "cardcat_ingest_last_outcome", "outcome", "failed")
	mustValue(t, m, float64(later.Unix()), "cardcat_ingest_last_run_timestamp_seconds")
	mustValue(t, m, float64(at.Unix()), "cardcat_ingest_last_success_timestamp_seconds")
	mustValue(t, m, 7, "cardcat_ingest_last_version")
	mustValue(t, m, 120, "cardcat_ingest_last_count", "game", "dbs", "what", "cards")

	m.RecordIngest(IngestRun{Outcome: "exploded", At: later})
	mustValue(t, m, 1, "cardcat_ingest_runs_total", "outcome", "other")
	if n := len(family(t, m, "cardcat_ingest_last_outcome").GetMetric()); n != len(ingestOutcomes) {
		t.Errorf("%d outcome series, want %d", n, len(ingestOutcomes))
	}
}

// TestCatalogue: read at scrape time; the age from the clock at that time.
func TestCatalogue(t *testing.T) {
	t.Parallel()
	c := catalogtest.Fixture(t)
	v, err := serving.Build(c, game.Default(), analytics.Options{})
	if err != nil {
		t.Fatal(err)
	}
	now := v.CreatedAt.Add(time.Hour)
	m := New(func() time.Time { return now })
	var view *serving.View
	swap := serving.Swap{}
	m.Catalogue(func() *serving.View { return view }, func() serving.Swap { return swap })
	if _, ok := value(t, m, "cardcat_catalogue_version"); ok {
		t.Error("a catalogue version before one is served")
	}
	view = v
	swap = serving.Swap{Version: v.Version, Load: 1500 * time.Millisecond, Build: 250 * time.Millisecond}
	mustValue(t, m, float64(v.Version), "cardcat_catalogue_version")
	mustValue(t, m, 3600, "cardcat_catalogue_age_seconds")
	mustValue(t, m, 1.5, "cardcat_catalogue_load_seconds")
	mustValue(t, m, 0.25, "cardcat_catalogue_build_seconds")
	for _, g := range v.Games() {
		mustValue(t, m, float64(g.Len()), "cardcat_catalogue_cards", "game", g.Game().Code)
	}
	now = now.Add(36 * time.Hour)
	mustValue(t, m, 37*3600, "cardcat_catalogue_age_seconds")
	problems, err := testutil.CollectAndLint(&catalogueCollector{m: m, view: func() *serving.View { return v }, swap: func() serving.Swap { return swap }})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("lint: %s: %s", p.Metric, p.Text)
	}
}

// TestHandler: the text format, with the runtime and process collectors.
func TestHandler(t *testing.T) {
	t.Parallel()
	m := New(nil)
	m.HTTP(testRoutes).Request(1, "GET", 200, time.Millisecond)
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("%d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	for _, want := range []string{
		`cardcat_http_requests_total{game="dbs",method="GET",route="/{game}/sets",status="200"} 1`,
		"go_goroutines ", "process_resident_memory_bytes ", "go_gc_duration_seconds",
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("the scrape has no %q", want)
		}
	}
	problems, err := testutil.GatherAndLint(m.Registry())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("lint: %s: %s", p.Metric, p.Text)
	}
}

var _ prometheus.Collector = (*catalogueCollector)(nil)
