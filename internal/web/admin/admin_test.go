package admin

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"
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
		err := CheckLoopback(context.Background(), tt.addr, lookup)
		if tt.refused == "" && err != nil || tt.refused != "" && (err == nil || !strings.Contains(err.Error(), tt.refused)) {
			t.Errorf("CheckLoopback(%q) = %v, want %q", tt.addr, err, tt.refused)
		}
	}
}

// TestReadiness: ready with a catalogue and keys refreshed within their
// bound, max(1 minute, 10 intervals); the reason otherwise.
func TestReadiness(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name     string
		loaded   bool
		interval time.Duration
		age      time.Duration // since the keys' last successful refresh
		want     string
	}{
		{"fresh", true, 5 * time.Second, 10 * time.Second, ""},
		{"at the bound", true, 5 * time.Second, time.Minute, ""},
		{"stale", true, 5 * time.Second, time.Minute + time.Second, "keys not refreshed for 1m1s, more than 1m0s"},
		{"long interval", true, time.Minute, 9 * time.Minute, ""},
		{"long interval, stale", true, time.Minute, 11 * time.Minute, "keys not refreshed for 11m0s, more than 10m0s"},
		{"no catalogue", false, 5 * time.Second, 0, "catalogue not loaded yet"},
	} {
		r := Readiness{
			Loaded:        func() bool { return tt.loaded },
			KeysRefreshed: func() time.Time { return now.Add(-tt.age) },
			KeysBound:     KeysStaleAfter(tt.interval),
			Now:           func() time.Time { return now },
		}
		got := ""
		if err := r.Check(); err != nil {
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
	if err := RefreshesFailing(time.Time{}, time.Time{}); err != nil {
		t.Errorf("none failing: %v", err)
	}
	err := RefreshesFailing(since, since.Add(time.Second))
	if want := "catalogue refresh failing since 2026-11-25T12:00:00Z; key directory refresh failing since 2026-11-25T12:00:01Z"; err == nil || err.Error() != want {
		t.Errorf("both failing: %v, want %q", err, want)
	}
}

// TestHandler: the probes answer as Readiness says, the metrics are the
// given handler's, pprof is there, and nothing else.
func TestHandler(t *testing.T) {
	ready := true
	s := &Server{
		Ready: Readiness{
			Loaded:        func() bool { return ready },
			KeysRefreshed: time.Now,
			KeysBound:     time.Minute,
			Now:           time.Now,
		},
		Metrics:   http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "metrics\n") }),
		Footprint: func() any { return map[string]int{"products": 7} },
	}
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	get := func(path string) (int, string) {
		t.Helper()
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, tt := range []struct {
		path   string
		status int
		body   string // a prefix
	}{
		{"/livez", http.StatusOK, "ok\n"},
		{"/readyz", http.StatusOK, "ok\n"},
		{"/metrics", http.StatusOK, "metrics\n"},
		{"/debug/pprof/", http.StatusOK, "<html>"},
		{"/debug/footprint", http.StatusOK, "{\n  \"products\": 7\n}\n"},
		{"/health", http.StatusNotFound, ""},
	} {
		if code, body := get(tt.path); code != tt.status || !strings.HasPrefix(body, tt.body) {
			t.Errorf("GET %s: %d %.40q, want %d %q", tt.path, code, body, tt.status, tt.body)
		}
	}
	ready = false
	if code, body := get("/readyz"); code != http.StatusServiceUnavailable || body != "not ready: catalogue not loaded yet\n" {
		t.Errorf("GET /readyz, no catalogue: %d %q", code, body)
	}
	if code, _ := get("/livez"); code != http.StatusOK {
		t.Errorf("GET /livez, no catalogue: %d", code)
	}
}
