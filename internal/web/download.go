package web

import (
	"io"
	"net/http"
	"strings"
	"time"
)

// ServeDownload writes a file of many megabytes, or the one byte range
// asked for (http.ServeContent: 206, If-Range), for as long as the client
// keeps taking it: each piece moves the write deadline on by stall, so a
// slow download takes the time it needs and one whose client stopped
// reading is cut. A request of several ranges gets the whole file; a Range
// that asks for no byte is answered by rangeRefused instead of net/http's
// plain text. The caller has set the headers (Content-Type, ETag) and
// answered any If-None-Match.
func ServeDownload(w http.ResponseWriter, r *http.Request, f io.ReadSeeker, name string, modified time.Time, stall time.Duration, rangeRefused func(http.ResponseWriter)) {
	if severalRanges(r.Header["Range"]) {
		// net/http would answer them as a multipart of one part per
		// range, overlapping ones too: one request, counted once, of
		// thousands of one-byte ranges would answer many times the file.
		r = withoutRange(r)
	}
	var out http.ResponseWriter = &rangeErrorWriter{ResponseWriter: w, refuse: rangeRefused}
	// A server's write timeout is made for JSON answers, written at once; a
	// download of hundreds of megabytes may take far longer.
	rc := http.NewResponseController(w)
	if rc.SetWriteDeadline(time.Now().Add(stall)) == nil {
		out = &progressWriter{ResponseWriter: out, rc: rc, stall: stall}
		defer endProgressDeadline(r, rc)
	}
	http.ServeContent(out, r, name, modified, f)
}

// progressChunk is how much of a download is written under one deadline:
// a client must take this much every the stall timeout.
const progressChunk = 32 << 10

// progressWriter writes a download in pieces of progressChunk, each with a
// write deadline of its own, the stall timeout from when it is written: a
// download lasts as long as its client keeps taking pieces, and is cut when
// the client has taken nothing for that long. (The deadlines are the
// network's: time.Now, not the server's clock.)
type progressWriter struct {
	http.ResponseWriter
	rc    *http.ResponseController
	stall time.Duration
}

func (w *progressWriter) Write(p []byte) (n int, err error) {
	for len(p) > 0 {
		chunk := p[:min(len(p), progressChunk)]
		if err := w.rc.SetWriteDeadline(time.Now().Add(w.stall)); err != nil {
			return n, err
		}
		m, err := w.ResponseWriter.Write(chunk)
		n += m
		if err != nil {
			return n, err
		}
		p = p[m:]
	}
	return n, nil
}

func (w *progressWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// endProgressDeadline leaves the connection with the write deadline the
// server gives the next request: net/http sets one before reading it when
// the server has a WriteTimeout; without one, the download's last deadline
// would still cut the connection's next answers, so it is lifted once the
// download is flushed.
func endProgressDeadline(r *http.Request, rc *http.ResponseController) {
	if srv, _ := r.Context().Value(http.ServerContextKey).(*http.Server); srv != nil && srv.WriteTimeout > 0 {
		return
	}
	if rc.Flush() == nil {
		rc.SetWriteDeadline(time.Time{})
	}
}

// severalRanges reports whether the Range header fields ask for more than
// one range: more than one field, or a byte range set of more than one
// range (empty elements of the list not counted, as net/http counts them).
func severalRanges(fields []string) bool {
	if len(fields) != 1 {
		return len(fields) > 1
	}
	set, ok := strings.CutPrefix(fields[0], "bytes=")
	if !ok {
		return false // no byte range: ServeContent refuses it (416)
	}
	n := 0
	for set != "" {
		var spec string
		spec, set, _ = strings.Cut(set, ",")
		if strings.TrimSpace(spec) != "" {
			n++
		}
	}
	return n > 1
}

// withoutRange is r without its Range header fields.
func withoutRange(r *http.Request) *http.Request {
	r2 := new(http.Request)
	*r2 = *r
	r2.Header = r.Header.Clone()
	r2.Header.Del("Range")
	return r2
}

// rangeErrorWriter turns http.ServeContent's plain-text 416 into the
// caller's answer; every other answer passes through.
type rangeErrorWriter struct {
	http.ResponseWriter
	refuse  func(http.ResponseWriter)
	refused bool
}

func (w *rangeErrorWriter) WriteHeader(status int) {
	if status != http.StatusRequestedRangeNotSatisfiable {
		w.ResponseWriter.WriteHeader(status)
		return
	}
	w.refused = true
	w.refuse(w.ResponseWriter)
}

func (w *rangeErrorWriter) Write(p []byte) (int, error) {
	if w.refused {
		return len(p), nil
	}
	return w.ResponseWriter.Write(p)
}

func (w *rangeErrorWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
