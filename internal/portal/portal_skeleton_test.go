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
