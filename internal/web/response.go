package web

import (
	"net"
	"net/http"
	"strconv"
	"time"
	"unsafe"

	"github.com/cardcat/cardcat/internal/etag"
)

// Response is the ResponseWriter every answer is written through: it
// records the answer's status and size (for the access log and the
// metrics), and carries what a body may be compressed with: the request's
// Accept-Encoding and the server's cache of compressed variants.
type Response struct {
	http.ResponseWriter
	Status int // 0 until the answer starts
	Bytes  int // of the body written

	clen   [1]string // the Content-Length header's value slice
	accept []string  // the request's Accept-Encoding field values
	cache  *EncodedCache
	conn   *oneWriteConn // the connection, when a body sent whole may leave in one write
	fields fields        // the header fields set with SetField (fields.go)
	splice bool          // the fields' lines may be spliced into net/http's header on conn
}

// Reset makes rec the Response of an answer written to w, for a request
// that accepts the codings accept; cache keeps compressed variants (nil
// compresses nothing).
func (rec *Response) Reset(w http.ResponseWriter, accept []string, cache *EncodedCache) {
	if _, ok := w.(interface{ WriteString(string) (int, error) }); !ok {
		w = stringWriter{w} // WriteString needs it; net/http's writer has it
	}
	*rec = Response{ResponseWriter: w, accept: accept, cache: cache}
}

// SendsOn says that the answer to r is written on conn (nil: on a
// connection that is not a OneWriteListener's), so that a body sent whole
// leaves in one write and the header fields set with SetField are spliced
// into net/http's header rather than given to its map. Only for requests
// without a body, over HTTP/1.x: net/http writes nothing else on the
// connection between the answer's WriteHeader and its header (no 100
// Continue).
func (rec *Response) SendsOn(conn net.Conn, r *http.Request) {
	rec.conn, _ = conn.(*oneWriteConn)
	if rec.conn == nil {
		return
	}
	rec.conn.head = nil // an answer never sent (a connection being closed) leaves nothing behind
	rec.splice = r.ProtoMajor == 1 && r.ContentLength == 0 && len(r.TransferEncoding) == 0
}

func (rec *Response) WriteHeader(code int) {
	if rec.Status == 0 {
		rec.Status = code
	}
	if !rec.fields.inMap {
		rec.sendFields(code)
	}
	rec.ResponseWriter.WriteHeader(code)
}

// sendFields hands the fields set with SetField to net/http as the answer
// of status code starts: as lines the connection splices into the header
// net/http writes, when it can (SendsOn, a final status, nothing else in
// net/http's map: its fields would then have to be sorted among them),
// else in net/http's map. Net/http's map is told what it needs to know: that
// there is a Content-Type (it would sniff one otherwise) and the
// Content-Length (the body's framing).
func (rec *Response) sendFields(code int) {
	h := rec.ResponseWriter.Header()
	rec.fields.inMap = true // later fields go to the map, which net/http has copied by then, as before
	if !rec.splice || code < 200 || len(h) != 0 {
		rec.fields.moveTo(h)
		return
	}
	fs := &rec.fields
	c := rec.conn
	c.lines = fs.appendLines(c.lines[:0], code)
	if fs.vals[FieldContentType] != nil {
		h["Content-Type"] = nil // present, so not sniffed; no values, so not written
	}
	cl := fs.vals[FieldContentLength]
	if cl != nil {
		h["Content-Length"] = cl
	}
	h["Date"] = nil // present, so net/http formats none; the connection writes the second's (dateLine)
	c.spliceHeader(c.lines, dateLine(time.Now()), cl != nil && !suppressed(FieldContentLength, code))
	fs.vals = [numFields][]string{}
}

func (rec *Response) Write(b []byte) (int, error) {
	if rec.Status == 0 {
		rec.WriteHeader(http.StatusOK)
	}
	n, err := rec.ResponseWriter.Write(b)
	rec.Bytes += n
	return n, err
}

func (rec *Response) WriteString(str string) (int, error) {
	if rec.Status == 0 {
		rec.WriteHeader(http.StatusOK)
	}
	n, err := rec.ResponseWriter.(interface{ WriteString(string) (int, error) }).WriteString(str)
	rec.Bytes += n
	return n, err
}

