package httpapi

import (
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/cardcat/cardcat"
	"github.com/cardcat/cardcat/internal/metrics"
)

// sample is one series of a family: its labels and value (a counter's, or
// a histogram's count of observations).
type sample struct {
	labels map[string]string
	value  float64
}

// series returns the series of the family name.
func series(t *testing.T, m *metrics.Metrics, name string) []sample {
	t.Helper()
	fams, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	var out []sample
	for _, f := range fams {
		if f.GetName() != name {
			continue
		}
		for _, s := range f.GetMetric() {
			smp := sample{labels: map[string]string{}, value: s.GetCounter().GetValue()}
			if s.Histogram != nil {
				smp.value = float64(s.GetHistogram().GetSampleCount())
			}
			for _, l := range s.GetLabel() {
				smp.labels[l.GetName()] = l.GetValue()
			}
			out = append(out, smp)
		}
	}
	return out
}

// find is the value of the series of name with these labels (name, value
// pairs); 0 when there is none.
func find(t *testing.T, m *metrics.Metrics, name string, labels ...string) float64 {
	t.Helper()
next:
	for _, s := range series(t, m, name) {
		for i := 0; i+1 < len(labels); i += 2 {
			if s.labels[labels[i]] != labels[i+1] {
				continue next
			}
		}
		return s.value
	}
	return 0
}

// TestMetricsRoutes: each kind of answer is counted under its route's
// template (never its path), with its method and status; the rate limiter's
// decisions by bucket.
func TestMetricsRoutes(t *testing.T) {
	t.Parallel()
	m := metrics.New(nil)
	l := newLimited(t, Config{GuardPerHour: 2}, func(d *Deps) {
		d.Metrics = m
		d.Docs = cardcat.Docs()
	})
	for range 3 {
		if w := l.get("/dbs/sets", keyA1); w.Code != http.StatusOK {
			t.Fatalf("/dbs/sets: %d", w.Code)
		}
	}
	l.get("/mtg/sets", keyA1)
	l.get(cardPath, keyA1)
	l.get("/dbs/cards/dbs_0000000000000000", keyA1) // 404 of a card: its route's
	l.get("/health", "")
	l.get("/docs/no-such-page", "")
	l.get("/no/such/path", keyA1)
	l.get("/dbs//sets", keyA1)
	l.req(http.MethodDelete, "/dbs/sets", "X-API-Key", keyA1)
	l.req(http.MethodOptions, "/dbs/sets", "Origin", "https://example.com", "Access-Control-Request-Method", "GET")
	l.req("BREW", "/dbs/sets", "X-API-Key", keyA1)
	// Without a key: the guard bucket, 2 an hour; the third is refused.
	for i, want := range []int{401, 401, 429} {
		if w := l.get("/dbs/sets", ""); w.Code != want {
			t.Fatalf("keyless request %d: %d, want %d", i, w.Code, want)
		}
	}

	for _, c := range []struct {
		route, game, method, status string
		want                        float64
	}{
		{"/{game}/sets", "dbs", "GET", "200", 3},
		{"/{game}/sets", "mtg", "GET", "200", 1},
		{"/{game}/sets", "dbs", "GET", "401", 2},
		{"/{game}/sets", "dbs", "GET", "429", 1},
		{"/{game}/cards/{id}", "dbs", "GET", "200", 1},
		{"/{game}/cards/{id}", "dbs", "GET", "404", 1},
		{"/health", "", "GET", "200", 1},
		{"/docs/{page}", "", "GET", "404", 1},
		{"unmatched", "", "GET", "404", 2},
		{"method_not_allowed", "", "DELETE", "405", 1},
		{"method_not_allowed", "", "other", "405", 1},
		{"preflight", "", "OPTIONS", "204", 1},
	} {
		if got := find(t, m, "cardcat_http_requests_total", "route", c.route, "game", c.game, "method", c.method, "status", c.status); got != c.want {
			t.Errorf("route %q game %q %s %s: %v, want %v", c.route, c.game, c.method, c.status, got, c.want)
		}
	}
	for _, s := range series(t, m, "cardcat_http_requests_total") {
		if r := s.labels["route"]; strings.Contains(r, "dbs") || strings.Contains(r, "no/such") {
			t.Errorf("a path in a route label: %v", s.labels)
		}
	}
	// The guard bucket: 2 admitted, then 1 refused. Account 1's pool: every
	// keyed answer, unrouted ones and 405s included (3 + 1 + 2 cards + 2
	// unrouted + 2 405s); preflights and public routes are not counted.
	for _, c := range []struct {
		bucket, decision string
		want             float64
	}{
		{"guard", "admitted", 2}, {"guard", "refused", 1},
		{"account", "admitted", 10}, {"account", "refused", 0}, {"account", "unchecked", 0},
	} {
		if got := find(t, m, "cardcat_ratelimit_decisions_total", "bucket", c.bucket, "decision", c.decision); got != c.want {
			t.Errorf("%s %s: %v, want %v", c.bucket, c.decision, got, c.want)
		}
	}
	// The histogram is by template: both games' /sets, every status.
	if got := find(t, m, "cardcat_http_request_duration_seconds", "route", "/{game}/sets"); got != 7 {
		t.Errorf("/{game}/sets durations: %v observations, want 7", got)
	}
}

