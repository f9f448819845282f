package httpapi

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/cardcat/cardcat/internal/catalog"
)

// FuzzPath sends any request line through the whole handler: never a 5xx,
// every error JSON {error, message}; a 404 "Endpoint not found" carries
// did_you_mean, null or a path that a route serves (a GET of it is not the
// endpoint 404 again).
func FuzzPath(f *testing.F) {
	goku := catalog.TCGCardID("dbs", 535600)
	for _, seed := range []struct{ method, target string }{
		{"GET", "/"}, {"GET", "/games"}, {"GET", "/health"}, {"GET", "/dbs/sets"}, {"GET", "/dbs/sets/FB01?page=2&limit=1"},
		{"GET", "/dbs/cards/" + goku}, {"GET", "/mtg/search?q=bolt"}, {"GET", "/dbs/prices/23401"},
		{"GET", "/dbs/sets/23401/statistics?variant=foil"}, {"GET", "/dbs/sets/trending?limit=5"},
		{"GET", "/mtg/analytics/top-cards?metric=growth"}, {"GET", "/dbs/images/" + goku},
		{"GET", "/dsb/set"}, {"GET", "//DBS//Sets"}, {"GET", "/cards/" + goku}, {"GET", "/helth"}, {"GET", "/search?q=goku"},
		{"GET", "/dbs/card/a%3Fb"}, {"GET", "/dbs/../mtg/sets"}, {"GET", "/dbs/sets/%2e%2e%2fetc%2fpasswd"},
		{"GET", "/dbs/sets/%00"}, {"GET", "/dbs/sets/%ff%fe"}, {"GET", "/mcp"}, {"GET", "/openapi.json"},
		{"GET", "/docs/nope"}, {"GET", "/docs/assets/..%2f..%2fgo.mod"}, {"GET", "/llms.txt"},
		{"POST", "/dbs/sets"}, {"DELETE", "/dbs/cards/x"}, {"OPTIONS", "/dbs/sets"}, {"HEAD", "/dbs/sets"},
		{"PUT", "/nope"}, {"PATCH", "/"}, {"TRACE", "/"}, {"GET", "/?q=%zz"}, {"GET", "*"},
		{"GET", "/mtg/sets/trending/x"}, {"GET", "/mtg/analytic/top-card"}, {"GET", "/Dbs/Prices/23401/"},
	} {
		f.Add(seed.method, seed.target)
	}
	h := docsHandler(f) // the fixture with the docs site, as the binary serves it
	f.Fuzz(func(t *testing.T, method, target string) {
		r, ok := newRawRequest(method, target)
		if !ok {
			return
		}
		r.Header.Set("X-API-Key", testKey)
		w, e := serveChecked(t, h, r)
		if w.Code != http.StatusNotFound || e.Error == nil || *e.Error != errEndpointNotFound {
			return
		}
		if len(e.DidYouMean) == 0 {
			t.Fatalf("%s %s: 404 %s without did_you_mean", method, target, errEndpointNotFound)
		}
		var p *string
		if err := json.Unmarshal(e.DidYouMean, &p); err != nil {
			t.Fatalf("%s %s: did_you_mean %s is neither null nor a string", method, target, e.DidYouMean)
		}
		if p == nil {
			return
		}
		if !strings.HasPrefix(*p, "/") {
			t.Fatalf("%s %s: did_you_mean %q is not a path", method, target, *p)
		}
		// The path as a client follows it: a '#' starts a fragment it does
		// not send, a '?' its query.
		u, err := url.Parse(*p)
		if err == nil && u.Fragment == "" {
			r2, ok := newRawRequest(http.MethodGet, u.RequestURI())
			if ok {
				r2.Header.Set("X-API-Key", testKey)
				_, e2 := serveChecked(t, h, r2)
				if e2.Error == nil || *e2.Error != errEndpointNotFound {
					return
				}
			}
		}
		t.Fatalf("%s %s: did_you_mean %q is not a path a client can follow to a route", method, target, *p)
	})
}
