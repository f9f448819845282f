package main

import (
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/metrics/metricstest"
)

// scrape reads GET /metrics of the admin server at admin, parsed.
func scrape(t *testing.T, admin string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(admin + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		t.Fatalf("/metrics: %d %s", resp.StatusCode, body)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("/metrics is not the Prometheus text format: %v", err)
	}
	return fams
}

// metricValue is the value of the series of family name whose labels
// include labels (name, value pairs): a counter's or gauge's value, a
// histogram's count; ok false when there is none.
func metricValue(fams map[string]*dto.MetricFamily, name string, labels ...string) (v float64, ok bool) {
	return metricstest.Value(fams[name], labels...)
}

func wantMetric(t *testing.T, fams map[string]*dto.MetricFamily, want float64, name string, labels ...string) {
	t.Helper()
	v, ok := metricValue(fams, name, labels...)
	if !ok {
		t.Errorf("%s%v: no series", name, labels)
	} else if v != want {
		t.Errorf("%s%v = %v, want %v", name, labels, v, want)
	}
}

// TestServeMetrics: GET /metrics of the admin server after real requests
// to a real serve: requests by route template, method and status, the 429s
// of the guard bucket, image outcomes, the catalogue, the runtime and
// process collectors. The public listener answers /metrics as any unknown
// path.
func TestServeMetrics(t *testing.T) {
	t.Parallel()
	src, _ := cdn(t)
	dir := t.TempDir()
	key := newKey(t, dir)
	s := startServe(t, dir, map[string]string{"CARDCAT_TCGPLAYER_IMAGE_URL": src.URL + "/product/{productId}_in_1000x1000.jpg"},
		"--admin-addr", "127.0.0.1:0", "--guard-per-hour", "2")
	admin := adminURL(t, s)

	for range 3 {
		if resp, body := get(t, s.url+"/dbs/sets", "X-API-Key", key); resp.StatusCode != http.StatusOK {
			t.Fatalf("/dbs/sets: %d %s", resp.StatusCode, body)
		}
	}
	roshi := s.url + "/dbs/images/" + catalog.TCGCardID("dbs", 535906)
	get(t, roshi, "X-API-Key", key) // fetched
	get(t, roshi, "X-API-Key", key) // stored
	// Keyless: the guard bucket admits 2 an hour (401s), then 429.
	for i, want := range []int{401, 401, 429} {
		if resp, _ := get(t, s.url+"/mtg/sets"); resp.StatusCode != want {
			t.Fatalf("keyless request %d: %d, want %d", i, resp.StatusCode, want)
		}
	}
	// /metrics is not on the public listener: the API's 404 of an unknown
	// path (and counted as one).
	resp, body := get(t, s.url+"/metrics", "X-API-Key", key)
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(body), `"Endpoint not found"`) {
		t.Errorf("public /metrics: %d %s", resp.StatusCode, body)
	}

	fams := scrape(t, admin)
	wantMetric(t, fams, 3, "cardcat_http_requests_total", "route", "/{game}/sets", "game", "dbs", "method", "GET", "status", "200")
	wantMetric(t, fams, 2, "cardcat_http_requests_total", "route", "/{game}/sets", "game", "mtg", "method", "GET", "status", "401")
	wantMetric(t, fams, 1, "cardcat_http_requests_total", "route", "/{game}/sets", "game", "mtg", "method", "GET", "status", "429")
	wantMetric(t, fams, 2, "cardcat_http_requests_total", "route", "/{game}/images/{id}", "game", "dbs", "method", "GET", "status", "200")
	wantMetric(t, fams, 1, "cardcat_http_requests_total", "route", "unmatched", "game", "", "method", "GET", "status", "404")
	wantMetric(t, fams, 6, "cardcat_http_request_duration_seconds", "route", "/{game}/sets") // both games, every status
	wantMetric(t, fams, 1, "cardcat_ratelimit_decisions_total", "bucket", "guard", "decision", "refused")
	wantMetric(t, fams, 2, "cardcat_ratelimit_decisions_total", "bucket", "guard", "decision", "admitted")
	wantMetric(t, fams, 6, "cardcat_ratelimit_decisions_total", "bucket", "account", "decision", "admitted")
	wantMetric(t, fams, 1, "cardcat_image_requests_total", "outcome", "fetched")
	wantMetric(t, fams, 1, "cardcat_image_requests_total", "outcome", "stored")
	for _, s := range fams["cardcat_http_requests_total"].GetMetric() {
		for _, l := range s.GetLabel() {
			if l.GetName() == "route" && (strings.Contains(l.GetValue(), "dbs") || strings.Contains(l.GetValue(), "metrics")) {
				t.Errorf("a path as a route label: %v", s.GetLabel())
			}
		}
	}

	// The catalogue: the bundled sample, version 1, written moments ago.
	wantMetric(t, fams, 1, "cardcat_catalogue_version")
	if age, ok := metricValue(fams, "cardcat_catalogue_age_seconds"); !ok || age < 0 || age > 3600 {
		t.Errorf("catalogue age %v (%v)", age, ok)
	}
	for _, g := range []string{"dbs", "mtg"} {
		if n, ok := metricValue(fams, "cardcat_catalogue_cards", "game", g); !ok || n < 10 {
			t.Errorf("%s cards: %v (%v)", g, n, ok)
		}
	}
	for _, name := range []string{"cardcat_catalogue_load_seconds", "cardcat_catalogue_build_seconds"} {
		if v, ok := metricValue(fams, name); !ok || v <= 0 {
			t.Errorf("%s = %v (%v)", name, v, ok)
		}
	}
	// The runtime and process collectors; no Redis series without Redis.
	for _, name := range []string{"go_goroutines", "go_memstats_heap_alloc_bytes", "process_resident_memory_bytes", "process_start_time_seconds"} {
		if _, ok := fams[name]; !ok {
			t.Errorf("no %s", name)
		}
	}
	if _, ok := fams["cardcat_ratelimit_redis_fallback"]; ok {
		t.Error("a Redis fallback gauge with the in-process limiter")
	}
	// The counters move between scrapes; the scrape itself is not counted.
	get(t, s.url+"/dbs/sets", "X-API-Key", key)
	wantMetric(t, scrape(t, admin), 4, "cardcat_http_requests_total", "route", "/{game}/sets", "game", "dbs", "method", "GET", "status", "200")
}

