package httpapi

import (
	"net/http"

	"github.com/cardcat/cardcat/internal/etag"
	"github.com/cardcat/cardcat/internal/web"
)

// compression is what writeBody needs to compress a request's answer, kept
// in its recorder: the request's Accept-Encoding and the server's cache.
type compression struct {
	accept []string
	cache  *web.EncodedCache
}

// compressionOf finds the request's compression through the writers that
// wrap its recorder; nil outside the chain.
func compressionOf(w http.ResponseWriter) *compression {
	for {
		switch ww := w.(type) {
		case *recorder:
			return &ww.compression
		case interface{ Unwrap() http.ResponseWriter }:
			w = ww.Unwrap()
		default:
			return nil
		}
	}
}

// writeOK sends a JSON 200 body that is the same for the whole catalogue
// version, held in body or (when body is nil) in str: tagged and revalidated
// on keyed routes, compressed when it is worth it and the request accepts a
// coding we have, the compressed variant kept.
func writeOK(w http.ResponseWriter, body []byte, str string) {
	writeAnswer(w, web.Kept, jsonContentType, body, str, "")
}

// writeText sends a public text body made once per process (/llms.txt,
// /docs/api.md), compressed like the JSON answers.
func writeText(w http.ResponseWriter, contentType string, body []byte) {
	writeAnswer(w, web.Kept, []string{contentType}, body, "", "")
}

// writeMade sends a 200 body made for this request (a search, a batch, the
// change feed, a price history): tagged like the others, compressed at a
// fast level and not kept.
func writeMade(w http.ResponseWriter, contentType []string, body []byte) {
	writeAnswer(w, web.Made, contentType, body, "", "")
}

// writeAnswer sends a 200 of a body of the kind, held in body or (when body
// is nil) in str. tag is the body's identity tag when the caller knows it
// ("": hashed here when needed). It returns the identity tag when it was
// needed (a keyed route, or a compressed answer), "" otherwise.
func writeAnswer(w http.ResponseWriter, kind web.BodyKind, contentType []string, body []byte, str, tag string) string {
	comp := compressionOf(w)
	h := w.Header()
	if comp != nil {
		h["Vary"] = web.VaryAcceptEncoding
	}
	n := len(body)
	if body == nil {
		n = len(str)
	}
	c := web.Identity
	if comp != nil && comp.cache != nil && n >= web.CompressAbove {
		c = web.Negotiate(comp.accept, kind)
	}
	if tag == "" && c != web.Identity {
		if body == nil {
			tag = etag.OfString(str)
		} else {
			tag = etag.Of(body)
		}
	}
	if c == web.Identity {
		if body == nil {
			sendBodyString(w, contentType, str)
		} else {
			sendBody(w, contentType, body)
		}
		return tag
	}
	var enc []byte
	if kind == web.Kept {
		enc = comp.cache.Get(tag, c, body, str)
	} else {
		if body == nil {
			body = []byte(str)
		}
		enc = web.Encode(c, kind, body)
	}
	h["Content-Encoding"] = web.ContentEncoding[c]
	sendBody(w, contentType, enc)
	return tag
}

// sendBody writes a 200 of body as it is (identity or already compressed).
func sendBody(w http.ResponseWriter, contentType []string, body []byte) {
	w.Header()["Content-Type"] = contentType
	setContentLength(w, len(body))
	w.WriteHeader(http.StatusOK)
	w.Write(body)
}

func sendBodyString(w http.ResponseWriter, contentType []string, body string) {
	w.Header()["Content-Type"] = contentType
	setContentLength(w, len(body))
	w.WriteHeader(http.StatusOK)
	if sw, ok := w.(interface{ WriteString(string) (int, error) }); ok {
		sw.WriteString(body)
		return
	}
	w.Write([]byte(body))
}
