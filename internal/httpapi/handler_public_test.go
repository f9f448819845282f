package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/apiref"
	"github.com/cardcat/cardcat/internal/serving"
)

// TestPublicGolden: GET /, /games and /health as `make run` answers them,
// on the bundled sample (the fixture stands in for its catalogue).
func TestPublicGolden(t *testing.T) {
	deps := testDeps(mustView(t, mustFixture(t)))
	deps.Data = func(context.Context, int64) (string, error) { return string(apiref.DataSample), nil }
	h := mustServer(t, Config{}, deps)
	runGolden(t, h, []goldenCase{
		{"public_root", "/", 200, []string{"X-API-Key", ""}},
		{"public_games", "/games", 200, []string{"X-API-Key", ""}},
		{"public_health", "/health", 200, []string{"X-API-Key", ""}},
		{"public_games_trailing_slash", "/games/", 200, []string{"X-API-Key", ""}},
	})
}

func TestHealthChecks(t *testing.T) {
	snap := mustView(t, mustFixture(t))
	deps := testDeps(snap) // a fixed clock: every responseTime is 0
	ok := func(context.Context) error { return nil }
	fail := func(context.Context) error { return errors.New("dial tcp 10.0.0.1:5432: connection refused") }
	slow := func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }

	keysFresh := HealthCheck{Name: "keys", Check: ok, Critical: true}
	keysStale := HealthCheck{Name: "keys", Check: func(context.Context) error {
		return errors.New("not refreshed for 2m0s, more than 1m0s")
	}, Critical: true}

	// As serve wires them: every dependency reported, none critical (the API
	// answers from memory); the keys' freshness critical, with no row.
	tests := []struct {
		name   string
		checks []HealthCheck
		status int
	}{
		{"public_health_all_checks_pass", []HealthCheck{
			{Name: "database", Check: ok}, {Name: "cache", Check: ok}, {Name: "storage", Check: ok}, keysFresh,
		}, 200},
		// The database is down but this replica answers: reported, still 200.
		{"public_health_database_down", []HealthCheck{
			{Name: "database", Check: fail}, {Name: "cache", Check: ok}, {Name: "storage", Check: ok}, keysFresh,
		}, 200},
		// A non-critical check that fails is reported, the service stays up.
		{"public_health_cache_down", []HealthCheck{
			{Name: "database", Check: ok}, {Name: "cache", Check: fail}, {Name: "storage", Check: slow}, keysFresh,
		}, 200},
		// The keys were not refreshed for too long (the database down for
		// minutes): not ready, and the message says why; no "keys" row.
		{"public_health_keys_stale", []HealthCheck{
			{Name: "database", Check: fail}, {Name: "cache", Check: ok}, {Name: "storage", Check: ok}, keysStale,
		}, 503},
		// A critical dependency (another program's choice) still decides.
		{"public_health_critical_database_down", []HealthCheck{
			{Name: "database", Check: fail, Critical: true}, {Name: "cache", Check: ok}, {Name: "storage", Check: ok},
		}, 503},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			deps.Health = tt.checks
			h := mustServer(t, Config{HealthTimeout: 10 * time.Millisecond}, deps)
			w := get(h, "/health", "X-API-Key", "")
			if w.Code != tt.status {
				t.Errorf("status %d, want %d", w.Code, tt.status)
			}
			if got := w.Body.String(); contains(got, "10.0.0.1") {
				t.Errorf("health leaks the check's error: %s", got)
			}
			checkGolden(t, tt.name, w)
		})
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