// TestServeMetricsRedis: the Redis limiter's fallback gauge is 0 and its
// round trips are timed while the real Redis answers; it is 1 on a Redis
// that cannot be reached.
func TestServeMetricsRedis(t *testing.T) {
	t.Parallel()
	t.Run("unreachable", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		key := newKey(t, dir)
		s := startServe(t, dir, nil, "--admin-addr", "127.0.0.1:0", "--redis-url", "redis://"+closedPort(t)+"/0")
		get(t, s.url+"/dbs/sets", "X-API-Key", key)
		wantMetric(t, scrape(t, adminURL(t, s)), 1, "cardcat_ratelimit_redis_fallback")
	})
	t.Run("up", func(t *testing.T) {
		t.Parallel()
		u := os.Getenv(redisURLVar)
		if u == "" {
			t.Skipf("%s is not set; set it (for example to redis://127.0.0.1:6379/0) to check the Redis metrics on a real Redis", redisURLVar)
		}
		dir := t.TempDir()
		key := newKey(t, dir)
		// 5 s a call: on a loaded machine a call past the default 100 ms goes
		// to the fallback, and is not a timed round trip.
		s := startServe(t, dir, nil, "--admin-addr", "127.0.0.1:0", "--redis-url", u, "--redis-timeout", "5s",
			"--redis-prefix", "cardcat:test:metrics:"+time.Now().Format("150405.000000000")+":")
		for range 3 {
			get(t, s.url+"/dbs/sets", "X-API-Key", key)
		}
		fams := scrape(t, adminURL(t, s))
		wantMetric(t, fams, 0, "cardcat_ratelimit_redis_fallback")
		if n, ok := metricValue(fams, "cardcat_ratelimit_redis_round_trip_seconds"); !ok || n < 3 {
			t.Errorf("Redis round trips timed: %v (%v), want at least the 3 requests'", n, ok)
		}
	})
}

// closedPort is a loopback address nothing listens on (a moment ago).
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}
