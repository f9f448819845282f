// Package apiref is the API's reference: the vocabulary the REST API's route
// table is written in (routes, operations, parameters, answers, access
// levels, error values) and what is rendered from that table, without a
// server: the OpenAPI document (GET /openapi.json) and the guide for AI
// assistants (GET /llms.txt). httpapi serves both; the clients are
// generated from the same document (clients/openapidoc).
package apiref

import "github.com/cardcat/cardcat/internal/game"

// Reference is what the reference is made of: the route table and what the
// server it documents says of itself.
type Reference struct {
	Routes    []Route
	Games     *game.Registry
	PublicURL string // the base URL callers use, no trailing slash
	Version   string // the build's version
	Pages     Pages
	MCP       MCP
}

// Pages are the page sizes of the paginated routes.
type Pages struct {
	SetDefault, SetMax       int // GET /{game}/sets/{set}
	SearchDefault, SearchMax int // GET /{game}/search
}

// MCP is the MCP endpoint, served beside the route table.
type MCP struct {
	Path    string // POST /mcp
	MaxBody int    // the largest request body, in bytes
	Tools   []MCPTool
}

// MCPTool is one tool of the MCP endpoint: the route it calls.
type MCPTool struct {
	Name string // get_card
	Path string // the route's path, /{game}/cards/{id}
}
