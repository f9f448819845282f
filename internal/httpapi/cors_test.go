package httpapi

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/cardcat/cardcat/internal/apiref"
	"github.com/cardcat/cardcat/internal/bulk"
	"github.com/cardcat/cardcat/internal/catalog"
)

// corsSafelisted are the response headers a page can read without
// Access-Control-Expose-Headers (Fetch standard, "CORS-safelisted response
// header name").
var corsSafelisted = []string{"Cache-Control", "Content-Language", "Content-Length", "Content-Type", "Expires", "Last-Modified", "Pragma"}

// exposed splits an answer's Access-Control-Expose-Headers.
func exposed(h http.Header) []string {
	var names []string
	for _, v := range h.Values("Access-Control-Expose-Headers") {
		for name := range strings.SplitSeq(v, ",") {
			names = append(names, http.CanonicalHeaderKey(strings.TrimSpace(name)))
		}
	}
	return names
}

// TestCORSExposesDocumentedHeaders: a page on another origin can read every
// response header the OpenAPI document names; Last-Modified, safelisted
// anyway, is named too for the browsers that predate the safelist.
func TestCORSExposesDocumentedHeaders(t *testing.T) {
	w := get(fixtureHandler(t), "/dbs/sets")
	names := exposed(w.Header())
	if len(names) == 0 {
		t.Fatalf("no Access-Control-Expose-Headers: %v", w.Header())
	}
	for _, name := range apiref.DocumentedHeaders() {
		name = http.CanonicalHeaderKey(name)
		if !slices.Contains(names, name) && !slices.Contains(corsSafelisted, name) {
			t.Errorf("%s is in the OpenAPI document but not in Access-Control-Expose-Headers %q", name, names)
		}
	}
	for _, name := range []string{"Last-Modified", "Content-Range", "Accept-Ranges", "ETag", "Content-Encoding"} {
		if !slices.Contains(names, http.CanonicalHeaderKey(name)) {
			t.Errorf("%s is not exposed: %q", name, names)
		}
	}
	if slices.Contains(names, "*") {
		t.Error("the wildcard: older browsers take it as a header name")
	}
}

// TestCORSOnRealAnswers: the answers that carry the headers a browser caller
// needs (a resumed bulk download, a compressed answer, its 304, an image, a
// 401) say they may be read, and do carry them.
func TestCORSOnRealAnswers(t *testing.T) {
	bh, _, _ := bulkHandler(t)
	h := fixtureHandler(t)
	ih := imageHandler(t, newFakeCDN(t))
	compressed := get(h, "/dbs/sets/FB01", "Accept-Encoding", "br")
	cases := []struct {
		name    string
		w       http.Header
		headers []string
	}{
		{"bulk download, Range", get(bh, "/dbs/bulk/"+bulk.CardsFile, "Range", "bytes=0-9").Header(),
			[]string{"Content-Range", "Accept-Ranges", "Last-Modified", "ETag", "Content-Disposition"}},
		{"compressed", compressed.Header(), []string{"Content-Encoding", "Vary", "ETag", "X-Request-Id"}},
		{"304", get(h, "/dbs/sets/FB01", "Accept-Encoding", "br", "If-None-Match", compressed.Header().Get("ETag")).Header(),
			[]string{"ETag", "Vary"}},
		{"image", get(ih, "/dbs/images/"+catalog.TCGCardID("dbs", 535600)).Header(), []string{"X-Image-Size", "ETag"}},
		{"401", get(h, "/dbs/sets", "X-API-Key", "").Header(), []string{"WWW-Authenticate"}},
	}
	for _, tc := range cases {
		names := exposed(tc.w)
		for _, name := range tc.headers {
			if tc.w.Get(name) == "" {
				t.Errorf("%s: no %s (the test expects the answer to carry it): %v", tc.name, name, tc.w)
			}
			if !slices.Contains(names, http.CanonicalHeaderKey(name)) {
				t.Errorf("%s: %s is not in Access-Control-Expose-Headers %q", tc.name, name, names)
			}
		}
		if tc.w.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("%s: Access-Control-Allow-Origin %q", tc.name, tc.w.Get("Access-Control-Allow-Origin"))
		}
	}
}
