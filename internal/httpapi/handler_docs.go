package httpapi

import (
	"net/http"

	"github.com/cardcat/cardcat/internal/site"
)

// The docs site (internal/site), public and never counted: GET /docs and
// the pages and assets below it. What the site lacks is the API's 404.

// GET /docs: the API reference.
func (s *Server) handleDocs(w http.ResponseWriter, r *http.Request) error {
	if s.site == nil || !s.site.ServePage(w, r, "") {
		return s.endpointNotFound(r)
	}
	return nil
}

// GET /docs/{page}: a guide page, or docs/api.md as Markdown.
func (s *Server) handleDocsPage(w http.ResponseWriter, r *http.Request) error {
	name := pathValue(r, "page")
	switch {
	case s.site == nil || name == "":
		return s.endpointNotFound(r)
	case name == site.MarkdownName:
		s.site.ServeMarkdown(w, r)
	case !s.site.ServePage(w, r, name):
		return s.endpointNotFound(r)
	}
	return nil
}

// GET /docs/assets/{file}: the site's scripts and styles.
func (s *Server) handleDocsAsset(w http.ResponseWriter, r *http.Request) error {
	if s.site == nil || !s.site.ServeAsset(w, r, pathValue(r, "file")) {
		return s.endpointNotFound(r)
	}
	return nil
}
