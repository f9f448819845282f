package images

import (
	"net/http"
	"strconv"

	"github.com/cardcat/cardcat/internal/etag"
)

// CacheControl is the Cache-Control of an image response: 24 hours.
const CacheControl = "public, max-age=86400"

// Write answers r with img: 200 with the body, or 304 Not Modified when r's
// If-None-Match matches img's ETag (weak comparison, lists and "*", as RFC
// 9110 section 13.1.2 says). Either way it sets Cache-Control, ETag and
// X-Image-Size: unsized; the 200 also carries the stored Content-Type.
func Write(w http.ResponseWriter, r *http.Request, img *Image) {
	WriteSized(w, r, img, "unsized")
}

// WriteSized is Write with X-Image-Size: size (a game whose images have
// sizes: "low", "high").
func WriteSized(w http.ResponseWriter, r *http.Request, img *Image, size string) {
	h := w.Header()
	SetHeaders(h, size)
	h.Set("ETag", img.ETag)
	if noneMatch := r.Header.Values("If-None-Match"); len(noneMatch) > 0 && etag.NoneMatch(noneMatch, img.ETag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	WriteBody(w, img)
}

// SetHeaders sets the headers an image's 200 and 304 both have, but its
// ETag: Cache-Control and X-Image-Size.
func SetHeaders(h http.Header, size string) {
	h.Set("Cache-Control", CacheControl)
	h.Set("X-Image-Size", size)
}

// WriteBody writes the 200 of img: its Content-Type, length and bytes (the
// headers of SetHeaders and the ETag set before).
func WriteBody(w http.ResponseWriter, img *Image) {
	h := w.Header()
	h.Set("Content-Type", img.ContentType)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Length", strconv.Itoa(len(img.Body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(img.Body) // a failed write means the client went away
}
