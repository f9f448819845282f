// Package openapidoc renders the OpenAPI document the clients are generated
// from, clients/openapi.json, and its OpenAPI 3.0 copy for oapi-codegen,
// clients/openapi-3.0.json.
//
// The document is the one `cardcat serve` answers at GET /openapi.json with
// its defaults (public URL http://localhost:8080, version "dev"): the same
// route table renders it here (apiref.OpenAPI of httpapi.Reference), without
// a server, a catalogue, a store or a listener.
// The files hold it indented, for readable diffs; compacted, it is the served
// bytes (the live tests of the clients check it against a real server).
package openapidoc

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/cardcat/cardcat/internal/apiref"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/httpapi"
)

// The defaults of `cardcat serve` the document shows: its public URL (in
// servers and the description's links) and the version of a build without
// one set by the linker.
const (
	DefaultPublicURL = "http://localhost:8080"
	DefaultVersion   = "dev"
)

// Render returns the document as `cardcat serve` serves it with its
// defaults, indented by two spaces and ending in a newline.
func Render() ([]byte, error) {
	doc, err := apiref.OpenAPI(httpapi.Reference(game.Default(), DefaultPublicURL, DefaultVersion))
	if err != nil {
		return nil, fmt.Errorf("openapidoc: %w", err)
	}
	return Indent(doc)
}

// Indent is the file form of a served document: indented by two spaces,
// ending in a newline. Key order and values are kept, so compacting the file
// gives the served bytes back.
func Indent(doc []byte) ([]byte, error) {
	var b bytes.Buffer
	if err := json.Indent(&b, doc, "", "  "); err != nil {
		return nil, fmt.Errorf("openapidoc: %w", err)
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// The files in clients/ that hold the document and its 3.0 copy.
const (
	File   = "openapi.json"
	File30 = "openapi-3.0.json"
)
