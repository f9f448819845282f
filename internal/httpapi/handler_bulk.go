package httpapi

import (
	"errors"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/cardcat/cardcat/internal/bulk"
	"github.com/cardcat/cardcat/internal/web"
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
		name := pathValue(r, "name")
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

// serveBulkFile writes a bulk file, or the byte range asked for
// (web.ServeDownload); a Range that asks for no byte is the API's 416.
func (s *Server) serveBulkFile(w http.ResponseWriter, r *http.Request, f *os.File, meta bulk.File, modified time.Time) {
	web.ServeDownload(w, r, f, meta.Name, modified, s.cfg.BulkStallTimeout, func(w http.ResponseWriter) {
		w.Header()["Cache-Control"] = noStore
		writeJSON(w, http.StatusRequestedRangeNotSatisfiable, errorBody{Error: errInvalidParameter,
			Message: "The Range asks for no byte of the file's " + strconv.FormatInt(meta.Size, 10) + " bytes."})
	})
}

func bulkNotBuilt(code, name string) *apiError {
	e := newError(http.StatusServiceUnavailable, errServiceUnavailable,
		"The bulk file "+name+" of the catalogue version being served is being built; retry in "+bulkRetryAfter+
			" seconds (GET /"+code+"/bulk lists the files ready).")
	e.Header = retryAfter(bulkRetryAfter)
	return e
}
