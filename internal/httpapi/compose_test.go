package httpapi

import (
	"net/http"
	"testing"
)

// Everything under /account reaches the portal: any method, never counted,
// without the API's CORS headers but with its request id. Paths that only
// start like it stay the API's.
func TestPortalMount(t *testing.T) {
	var got []string
	portal := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Method+" "+r.URL.Path)
		w.WriteHeader(http.StatusTeapot)
	})
	rec := newRecordingLimiter(t)
	l := newLimited(t, Config{}, func(d *Deps) { d.Portal, d.Limiter = portal, rec })
	for _, c := range []struct{ method, target string }{
		{http.MethodGet, "/account"},
		{http.MethodGet, "/account/"},
		{http.MethodPost, "/account/login"},
		{http.MethodGet, "/account/keys?x=1"},
	} {
		w := l.req(c.method, c.target, "X-API-Key", "pk_live_"+"0123456789abcdef0123456789abcdef")
		if w.Code != http.StatusTeapot {
			t.Errorf("%s %s: status %d, want the portal's", c.method, c.target, w.Code)
		}
		if w.Header().Get("Access-Control-Allow-Origin") != "" || w.Header().Get("X-RateLimit-Limit-Hour") != "" {
			t.Errorf("%s %s: API headers on a portal page: %v", c.method, c.target, w.Header())
		}
		if w.Header().Get("X-Request-Id") == "" {
			t.Errorf("%s %s: no request id", c.method, c.target)
		}
	}
	if len(got) != 4 {
		t.Errorf("portal saw %q", got)
	}
	if calls := rec.get(); len(calls) != 0 {
		t.Errorf("portal requests touched the limiter: %q", calls)
	}
	if w := l.req(http.MethodGet, "/accounts"); w.Code != http.StatusNotFound || len(got) != 4 {
		t.Errorf("/accounts: status %d, portal calls %d", w.Code, len(got))
	}
}

// Without a portal, /account/ is the API's 404 as before.
func TestPortalMountAbsent(t *testing.T) {
	l := newLimited(t, Config{})
	if w := l.req(http.MethodGet, "/account/trial"); w.Code != http.StatusNotFound {
		t.Errorf("status %d", w.Code)
	}
}
