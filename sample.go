// Package cardcat holds what the binary embeds from the repository root.
package cardcat

import (
	"embed"
	"io/fs"
)

//go:embed sample/tcgplayer sample/cardmarket sample/links
var sampleFS embed.FS

//go:embed docs/api.md
var apiDocs []byte

// Docs is docs/api.md, the API's documentation for its callers, which the
// API serves at GET /docs (the docs link of every "Endpoint not found"):
// keys, every endpoint, errors, rate limits and every behaviour a caller
// sees. The README is for contributors and docs/operations.md for
// operators; neither is served.
func Docs() []byte { return apiDocs }

// Sample is the bundled sample mirror (real TCGplayer catalogue files plus
// generated prices and Cardmarket files; see sample/README.md), laid out like
// a mirror directory: tcgplayer/, cardmarket/, links/.
func Sample() fs.FS {
	sub, err := fs.Sub(sampleFS, "sample")
	if err != nil {
		panic(err) // the embedded paths are fixed at build time
	}
	return sub
}
