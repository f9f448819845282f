package web

import (
	"net/http"
	"strings"
)

// Field is one of the header fields the API's chain sets on most answers.
// A Response keeps them in slots of its own rather than in net/http's map
// (SetField): on a OneWriteListener's connection their lines are written
// once, in the order net/http would write them, and spliced into
// net/http's header (onewrite.go), where a map of some fifteen fields
// cost net/http 3-4 µs an answer to fill, clone, sort and write (growing
// the map, Header.Clone, writeSubset; bench/README.md, "Header fields
// outside net/http's map").
type Field uint8

// The fields, in the order of their canonical names (net/http writes a
// header's fields sorted by name; TestFieldNames).
const (
	FieldAccessControlAllowOrigin Field = iota
	FieldAccessControlExposeHeaders
	FieldAllow
	FieldCacheControl
	FieldContentEncoding
	FieldContentLength
	FieldContentType
	FieldEtag
	FieldRetryAfter
	FieldStrictTransportSecurity
	FieldVary
	FieldWWWAuthenticate
	FieldXContentTypeOptions
	FieldXRatelimitLimitDay
	FieldXRatelimitLimitHour
	FieldXRatelimitRemainingDay
	FieldXRatelimitRemainingHour
	FieldXRequestID
	numFields
)

// fieldNames are the fields' canonical names, as http.CanonicalHeaderKey
// gives them and net/http's map holds them.
var fieldNames = [numFields]string{
	"Access-Control-Allow-Origin",
	"Access-Control-Expose-Headers",
	"Allow",
	"Cache-Control",
	"Content-Encoding",
	"Content-Length",
	"Content-Type",
	"Etag",
	"Retry-After",
	"Strict-Transport-Security",
	"Vary",
	"Www-Authenticate",
	"X-Content-Type-Options",
	"X-Ratelimit-Limit-Day",
	"X-Ratelimit-Limit-Hour",
	"X-Ratelimit-Remaining-Day",
	"X-Ratelimit-Remaining-Hour",
	"X-Request-Id",
}

var fieldOf = func() map[string]Field {
	m := make(map[string]Field, numFields)
	for f, name := range fieldNames {
		m[name] = Field(f)
	}
	return m
}()

// FieldOf is the Field of a canonical header name, if it is one.
func FieldOf(canonicalKey string) (Field, bool) {
	f, ok := fieldOf[canonicalKey]
	return f, ok
}

// fields is a Response's slots, and whether they have been moved into
// net/http's map (inMap: someone asked for the map, which is then the
// header's one home).
type fields struct {
	vals  [numFields][]string
	inMap bool
}

// SetField sets the field f of the answer written to w to v (never changed
// afterwards: the slice is kept, not copied): in w's slots when w is a
// Response whose header has not been asked for as a map, else in the map.
func SetField(w http.ResponseWriter, f Field, v []string) {
	if rec, ok := w.(*Response); ok && !rec.fields.inMap {
		rec.fields.vals[f] = v
		return
	}
	w.Header()[fieldNames[f]] = v
}

// DelField removes the field f of the answer written to w.
func DelField(w http.ResponseWriter, f Field) {
	if rec, ok := w.(*Response); ok && !rec.fields.inMap {
		rec.fields.vals[f] = nil
		return
	}
	delete(w.Header(), fieldNames[f])
}

// Header is the answer's header as net/http's map, the fields set so far
// moved into it: from then on the map is their one home, so that code
// written for http.Header (http.ServeContent, the MCP server, a reply's
// own fields) sees and changes the same header as SetField.
func (rec *Response) Header() http.Header {
	h := rec.ResponseWriter.Header()
	if !rec.fields.inMap {
		rec.fields.inMap = true
		rec.fields.moveTo(h)
	}
	return h
}

// Unwrap gives the writer under rec, the fields first moved into its map:
// what is written through it directly (http.ResponseController) carries
// them.
func (rec *Response) Unwrap() http.ResponseWriter {
	rec.Header()
	return rec.ResponseWriter
}

// moveTo sets the fields set so far in h and empties the slots.
func (fs *fields) moveTo(h http.Header) {
	for f, v := range fs.vals {
		if v != nil {
			h[fieldNames[f]] = v
		}
	}
	fs.vals = [numFields][]string{}
}

// appendLines appends the fields' lines as net/http writes a header's
// fields: in the order of their names, one line a value, CR and LF in a
// value made spaces and the value trimmed of spaces and tabs; without those
// net/http drops from an answer of the status (suppressed).
func (fs *fields) appendLines(b []byte, status int) []byte {
	for f, vs := range fs.vals {
		if vs == nil || suppressed(Field(f), status) {
			continue
		}
		for _, v := range vs {
			b = append(b, fieldNames[f]...)
			b = append(b, ": "...)
			b = appendFieldValue(b, v)
			b = append(b, "\r\n"...)
		}
	}
	return b
}

// suppressed reports whether net/http leaves the field out of an answer
// of the status: a 304 has no Content-Type or Content-Length, an answer
// that may not have a body (1xx, 204) no Content-Length.
func suppressed(f Field, status int) bool {
	switch f {
	case FieldContentType:
		return status == http.StatusNotModified
	case FieldContentLength:
		return status == http.StatusNotModified || status == http.StatusNoContent || (status >= 100 && status < 200)
	}
	return false
}

// appendFieldValue appends v as net/http's Header.Write does: CR and LF
// replaced by spaces, then leading and trailing spaces and tabs trimmed.
func appendFieldValue(b []byte, v string) []byte {
	if strings.IndexByte(v, '\n') < 0 && strings.IndexByte(v, '\r') < 0 && (v == "" || !isSpaceOrTab(v[0]) && !isSpaceOrTab(v[len(v)-1])) {
		return append(b, v...) // the fields the chain sets: as they are
	}
	v = strings.NewReplacer("\n", " ", "\r", " ").Replace(v)
	return append(b, strings.Trim(v, " \t")...)
}

func isSpaceOrTab(c byte) bool { return c == ' ' || c == '\t' }
