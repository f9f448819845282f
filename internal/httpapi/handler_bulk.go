package httpapi

import (
	"errors"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/cardcat/cardcat/internal/bulk"
)

// BulkFiles are the bulk files of each catalogue version (internal/bulk's
// Builder): built in the background once a version is served.
type BulkFiles interface {
	// Ready lists the files of a game's version built so far, in order.
	Ready(game string, version int64) []bulk.File
	// Open opens one: bulk.ErrUnknown for a name that is no bulk file,
	// bulk.ErrNotBuilt for one not built yet.
	Open(game string, version int64, name string) (*os.File, bulk.File, error)
}

// bulkRetryAfter is the Retry-After of a file still being built: building
// takes seconds at the sample and about a minute at a million cards
// (bench/README.md).
const bulkRetryAfter = "30"

// bulkListing is the body of GET /{game}/bulk.
type bulkListing struct {
	Success   bool       `json:"success"`
	UpdatedAt time.Time  `json:"updated_at"`
	Files     []bulkFile `json:"files"`
}

type bulkFile struct {
	Name            string  `json:"name"`
	ContentType     string  `json:"content_type"`
	ContentEncoding *string `json:"content_encoding"` // always null: served as the gzip bytes
	Size            int64   `json:"size"`
	SHA256          string  `json:"sha256"`
	URL             string  `json:"url"`
}

// GET /{game}/bulk: the bulk files of the version being served that are
// built; a file still being built is not listed.
func (s *Server) handleBulk(code string) keyedHandler {
	return func(r *http.Request) (reply, error) {
		v, _, err := s.gameSnapshot(code)
		if err != nil {
			return reply{}, err
		}
		body := bulkListing{Success: true, UpdatedAt: v.CreatedAt.UTC(), Files: []bulkFile{}}
		if s.deps.Bulk != nil {
			for _, f := range s.deps.Bulk.Ready(code, v.Version) {
				body.Files = append(body.Files, bulkFile{Name: f.Name, ContentType: bulk.ContentType,
					Size: f.Size, SHA256: f.SHA256, URL: s.deps.PublicURL + s.gamePrefix(code) + "/bulk/" + f.Name})
			}
		}
		return jsonReply(body), nil
	}
}

// GET /{game}/bulk/{name}: one bulk file of the version being served, as
// its gzip bytes, with its sha256 as a strong ETag; http.ServeContent
// answers one Range (206, 416), If-Range and If-None-Match (304). A request
// of several ranges gets the whole file (200).
func (s *Server) handleBulkFile(code string) keyedHandler {
	return func(r *http.Request) (reply, error) {
		v, _, err := s.gameSnapshot(code)
		if err != nil {
			return reply{}, err
		}
		name := r.PathValue("name")
		if !bulk.Known(name) {
			e := newError(http.StatusNotFound, errEndpointNotFound,
				"No bulk file is named "+strconv.Quote(name)+"; GET /"+code+"/bulk lists them.")
			e.Body.DidYouMean = s.gamePrefix(code) + "/bulk"
			e.Body.Docs = s.docsURL()
			return reply{}, e
		}
		if s.deps.Bulk == nil {
			return reply{}, bulkNotBuilt(code, name)
		}
		f, meta, err := s.deps.Bulk.Open(code, v.Version, name)
		switch {
		case errors.Is(err, bulk.ErrNotBuilt):
			return reply{}, bulkNotBuilt(code, name)
		case err != nil:
			return reply{}, err
		}
		disposition := []string{`attachment; filename="` + code + "-" + meta.Name + `"`}
		return reply{
			tag: `"` + meta.SHA256 + `"`,
			header: func(h http.Header) {
				h["Content-Type"] = bulkContentType
				h["Content-Disposition"] = disposition
			},
			stream: func(w http.ResponseWriter, r *http.Request) {
				s.serveBulkFile(w, r, f, meta, v.CreatedAt)
			},
			close: func() { f.Close() },
		}, nil
	}
}

var bulkContentType = []string{bulk.ContentType}

// serveBulkFile writes a bulk file, or the byte range asked for, with
// http.ServeContent.
func (s *Server) serveBulkFile(w http.ResponseWriter, r *http.Request, f *os.File, meta bulk.File, modified time.Time) {
	if severalRanges(r.Header["Range"]) {
		// net/http would answer them as a multipart of one part per
		// range, overlapping ones too: one request, counted once, of
		// thousands of one-byte ranges would answer many times the file.
		r = withoutRange(r)
	}
	var out http.ResponseWriter = &rangeErrorWriter{ResponseWriter: w, size: meta.Size}
	// The server's write timeout is made for JSON answers, written at
	// once; a download of hundreds of megabytes may take far longer.
	// It gets a deadline that moves on with each piece the client takes.
	rc := http.NewResponseController(w)
	if rc.SetWriteDeadline(time.Now().Add(s.cfg.BulkStallTimeout)) == nil {
		out = &progressWriter{ResponseWriter: out, rc: rc, stall: s.cfg.BulkStallTimeout}
		defer endProgressDeadline(r, rc)
	}
	http.ServeContent(out, r, meta.Name, modified, f)
}

// progressChunk is how much of a download is written under one deadline:
// a client must take this much every BulkStallTimeout.
const progressChunk = 32 << 10

// progressWriter writes a download in pieces of progressChunk, each with a
// write deadline of its own, BulkStallTimeout from when it is written: a
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

func bulkNotBuilt(code, name string) *apiError {
	e := newError(http.StatusServiceUnavailable, errServiceUnavailable,
		"The bulk file "+name+" of the catalogue version being served is being built; retry in "+bulkRetryAfter+
			" seconds (GET /"+code+"/bulk lists the files ready).")
	e.Header = map[string]string{"Retry-After": bulkRetryAfter}
	return e
}

// rangeErrorWriter turns http.ServeContent's plain-text 416 into the API's
// JSON error; every other answer passes through.
type rangeErrorWriter struct {
	http.ResponseWriter
	size    int64
	refused bool
}

func (w *rangeErrorWriter) WriteHeader(status int) {
	if status != http.StatusRequestedRangeNotSatisfiable {
		w.ResponseWriter.WriteHeader(status)
		return
	}
	w.refused = true
	w.Header()["Cache-Control"] = noStore
	writeJSON(w.ResponseWriter, status, errorBody{Error: errInvalidParameter,
		Message: "The Range asks for no byte of the file's " + strconv.FormatInt(w.size, 10) + " bytes."})
}

func (w *rangeErrorWriter) Write(p []byte) (int, error) {
	if w.refused {
		return len(p), nil
	}
	return w.ResponseWriter.Write(p)
}

func (w *rangeErrorWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
