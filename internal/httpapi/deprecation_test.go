package httpapi

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/apiref"
)

// TestDeprecations keeps the route table's deprecation marks
// (apiref.Deprecated), the headers of the real answers and the changelog
// in step: every marked route is announced in docs/changelog.md with its
// sunset, at least 6 months ahead, and every answer of a route carries the
// headers exactly when it is marked.
func TestDeprecations(t *testing.T) {
	changelog, err := os.ReadFile(filepath.Join("..", "..", "docs", "changelog.md"))
	if err != nil {
		t.Fatal(err)
	}
	if marked := checkDeprecations(t, changelog); marked != 0 {
		t.Errorf("%d routes deprecated: docs/api.md's \"Nothing is deprecated today\" is no longer true", marked)
	}
}

// TestDeprecationMechanism runs the same checks on a table with one route
// marked (none is today), and on changelogs that break the policy.
func TestDeprecationMechanism(t *testing.T) {
	// Not parallel: the marks are the table's, read by New.
	const path = "/{game}/sets"
	at, sunset := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), time.Date(2027, 6, 1, 0, 0, 0, 0, time.UTC)
	apiref.Deprecated[path] = apiref.Deprecation{At: at, Sunset: sunset}
	t.Cleanup(func() { delete(apiref.Deprecated, path) })

	announced := "# Changelog\n\n## 2026-12-02\n\n- Other news.\n\n## 2026-12-01\n\n- `GET /{game}/sets` is deprecated: use `GET /{game}/catalogue`; it answers until its sunset, 2027-06-01.\n\n## 2026-11-28\n\n- Older.\n"
	// One route, served under each game's prefix.
	if marked := checkDeprecations(t, []byte(announced)); marked != len(mustTestServer(t).deps.Games.All()) {
		t.Errorf("%d served routes marked, want one per game", marked)
	}

	// The OpenAPI document says so of the route's operations (the base
	// game's at /sets too), and of no other.
	doc, err := apiref.OpenAPI(mustTestServer(t).ref)
	if err != nil {
		t.Fatal(err)
	}
	var openapi struct {
		Paths map[string]map[string]struct {
			Deprecated bool `json:"deprecated"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(doc, &openapi); err != nil {
		t.Fatal(err)
	}
	for p, ops := range openapi.Paths {
		for method, op := range ops {
			if want := (p == path || p == "/sets") && method == "get"; op.Deprecated != want {
				t.Errorf("OpenAPI %s %s: deprecated %v, want %v", method, p, op.Deprecated, want)
			}
		}
	}

	routes := mustTestServer(t).ref.Routes
	for name, changelog := range map[string]string{
		"no section of the day": "# Changelog\n\n## 2026-11-28\n\n- `GET /{game}/sets` is deprecated, sunset 2027-06-01.\n",
		"route not named":       "# Changelog\n\n## 2026-12-01\n\n- `GET /{game}/cards/:id` is deprecated, sunset 2027-06-01.\n",
		"sunset not given":      "# Changelog\n\n## 2026-12-01\n\n- `GET /{game}/sets` is deprecated.\n",
		"named in another day":  "# Changelog\n\n## 2026-12-02\n\n- `GET /{game}/sets` is deprecated, sunset 2027-06-01.\n\n## 2026-12-01\n\n- Other.\n",
	} {
		if err := apiref.CheckDeprecations(routes, []byte(changelog)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	apiref.Deprecated[path] = apiref.Deprecation{At: at, Sunset: at.AddDate(0, 5, 30)}
	if err := apiref.CheckDeprecations(routes, []byte(announced)); err == nil || !strings.Contains(err.Error(), "less than 6 months") {
		t.Errorf("a sunset 5 months ahead: %v", err)
	}
}

// checkDeprecations checks the marks against changelog, then sends a
// request to every route the server serves, with a key and without (a 401
// is an answer of the route too), and checks the headers.
func checkDeprecations(t *testing.T, changelog []byte) (marked int) {
	t.Helper()
	s, err := New(Config{}, testDeps(mustView(t, mustFixture(t))))
	if err != nil {
		t.Fatal(err)
	}
	if err := apiref.CheckDeprecations(s.ref.Routes, changelog); err != nil {
		t.Error(err)
	}
	h := s.Handler()
	wildcard := regexp.MustCompile(`\{[^}]+\}`)
	for _, sr := range s.served {
		target := wildcard.ReplaceAllString(strings.TrimPrefix(sr.Pattern, "GET "), "x")
		d := apiref.DeprecationOf(sr.Route.Path)
		if d != nil {
			marked++
		}
		for _, key := range []string{testKey, ""} {
			w := get(h, target, "X-API-Key", key)
			hd := w.Header()
			if d == nil {
				if hd.Get("Deprecation") != "" || hd.Get("Sunset") != "" {
					t.Errorf("GET %s (%d), not deprecated: Deprecation %q, Sunset %q", target, w.Code, hd.Get("Deprecation"), hd.Get("Sunset"))
				}
				continue
			}
			wantDep := "@" + strconv.FormatInt(d.At.Unix(), 10)
			wantSunset := d.Sunset.Format(http.TimeFormat)
			wantLink := "<https://api.cardcat.test/docs/changelog#" + d.At.Format(time.DateOnly) + `>; rel="deprecation"; type="text/html"`
			if hd.Get("Deprecation") != wantDep || hd.Get("Sunset") != wantSunset || hd.Get("Link") != wantLink {
				t.Errorf("GET %s (%d, key %v): Deprecation %q, Sunset %q, Link %q; want %q, %q, %q", target, w.Code, key != "",
					hd.Get("Deprecation"), hd.Get("Sunset"), hd.Get("Link"), wantDep, wantSunset, wantLink)
			}
		}
	}
	return marked
}
