package main

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/cardcat/cardcat/internal/account/accounttest"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/httpapi"
	"github.com/cardcat/cardcat/internal/serving"
	"github.com/cardcat/cardcat/internal/web"
)

// TestServerHandlerMountsPortal: everything under /account reaches the
// portal, any method, with a request id and without the API's CORS or
// rate-limit headers, one access line each; paths that only start like it
// stay the API's.
func TestServerHandlerMountsPortal(t *testing.T) {
	api, err := httpapi.New(httpapi.Config{}, httpapi.Deps{View: func() *serving.View { return nil }, Games: game.Default(),
		Auth: accounttest.KeyFormat{}, PublicURL: "https://api.cardcat.test"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	portal := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Method+" "+r.URL.Path)
		w.WriteHeader(http.StatusTeapot)
	})
	var lines []web.AccessEntry
	h := serverHandler(api, portal, "https://api.cardcat.test", nil, func(e web.AccessEntry) { lines = append(lines, e) }, nil)
	for _, c := range []struct{ method, target string }{
		{http.MethodGet, "/account"},
		{http.MethodGet, "/account/"},
		{http.MethodPost, "/account/login"},
		{http.MethodGet, "/account/keys?x=1"},
	} {
		r := httptest.NewRequest(c.method, c.target, nil)
		r.Header.Set("X-API-Key", "pk_live_0123456789abcdef0123456789abcdef")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusTeapot {
			t.Errorf("%s %s: status %d, want the portal's", c.method, c.target, w.Code)
		}
		hd := w.Header()
		if hd.Get("Access-Control-Allow-Origin") != "" || hd.Get("X-RateLimit-Limit-Hour") != "" {
			t.Errorf("%s %s: API headers on a portal page: %v", c.method, c.target, hd)
		}
		if hd.Get("X-Request-Id") == "" || hd.Get("Strict-Transport-Security") == "" {
			t.Errorf("%s %s: no request id or HSTS: %v", c.method, c.target, hd)
		}
	}
	if len(got) != 4 || len(lines) != 4 {
		t.Errorf("portal saw %q, access lines %d", got, len(lines))
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/accounts", nil))
	if w.Code != http.StatusNotFound || len(got) != 4 || w.Header().Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("/accounts: status %d, portal calls %d, %v", w.Code, len(got), w.Header())
	}
	// Without a portal, /account is the API's (its 404).
	w = httptest.NewRecorder()
	serverHandler(api, nil, "", nil, nil, nil).ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/account/", nil))
	if w.Code != http.StatusNotFound || w.Header().Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("/account/ without a portal: %d %v", w.Code, w.Header())
	}
}
