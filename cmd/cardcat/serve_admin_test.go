package main

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/serving"
)

// fakeLookup resolves the names of a table, as a resolver would.
func fakeLookup(names map[string][]string) func(context.Context, string, string) ([]netip.Addr, error) {
	return func(_ context.Context, _, host string) ([]netip.Addr, error) {
		addrs, ok := names[host]
		if !ok {
			return nil, errors.New("no such host")
		}
		var out []netip.Addr
		for _, a := range addrs {
			out = append(out, netip.MustParseAddr(a))
		}
		return out, nil
	}
}

func TestCheckLoopback(t *testing.T) {
	lookup := fakeLookup(map[string][]string{
		"localhost":   {"127.0.0.1", "::1"},
		"admin.local": {"127.0.0.1", "10.0.0.5"},
		"mapped":      {"::ffff:127.0.0.1"},
	})
	for _, tt := range []struct {
		addr    string
		refused string // part of the reason; empty: accepted
	}{
		{"127.0.0.1:6060", ""},
		{"127.0.0.2:0", ""},
		{"[::1]:6060", ""},
		{"localhost:6060", ""},
		{"mapped:6060", ""},
		{"0.0.0.0:6060", "0.0.0.0 is not a loopback address"},
		{"[::]:6060", ":: is not a loopback address"},
		{":6060", "every interface"},
		{"10.1.2.3:6060", "10.1.2.3 is not a loopback address"},
		{"admin.local:6060", "admin.local resolves to 10.0.0.5"},
		{"nowhere.invalid:6060", "resolving nowhere.invalid"},
		{"6060", "missing port"},
	} {
		err := checkLoopback(context.Background(), tt.addr, lookup)
		if tt.refused == "" && err != nil || tt.refused != "" && (err == nil || !strings.Contains(err.Error(), tt.refused)) {
			t.Errorf("checkLoopback(%q) = %v, want %q", tt.addr, err, tt.refused)
		}
	}
}

// TestServeAdminAddr: a non-loopback admin address is a usage error (exit 2)
// that names the flag to use, unless the operator allows it, by flag or
// variable; then serve warns at start-up.
func TestServeAdminAddr(t *testing.T) {
	for _, tt := range []struct {
		env  map[string]string
		args []string
		ok   bool
	}{
		{nil, []string{"--admin-addr", "127.0.0.1:6060"}, true},
		{nil, []string{"--admin-addr", "localhost:6060"}, true},
		{nil, []string{"--admin-addr", "0.0.0.0:6060"}, false},
		{nil, []string{"--admin-addr", ":6060"}, false},
		{map[string]string{"CARDCAT_ADMIN_ADDR": "0.0.0.0:6060"}, nil, false},
		{nil, []string{"--admin-addr", "0.0.0.0:6060", "--admin-allow-public"}, true},
		{map[string]string{"CARDCAT_ADMIN_ADDR": "0.0.0.0:6060", "CARDCAT_ADMIN_ALLOW_PUBLIC": "true"}, nil, true},
		{map[string]string{"CARDCAT_ADMIN_ALLOW_PUBLIC": "true"}, []string{"--admin-addr", "0.0.0.0:6060", "--admin-allow-public=false"}, false},
		{map[string]string{"CARDCAT_ADMIN_ALLOW_PUBLIC": "yes please"}, nil, false},
	} {
		env, _ := configEnv(tt.env)
		_, err := parseServe(env, tt.args)
		if tt.ok != (err == nil) {
			t.Errorf("env %v, args %v: %v", tt.env, tt.args, err)
			continue
		}
		if err == nil {
			continue
		}
		if exitCode(err) != 2 {
			t.Errorf("env %v, args %v: exit %d, want 2 (%v)", tt.env, tt.args, exitCode(err), err)
		}
		if !strings.Contains(err.Error(), "CARDCAT_ADMIN_ALLOW_PUBLIC") {
			t.Errorf("env %v, args %v: %q does not name the setting that allows it", tt.env, tt.args, err)
		}
	}

	// Allowed: it starts, and says so once at start-up.
	dir := t.TempDir()
	s := startServe(t, dir, nil, "--admin-addr", "0.0.0.0:0", "--admin-allow-public")
	admin := adminURL(t, s)
	admin = strings.Replace(admin, "0.0.0.0", "127.0.0.1", 1)
	poll(t, 5*time.Second, 20*time.Millisecond, "no start-up warning of a public admin address", func() bool {
		return strings.Contains(s.stderr.String(), `level=WARN msg="the admin server may be reachable from other hosts`)
	})
	if code, body := probe(t, admin+"/livez"); code != http.StatusOK || body != "ok\n" {
		t.Errorf("/livez: %d %q", code, body)
	}
	if code, body := probe(t, admin+"/readyz"); code != http.StatusOK || body != "ok\n" {
		t.Errorf("/readyz: %d %q", code, body)
	}

	// A loopback address: no warning.
	s2 := startServe(t, t.TempDir(), nil, "--admin-addr", "127.0.0.1:0")
	adminURL(t, s2)
	if strings.Contains(s2.stderr.String(), "reachable from other hosts") {
		t.Errorf("a loopback admin address warned:\n%s", s2.stderr)
	}
}

// TestReadiness: ready with a catalogue and keys refreshed within their
// bound, max(1 minute, 10 intervals); the reason otherwise.
func TestReadiness(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	view := &serving.View{}
	for _, tt := range []struct {
		name     string
		view     *serving.View
		interval time.Duration
		age      time.Duration // since the keys' last successful refresh
		want     string
	}{
		{"fresh", view, 5 * time.Second, 10 * time.Second, ""},
		{"at the bound", view, 5 * time.Second, time.Minute, ""},
		{"stale", view, 5 * time.Second, time.Minute + time.Second, "keys not refreshed for 1m1s, more than 1m0s"},
		{"long interval", view, time.Minute, 9 * time.Minute, ""},
		{"long interval, stale", view, time.Minute, 11 * time.Minute, "keys not refreshed for 11m0s, more than 10m0s"},
		{"no catalogue", nil, 5 * time.Second, 0, "catalogue not loaded yet"},
	} {
		r := readiness{
			view:      func() *serving.View { return tt.view },
			keys:      func() time.Time { return now.Add(-tt.age) },
			keysBound: keysStaleAfter(tt.interval),
			now:       func() time.Time { return now },
		}
		got := ""
		if err := r.check(); err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestProbeAnswer(t *testing.T) {
	w := httptest.NewRecorder()
	probeAnswer(w, errors.New("keys not refreshed for 2m0s, more than 1m0s"))
	if w.Code != http.StatusServiceUnavailable || w.Body.String() != "not ready: keys not refreshed for 2m0s, more than 1m0s\n" ||
		w.Header().Get("Content-Type") != "text/plain; charset=utf-8" || w.Header().Get("Cache-Control") != "no-store" {
		t.Errorf("not ready: %d %q %v", w.Code, w.Body, w.Header())
	}
}

func TestRefreshesFailing(t *testing.T) {
	since := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	if err := refreshesFailing(time.Time{}, time.Time{}); err != nil {
		t.Errorf("none failing: %v", err)
	}
	err := refreshesFailing(since, since.Add(time.Second))
	if want := "catalogue refresh failing since 2026-11-25T12:00:00Z; key directory refresh failing since 2026-11-25T12:00:01Z"; err == nil || err.Error() != want {
		t.Errorf("both failing: %v, want %q", err, want)
	}
}