// TestMetricsHostilePaths: thousands of random paths, methods and huge
// paths add no series beyond the fixed route labels: the series of the
// request counter and the histogram stay bounded, every label one of the
// server's.
func TestMetricsHostilePaths(t *testing.T) {
	t.Parallel()
	m := metrics.New(nil)
	s, err := New(Config{}, func() Deps { d := testDeps(mustView(t, mustFixture(t))); d.Metrics = m; return d }())
	if err != nil {
		t.Fatal(err)
	}
	h := s.Handler()
	templates := map[string]bool{}
	for _, r := range s.routeLabels {
		templates[r.Template] = true
	}
	rng := rand.New(rand.NewPCG(17, 23))
	methods := []string{"GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "BREW", "get", "X-" + strings.Repeat("M", 50)}
	segment := func() string {
		const chars = "abcdefghijklmnopqrstuvwxyz0123456789-_.~%"
		b := make([]byte, 1+rng.IntN(20))
		for i := range b {
			b[i] = chars[rng.IntN(len(chars))]
		}
		return string(b)
	}
	games := []string{"dbs", "mtg", "xyz", ""}
	round := func(n int) int {
		for range n {
			var p string
			switch rng.IntN(5) {
			case 0: // a game's route with random values
				p = "/" + games[rng.IntN(len(games))] + "/" + []string{"sets", "cards", "search", "images", "prices", "bulk"}[rng.IntN(6)] + "/" + segment()
			case 1: // huge
				p = "/" + strings.Repeat(segment(), 200+rng.IntN(200))
			case 2: // deep
				for range 1 + rng.IntN(30) {
					p += "/" + segment()
				}
			case 3: // dot segments and slashes
				p = "/dbs/" + []string{"..", ".", "", "//"}[rng.IntN(4)] + "/" + segment()
			default:
				p = "/" + segment() + "?q=" + segment()
			}
			r, ok := newRawRequest(methods[rng.IntN(len(methods))], p)
			if !ok {
				continue
			}
			r.Header.Set("X-API-Key", testKey)
			h.ServeHTTP(discard{http.Header{}}, r)
		}
		return len(series(t, m, "cardcat_http_requests_total")) + len(series(t, m, "cardcat_http_request_duration_seconds"))
	}
	first := round(3000)
	second := round(3000)
	// Every combination is a fixed route × a known method × a status the
	// server answers; random paths find no new one after the first few
	// thousand.
	if second > first+10 {
		t.Errorf("series grew from %d to %d with 3000 more hostile requests", first, second)
	}
	knownMethods := []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "CONNECT", "TRACE", "other"}
	for _, s := range series(t, m, "cardcat_http_requests_total") {
		l := s.labels
		if !templates[l["route"]] || !slices.Contains(knownMethods, l["method"]) || len(l["status"]) != 3 {
			t.Errorf("a series outside the fixed labels: %v", l)
		}
		if g := l["game"]; g != "" && g != "dbs" && g != "mtg" {
			t.Errorf("a game label %q", g)
		}
	}
	if bound := len(s.routeLabels) * len(knownMethods) * 4; second > bound {
		t.Errorf("%d series, above %d", second, bound)
	}
	t.Logf("%d series after 6000 hostile requests (%d route labels)", second, len(s.routeLabels))
}

// discard is a ResponseWriter that keeps only the headers.
type discard struct{ h http.Header }

func (d discard) Header() http.Header         { return d.h }
func (d discard) Write(b []byte) (int, error) { return len(b), nil }
func (d discard) WriteHeader(int)             {}
