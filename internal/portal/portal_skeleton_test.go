package portal

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/portal/mail"
)

type nopMailer struct{}

func (nopMailer) Send(context.Context, mail.Message) error { return nil }

// An unknown portal page is a 404 page with the portal's security headers,
// and its static assets are served under versioned names.
func TestSkeletonHeadersAndStatic(t *testing.T) {
	var st struct{ account.Store }
	p, err := New(Config{}, Deps{Store: st, Mailer: nopMailer{}, PublicURL: "http://127.0.0.1:8080"})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	p.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/account/nope", nil))
	if rec.Code != http.StatusNotFound {
		t.Fatalf("status %d", rec.Code)
	}
	for h, want := range map[string]string{
		"Content-Security-Policy": "default-src 'none'",
		"X-Frame-Options":         "DENY",
		"Referrer-Policy":         "same-origin",
		"Content-Type":            "text/html; charset=utf-8",
	} {
		if got := rec.Header().Get(h); !strings.Contains(got, want) {
			t.Errorf("%s = %q, want it to hold %q", h, got, want)
		}
	}
	css := p.pages.assetURLs["portal.css"]
	if !strings.HasPrefix(css, "/account/static/portal.") || !strings.Contains(rec.Body.String(), css) {
		t.Fatalf("stylesheet %q not linked from the page", css)
	}
	rec = httptest.NewRecorder()
	p.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, css, nil))
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "text/css; charset=utf-8" {
		t.Errorf("GET %s: %d %q", css, rec.Code, rec.Header().Get("Content-Type"))
	}
}

// A portal path asked with a method its route does not take answers 405
// with Allow, not the 404 of a page that is not there; a path that is not
// clean answers 404, not a redirect to its cleaned form (issue 24).
func TestMethodsAndUncleanPaths(t *testing.T) {
	var st struct{ account.Store }
	p, err := New(Config{}, Deps{Store: st, Mailer: nopMailer{}, PublicURL: "http://127.0.0.1:8080"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		method, path string
		status       int
		allow        string
	}{
		{http.MethodPut, "/account/login", http.StatusMethodNotAllowed, "GET, HEAD, POST"},
		{http.MethodDelete, "/account/keys", http.StatusMethodNotAllowed, "GET, HEAD, POST"},
		{http.MethodGet, "/account/logout", http.StatusMethodNotAllowed, "POST"},
		{http.MethodHead, "/account/logout", http.StatusMethodNotAllowed, "POST"},
		{http.MethodGet, "/account/keys/5/revoke", http.StatusMethodNotAllowed, "POST"},
		{http.MethodPost, "/account/static/portal.css", http.StatusMethodNotAllowed, "GET, HEAD"},
		{http.MethodPatch, "/account/", http.StatusMethodNotAllowed, "GET, HEAD"},
		{http.MethodPut, "/account", http.StatusMethodNotAllowed, "GET, HEAD"},
		{http.MethodOptions, "/account/settings", http.StatusMethodNotAllowed, "GET, HEAD"},
		{http.MethodGet, "/account/billing/stripe", http.StatusMethodNotAllowed, "POST"},
		{http.MethodGet, "/account/nope", http.StatusNotFound, ""},
		{http.MethodPost, "/account/nope/deeper", http.StatusNotFound, ""},
		{http.MethodGet, "/account/static/../x", http.StatusNotFound, ""},
		{http.MethodGet, "/account/static/../login", http.StatusNotFound, ""},
		{http.MethodGet, "/account/keys/../settings", http.StatusNotFound, ""},
		{http.MethodGet, "/account/./login", http.StatusNotFound, ""},
		{http.MethodGet, "/account//login", http.StatusNotFound, ""},
		{http.MethodPost, "/account/static/../login", http.StatusNotFound, ""},
	} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(tc.method, "/", nil)
		req.URL.Path = tc.path // as a server reads it: not cleaned
		p.ServeHTTP(rec, req)
		if rec.Code != tc.status || rec.Header().Get("Allow") != tc.allow || rec.Header().Get("Location") != "" {
			t.Errorf("%s %s: %d, Allow %q, Location %q; want %d, Allow %q, no Location",
				tc.method, tc.path, rec.Code, rec.Header().Get("Allow"), rec.Header().Get("Location"), tc.status, tc.allow)
		}
		if tc.method != http.MethodHead && !strings.Contains(rec.Body.String(), "<main") {
			t.Errorf("%s %s: not the portal's page:\n%s", tc.method, tc.path, rec.Body.String())
		}
		if rec.Header().Get("Content-Security-Policy") == "" {
			t.Errorf("%s %s: no security headers", tc.method, tc.path)
		}
	}
}
