package httpapi

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestPublicGolden(t *testing.T) {
	h := fixtureHandler(t)
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
