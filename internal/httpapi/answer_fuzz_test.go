package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// The properties every answer of the API keeps, whatever it was sent: they
// are checked by every fuzz target of this package and by the hostile
// corpus (hostile_test.go).

// errorAnswer is the body of an error answer, as far as the checks need it.
type errorAnswer struct {
	Error      *string         `json:"error"`
	Message    *string         `json:"message"`
	DidYouMean json.RawMessage `json:"did_you_mean"`
}

// checkSafeAnswer fails when an answer breaks the rules every answer keeps:
// no 5xx; an error (4xx) is JSON {error, message} with both non-empty
// (unless the method is HEAD, which has no body); a JSON body is valid JSON.
// It returns the error body of an error answer.
func checkSafeAnswer(tb testing.TB, req string, status int, h http.Header, body []byte, head bool) errorAnswer {
	tb.Helper()
	var e errorAnswer
	if status >= 500 {
		tb.Errorf("%s: status %d, want no 5xx; body %.300q", req, status, body)
		return e
	}
	isJSON := strings.HasPrefix(h.Get("Content-Type"), "application/json")
	if isJSON && !head && !json.Valid(body) {
		tb.Errorf("%s: status %d: Content-Type %s but the body is not JSON: %.300q", req, status, h.Get("Content-Type"), body)
	}
	if status < 400 || head {
		return e
	}
	if !isJSON {
		tb.Errorf("%s: status %d with Content-Type %q, want JSON; body %.300q", req, status, h.Get("Content-Type"), body)
		return e
	}
	if err := json.Unmarshal(body, &e); err != nil {
		tb.Errorf("%s: status %d: body is not a JSON object: %v; %.300q", req, status, err, body)
		return e
	}
	if e.Error == nil || *e.Error == "" || e.Message == nil || *e.Message == "" {
		tb.Errorf("%s: status %d: error body without a non-empty error and message: %.300q", req, status, body)
	}
	return e
}

// serve sends r through h in process and checks its answer.
func serveChecked(tb testing.TB, h http.Handler, r *http.Request) (*httptest.ResponseRecorder, errorAnswer) {
	tb.Helper()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	desc := r.Method + " " + r.RequestURI
	e := checkSafeAnswer(tb, desc, w.Code, w.Header(), w.Body.Bytes(), r.Method == http.MethodHead)
	return w, e
}

// newRawRequest is the request net/http's server makes of a request line
// with this method and target, or false when the server would refuse the
// line before any handler sees it.
func newRawRequest(method, target string) (*http.Request, bool) {
	if method == "" || strings.ContainsAny(method, " \t\r\n") || !validToken(method) {
		return nil, false
	}
	if target == "" || strings.ContainsAny(target, " \t\r\n\x00") {
		return nil, false
	}
	u, err := url.ParseRequestURI(target)
	if err != nil {
		return nil, false
	}
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.Method = method
	r.URL = u
	r.RequestURI = target
	r.Host = "api.cardcat.test"
	return r, true
}

// validToken reports whether s is an HTTP token (a method's characters).
func validToken(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return s != ""
}

// jsonField decodes one field of a JSON object body, or fails.
func jsonField(tb testing.TB, body *bytes.Buffer, name string, v any) {
	tb.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body.Bytes(), &m); err != nil {
		tb.Fatalf("body is not a JSON object: %v; %.300q", err, body)
	}
	raw, ok := m[name]
	if !ok {
		tb.Fatalf("body has no %q: %.300q", name, body)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		tb.Fatalf("%q: %v; %.300q", name, err, raw)
	}
}
