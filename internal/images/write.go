package images

import (
	"net/http"
	"strconv"
	"strings"
)

// CacheControl is the Cache-Control of an image response: 24 hours.
const CacheControl = "public, max-age=86400"

// Write answers r with img: 200 with the body, or 304 Not Modified when r's
// If-None-Match matches img's ETag (weak comparison, lists and "*", as RFC
// 9110 section 13.1.2 says). Either way it sets Cache-Control, ETag and
// X-Image-Size: unsized; the 200 also carries the stored Content-Type.
func Write(w http.ResponseWriter, r *http.Request, img *Image) {
	h := w.Header()
	h.Set("Cache-Control", CacheControl)
	h.Set("ETag", img.ETag)
	h.Set("X-Image-Size", "unsized")
	if noneMatch := r.Header.Values("If-None-Match"); len(noneMatch) > 0 && etagListMatches(noneMatch, img.ETag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", img.ContentType)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Length", strconv.Itoa(len(img.Body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(img.Body) // a failed write means the client went away
}

// etagListMatches reports whether any If-None-Match field value matches etag
// by weak comparison. A malformed member ends the scan of its field value.
func etagListMatches(fields []string, etag string) bool {
	etag = strings.TrimPrefix(etag, "W/")
	for _, field := range fields {
		s := field
		for {
			s = strings.TrimLeft(s, " \t,")
			if s == "" {
				break
			}
			if s[0] == '*' {
				return true
			}
			tag, rest, ok := cutEntityTag(s)
			if !ok {
				break
			}
			if tag == etag {
				return true
			}
			s = rest
		}
	}
	return false
}

// cutEntityTag splits the entity-tag at the start of s, returning its opaque
// tag (quotes kept, W/ dropped) and the rest.
func cutEntityTag(s string) (tag, rest string, ok bool) {
	s = strings.TrimPrefix(s, "W/")
	if len(s) < 2 || s[0] != '"' {
		return "", "", false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			return s[:i+1], s[i+1:], true
		case c == 0x21 || c >= 0x23 && c != 0x7f: // etagc
		default:
			return "", "", false
		}
	}
	return "", "", false
}
