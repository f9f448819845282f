package httpapi

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cardcat/cardcat/internal/account"
)

func TestAuthGolden(t *testing.T) {
	h := fixtureHandler(t)
	runGolden(t, h, []goldenCase{
		{"errors_key_missing", "/dbs/sets/FB01?page=2", 401, []string{"X-API-Key", ""}},
		{"errors_key_malformed", "/mtg/search?q=bat", 401, []string{"X-API-Key", "pk_live_short"}},
	})
}

func TestAuthForms(t *testing.T) {
	h := fixtureHandler(t)
	live := "pk_live_ABCDEFGHIJKLMNOPQRSTUVWXYZ012345"
	tests := []struct {
		name    string
		headers []string
		status  int
	}{
		{"X-API-Key test key", []string{"X-API-Key", testKey}, 200},
		{"X-API-Key live key", []string{"X-API-Key", live}, 200},
		{"Bearer", []string{"X-API-Key", "", "Authorization", "Bearer " + live}, 200},
		{"bearer in lower case", []string{"X-API-Key", "", "Authorization", "bearer " + live}, 200},
		{"no key", []string{"X-API-Key", ""}, 401},
		{"Basic auth", []string{"X-API-Key", "", "Authorization", "Basic " + live}, 401},
		{"31 characters", []string{"X-API-Key", live[:len(live)-1]}, 401},
		{"33 characters", []string{"X-API-Key", live + "A"}, 401},
		{"wrong prefix", []string{"X-API-Key", "sk_live_ABCDEFGHIJKLMNOPQRSTUVWXYZ012345"}, 401},
		{"punctuation", []string{"X-API-Key", "pk_live_ABCDEFGHIJKLMNOPQRSTUVWXYZ01234-"}, 401},
	}
	for _, tt := range tests {
		if w := get(h, "/dbs/sets", tt.headers...); w.Code != tt.status {
			t.Errorf("%s: status %d, want %d", tt.name, w.Code, tt.status)
		}
	}
	// Public routes and unknown routes need no key.
	for _, p := range []string{"/", "/games", "/health"} {
		if w := get(h, p, "X-API-Key", ""); w.Code != 200 {
			t.Errorf("GET %s without key: %d", p, w.Code)
		}
	}
	if w := get(h, "/dsb/sets", "X-API-Key", ""); w.Code != 404 {
		t.Errorf("unknown route without key: %d, want 404 (routes are decided before authentication)", w.Code)
	}
}

type fakeAuth struct{ err error }

func (f fakeAuth) Authenticate(context.Context, string) (account.Caller, error) {
	return account.CallerOf(&account.Account{ID: 1, Plan: account.Ultra}, "pk_test_fake", time.Time{}), f.err
}

func TestAuthenticatorErrors(t *testing.T) {
	snap := mustView(t, mustFixture(t))
	for _, tt := range []struct {
		err    error
		status int
	}{
		{nil, 200},
		{fmt.Errorf("revoked: %w", account.ErrInvalidKey), 401},
		{errors.New("account store unreachable"), 500},
	} {
		deps := testDeps(snap)
		deps.Auth = fakeAuth{tt.err}
		if w := get(mustServer(t, Config{}, deps), "/dbs/sets"); w.Code != tt.status {
			t.Errorf("Authenticate error %v: status %d, want %d", tt.err, w.Code, tt.status)
		}
	}
}

// TestRateLimitSlot: the limiter is asked once per request, after the
// key is identified: a keyed route's request with a valid key is taken
// from its account's pool, one without from the client's guard bucket; a
// public route only peeks; an unknown path is counted like a keyed route.
func TestRateLimitSlot(t *testing.T) {
	deps := testDeps(mustView(t, mustFixture(t)))
	deps.Auth = fakeAuth{}
	rec := newRecordingLimiter(t)
	deps.Limiter = rec
	h := mustServer(t, Config{}, deps)
	w := get(h, "/dbs/sets")
	get(h, "/health")
	get(h, "/nope")
	get(h, "/mtg/sets", "X-API-Key", "")
	if w.Header().Get("X-RateLimit-Limit-Hour") != "7000" {
		t.Errorf("limit headers: %v, want the Ultra caller's 7000", w.Header())
	}
	if diff := cmp.Diff([]string{"take acct:1", "peek acct:1", "take acct:1", "take ip:192.0.2.1"}, rec.get()); diff != "" {
		t.Errorf("limiter calls (-want +got):\n%s", diff)
	}
}
