package httpapi

import (
	"net/http"

	"github.com/cardcat/cardcat/internal/apiref"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/mcpserver"
)

// The reference (internal/apiref) is rendered from the route table once, in
// New, and served as bytes.

// GET /openapi.json: the OpenAPI document of every route.
func (s *Server) handleOpenAPI(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Cache-Control", "public, max-age=3600")
	writeBody(w, http.StatusOK, s.openapiBody)
	return nil
}

// GET /llms.txt: a plain-text guide for AI assistants.
func (s *Server) handleLLMs(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Cache-Control", "public, max-age=3600")
	writeText(w, "text/plain; charset=utf-8", s.llmsBody)
	return nil
}

// Reference is the API's reference for the games of reg, served at
// publicURL by a build of version: what GET /openapi.json and GET /llms.txt
// are rendered from, made without a server (the clients' document is).
func Reference(reg *game.Registry, publicURL, version string) *apiref.Reference {
	// The table's handlers are method values of a Server, bound, not
	// called: a nil one binds as well as any.
	var s *Server
	return reference(s.routeTable(), reg, publicURL, version)
}

func reference(table []route, reg *game.Registry, publicURL, version string) *apiref.Reference {
	ref := &apiref.Reference{Games: reg, PublicURL: publicURL, Version: version,
		Pages: apiref.Pages{SetDefault: setPageDefault, SetMax: setPageMax, SearchDefault: searchPageDefault, SearchMax: searchPageMax},
		MCP:   apiref.MCP{Path: mcpPath, MaxBody: mcpserver.MaxBody},
	}
	for i := range table {
		ref.Routes = append(ref.Routes, table[i].ref())
	}
	for _, t := range mcpserver.Tools {
		for i := range table {
			if table[i].Label == t.Label {
				ref.MCP.Tools = append(ref.MCP.Tools, apiref.MCPTool{Name: t.Name, Path: table[i].Path})
			}
		}
	}
	return ref
}
