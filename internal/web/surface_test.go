package web

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestSurface: every answer of a surface has its request id (the caller's
// when plain), nosniff, HSTS over https and no CORS header; each request is
// one access line and one metrics call; a panic is a logged 500 with the id.
func TestSurface(t *testing.T) {
	var lines []AccessEntry
	var statuses []int
	var logs bytes.Buffer
	c := &Surface{IDs: NewRequestIDs(), HTTPS: true, Log: slog.New(slog.NewTextHandler(&logs, nil)),
		AccessLog: func(e AccessEntry) { lines = append(lines, e) },
		Metrics:   func(_ string, status int, _ time.Duration) { statuses = append(statuses, status) }}
	h := c.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/account/panic" {
			panic("boom")
		}
		if SurfaceRequestID(r.Context()) == "" {
			t.Error("no request id in the context")
		}
		w.WriteHeader(http.StatusTeapot)
		w.Write([]byte("tea"))
	}))
	r := httptest.NewRequest(http.MethodPost, "/account/login?api_key=pk_live_abc", nil)
	r.Header.Set("X-Request-Id", "abc-1")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	hd := w.Header()
	if w.Code != http.StatusTeapot || hd.Get("X-Request-Id") != "abc-1" || hd.Get("X-Content-Type-Options") != "nosniff" ||
		hd.Get("Strict-Transport-Security") == "" || hd.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("%d %v", w.Code, hd)
	}
	if len(lines) != 1 || lines[0].Status != http.StatusTeapot || lines[0].Bytes != 3 || lines[0].RequestID != "abc-1" ||
		strings.Contains(lines[0].Path, "pk_live_abc") {
		t.Errorf("access lines %+v", lines)
	}
	// A body sent with a Transfer-Encoding ends the connection (smuggling).
	r = httptest.NewRequest(http.MethodPost, "/account/login", strings.NewReader("a=b"))
	r.TransferEncoding = []string{"chunked"}
	w = httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Header().Get("Connection") != "close" {
		t.Errorf("a request with a Transfer-Encoding: Connection %q, want close", w.Header().Get("Connection"))
	}
	w = httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/account/panic", nil))
	id := w.Header().Get("X-Request-Id")
	if w.Code != http.StatusInternalServerError || id == "" || !strings.Contains(w.Body.String(), id) ||
		!strings.Contains(logs.String(), "boom") || len(statuses) != 3 || statuses[2] != http.StatusInternalServerError {
		t.Errorf("panic: %d %q, logs %q, statuses %v", w.Code, w.Body, logs.String(), statuses)
	}
}

// TestMount: the prefix and below go to the surface, anything else (paths
// that only start like it included) to the rest, as sent.
func TestMount(t *testing.T) {
	var got []string
	mark := func(name string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got = append(got, name+" "+r.URL.Path) })
	}
	h := Mount("/account", mark("portal"), mark("api"))
	for _, p := range []string{"/account", "/account/", "/account/keys", "/accounts", "/dbs//sets", "/"} {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, p, nil))
	}
	want := "portal /account,portal /account/,portal /account/keys,api /accounts,api /dbs//sets,api /"
	if strings.Join(got, ",") != want {
		t.Errorf("%q, want %q", strings.Join(got, ","), want)
	}
}