// dataAnswer is what GET / and /health say of the data served: the source
// in each, both answers checked against the document.
func dataAnswer(t *testing.T, h http.Handler) (root, health apiref.DataSource) {
	t.Helper()
	var rb struct{ Data apiref.Data }
	var hb struct{ Catalogue *struct{ Data apiref.Data } }
	for target, body := range map[string]any{"/": &rb, "/health": &hb} {
		w := get(h, target, "X-API-Key", "")
		checkAnswer(t, requestOfRecorder(t, w), w)
		if err := json.Unmarshal(w.Body.Bytes(), body); err != nil {
			t.Fatalf("GET %s: %v", target, err)
		}
	}
	if rb.Data.Notice == "" {
		t.Errorf("GET / has no notice for %q", rb.Data.Source)
	}
	if hb.Catalogue == nil {
		return rb.Data.Source, ""
	}
	if hb.Catalogue.Data != rb.Data {
		t.Errorf("/health's data %+v, GET /'s %+v", hb.Catalogue.Data, rb.Data)
	}
	return rb.Data.Source, hb.Catalogue.Data.Source
}

// TestDataSource: GET / and /health say what the version served was made
// from, as Deps.Data says it, asked once per version; unknown without it,
// before a catalogue is loaded, or while it fails (asked again dataRetry
// later, not on each request).
func TestDataSource(t *testing.T) {
	c := mustFixture(t)
	v7 := mustView(t, c)
	c.Version = 8
	v8 := mustView(t, c)
	now := testNow
	var served atomic.Pointer[serving.View]
	served.Store(v7)
	var asked []int64
	answer := map[int64]apiref.DataSource{7: apiref.DataSample, 8: apiref.DataLive}
	var fail error
	deps := testDeps(nil)
	deps.View = served.Load
	deps.Now = func() time.Time { return now }
	deps.Data = func(_ context.Context, version int64) (string, error) {
		asked = append(asked, version)
		return string(answer[version]), fail
	}
	h := mustServer(t, Config{}, deps)
	want := func(source apiref.DataSource, asks ...int64) {
		t.Helper()
		for range 2 {
			if root, health := dataAnswer(t, h); root != source || health != source {
				t.Errorf("GET / says %q, /health %q; want %q", root, health, source)
			}
		}
		if !slices.Equal(asked, asks) {
			t.Errorf("Deps.Data asked for %v, want %v", asked, asks)
		}
	}
	want(apiref.DataSample, 7)
	served.Store(v8)
	want(apiref.DataLive, 7, 8)

	// A failure: unknown, and not asked again before dataRetry.
	c.Version = 9
	served.Store(mustView(t, c))
	fail = errors.New("database is down")
	want(apiref.DataUnknown, 7, 8, 9)
	now = now.Add(dataRetry - time.Second)
	want(apiref.DataUnknown, 7, 8, 9)
	now = now.Add(time.Second)
	fail, answer[9] = nil, apiref.DataMirror
	want(apiref.DataMirror, 7, 8, 9, 9)

	// A value the document does not list is unknown.
	c.Version = 10
	served.Store(mustView(t, c))
	answer[10] = "generated"
	want(apiref.DataUnknown, 7, 8, 9, 9, 10)

	// Before the first version, and without Deps.Data.
	served.Store(nil)
	if root, _ := dataAnswer(t, h); root != apiref.DataUnknown {
		t.Errorf("no catalogue yet: GET / says %q", root)
	}
	if root, health := dataAnswer(t, fixtureHandler(t)); root != apiref.DataUnknown || health != apiref.DataUnknown {
		t.Errorf("without Deps.Data: GET / says %q, /health %q", root, health)
	}
}

// TestDataSourcesAgree: what serving.DataFromReports answers is what the
// document lists for data.source (a value it does not know would show as
// unknown).
func TestDataSourcesAgree(t *testing.T) {
	for _, v := range []string{serving.DataSample, serving.DataLive, serving.DataMirror, serving.DataUnknown} {
		if !slices.Contains(apiref.DataSources, apiref.DataSource(v)) {
			t.Errorf("serving's %q is not one of apiref.DataSources %v", v, apiref.DataSources)
		}
	}
	if len(apiref.DataSources) != 4 {
		t.Errorf("apiref.DataSources %v: serving.DataFromReports answers 4 values", apiref.DataSources)
	}
}
