package images_test

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/images"
)

func TestWrite(t *testing.T) {
	body := []byte("\x89PNG\r\n\x1a\n image")
	img := &images.Image{Body: body, ContentType: "image/png", ETag: images.ETagOf(body), FetchedAt: time.Unix(1700000000, 0)}
	etag := img.ETag
	tests := []struct {
		name        string
		ifNoneMatch []string
		want        int
	}{
		{"no condition", nil, http.StatusOK},
		{"same tag", []string{etag}, http.StatusNotModified},
		{"weak form of the tag", []string{"W/" + etag}, http.StatusNotModified},
		{"in a list", []string{`"aaa", W/"bbb",` + etag + `, "ccc"`}, http.StatusNotModified},
		{"list without spaces", []string{`"aaa",` + etag}, http.StatusNotModified},
		{"in a second field line", []string{`"aaa"`, etag}, http.StatusNotModified},
		{"star", []string{"*"}, http.StatusNotModified},
		{"other tag", []string{`"0123"`}, http.StatusOK},
		{"unquoted tag", []string{etag[1 : len(etag)-1]}, http.StatusOK},
		{"tag as a prefix", []string{etag[:len(etag)-2] + `"`}, http.StatusOK},
		{"malformed before the tag", []string{`"aaa" junk, ` + etag}, http.StatusOK},
		{"unterminated", []string{`"` + etag}, http.StatusOK},
		{"empty", []string{""}, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/dbs/images/dbs_0011", nil)
			for _, v := range tt.ifNoneMatch {
				r.Header.Add("If-None-Match", v)
			}
			w := httptest.NewRecorder()
			images.Write(w, r, img)
			if w.Code != tt.want {
				t.Fatalf("status %d, want %d", w.Code, tt.want)
			}
			h := w.Result().Header
			for name, want := range map[string]string{
				"Cache-Control": "public, max-age=86400",
				"ETag":          etag,
				"X-Image-Size":  "unsized",
			} {
				if got := h.Get(name); got != want {
					t.Errorf("%s: %q, want %q", name, got, want)
				}
			}
			if tt.want == http.StatusNotModified {
				if w.Body.Len() != 0 || h.Get("Content-Type") != "" {
					t.Errorf("304 carried a body (%d bytes) or a Content-Type (%q)", w.Body.Len(), h.Get("Content-Type"))
				}
				return
			}
			if w.Body.String() != string(body) {
				t.Errorf("body %q, want %q", w.Body.String(), body)
			}
			if h.Get("Content-Type") != "image/png" || h.Get("Content-Length") != strconv.Itoa(len(body)) ||
				h.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("headers %v", h)
			}
		})
	}
}

// A 304 revalidation end to end: the ETag of a first answer, sent back, gets
// a 304 until the image changes upstream after 24 hours.
func TestRevalidation(t *testing.T) {
	e := newEnv(t, nil)
	serve := func(ifNoneMatch string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodGet, "/dbs/images/x", nil)
		if ifNoneMatch != "" {
			r.Header.Set("If-None-Match", ifNoneMatch)
		}
		img, err := e.svc.Get(r.Context(), 77)
		if err != nil {
			t.Fatal(err)
		}
		w := httptest.NewRecorder()
		images.Write(w, r, img)
		return w
	}
	first := serve("")
	etag := first.Header().Get("ETag")
	if first.Code != http.StatusOK || etag == "" {
		t.Fatalf("first answer: %d, ETag %q", first.Code, etag)
	}
	if w := serve(etag); w.Code != http.StatusNotModified {
		t.Fatalf("revalidation: %d, want 304", w.Code)
	}
	e.cdn.set(func(w http.ResponseWriter, _ *http.Request, _ int) {
		w.Header().Set("Content-Type", "image/jpeg")
		w.Write([]byte("a new scan"))
	})
	e.clock.Add(24 * time.Hour)
	w := serve(etag)
	if w.Code != http.StatusOK || w.Body.String() != "a new scan" || w.Header().Get("ETag") == etag {
		t.Fatalf("after the image changed: %d %q ETag %q", w.Code, w.Body.String(), w.Header().Get("ETag"))
	}
}
