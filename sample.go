// Package cardcat holds what the binary embeds from the repository root.
package cardcat

import (
	"embed"
	"io/fs"
)

//go:embed sample/tcgplayer sample/cardmarket sample/links
var sampleFS embed.FS

//go:embed docs/api.md docs/changelog.md
var docsFS embed.FS

// Docs holds the API's documentation for its callers, which the API serves
// at GET /docs (the docs link of every "Endpoint not found"): api.md (keys,
// every endpoint, errors, rate limits and every behaviour a caller sees),
// rendered as the guide pages and served as it is at /docs/api.md, and
// changelog.md. The README is for contributors and docs/operations.md for
// operators; neither is served.
func Docs() fs.FS {
	sub, err := fs.Sub(docsFS, "docs")
	if err != nil {
		panic(err) // the embedded paths are fixed at build time
	}
	return sub
}

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