// Written reports whether the answer has started.
func (rec *Response) Written() bool { return rec.Status != 0 }

// Coding is the content coding of a body of the kind, n bytes long: the
// one the request prefers when the body is worth compressing, else Identity.
// A nil Response (outside the chain) compresses nothing.
func (rec *Response) Coding(kind BodyKind, n int) Coding {
	if rec == nil || rec.cache == nil || n < CompressAbove {
		return Identity
	}
	return Negotiate(rec.accept, kind)
}

// Compresses reports whether an answer may be compressed at all: the
// request accepts a coding and there is a cache of variants (a body's length
// need not be known otherwise).
func (rec *Response) Compresses() bool { return rec != nil && rec.cache != nil && len(rec.accept) > 0 }

// Cache is the cache of compressed variants.
func (rec *Response) Cache() *EncodedCache { return rec.cache }

// ResponseOf finds the Response under w, through the writers that wrap it
// (their Unwrap); nil when there is none.
func ResponseOf(w http.ResponseWriter) *Response {
	for {
		switch ww := w.(type) {
		case *Response:
			return ww
		case interface{ Unwrap() http.ResponseWriter }:
			w = ww.Unwrap()
		default:
			return nil
		}
	}
}

type stringWriter struct{ http.ResponseWriter }

func (w stringWriter) WriteString(s string) (int, error) { return w.ResponseWriter.Write([]byte(s)) }

func (w stringWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// chunkingAbove is net/http's bufferBeforeChunkingSize: a body of at most
// this many bytes written before the handler returns gets its
// Content-Length from net/http, outside the header map.
const chunkingAbove = 2048

// SetContentLength sets the Content-Length header of an answer of n bytes
// when net/http would not (a body over chunkingAbove), in the Response's
// own slice when w is one.
func SetContentLength(w http.ResponseWriter, n int) {
	if n <= chunkingAbove {
		return // net/http adds it
	}
	v := strconv.Itoa(n)
	if rec, ok := w.(*Response); ok {
		rec.clen[0] = v
		SetField(w, FieldContentLength, rec.clen[:])
		return
	}
	SetField(w, FieldContentLength, []string{v})
}

// SendBody writes a 200 of body as it is (identity or already compressed).
func SendBody(w http.ResponseWriter, contentType []string, body []byte) {
	SendParts(w, contentType, body)
}

// SendBodyString is SendBody of a body held in a string, not copied: its
// bytes are written as a slice (a Write never modifies what it is given),
// since net/http writes a string through its 2 kB buffer in as many
// system calls as it fills (ten for a body of 45 kB, against two).
func SendBodyString(w http.ResponseWriter, contentType []string, body string) {
	SendBody(w, contentType, unsafe.Slice(unsafe.StringData(body), len(body)))
}

// WriteAnswer sends a 200 of a body of the kind, held in body or (when body
// is nil) in str, without an ETag (a public answer): compressed when it is
// worth it and the request accepts a coding we have, a kept body's
// compressed variant kept, under its identity tag.
func WriteAnswer(w http.ResponseWriter, kind BodyKind, contentType []string, body []byte, str string) {
	rec := ResponseOf(w)
	if rec != nil {
		SetField(w, FieldVary, VaryAcceptEncoding)
	}
	n := len(body)
	if body == nil {
		n = len(str)
	}
	c := rec.Coding(kind, n)
	if c == Identity {
		if body == nil {
			SendBodyString(w, contentType, str)
		} else {
			SendBody(w, contentType, body)
		}
		return
	}
	SetField(w, FieldContentEncoding, ContentEncoding[c])
	if kind == Kept {
		var tag string
		if body == nil {
			tag = etag.OfString(str)
		} else {
			tag = etag.Of(body)
		}
		v := rec.cache.Get(tag, c, body, str)
		defer v.Release()
		SendBody(w, contentType, v.Bytes())
		return
	}
	if body == nil {
		body = []byte(str)
	}
	SendBody(w, contentType, Encode(c, kind, body))
}

// FirstValue is h.Get(key) for a key already in canonical form: read
// straight from the map, without canonicalising key anew per request.
func FirstValue(h http.Header, canonicalKey string) string {
	if v := h[canonicalKey]; len(v) > 0 {
		return v[0]
	}
	return ""
}
