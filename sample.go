// Package cardcat holds what the binary embeds from the repository root.
package cardcat

import (
	"embed"
	"io/fs"
)

//go:embed sample/tcgplayer sample/cardmarket sample/links
var sampleFS embed.FS

//go:embed README.md
var readme []byte

// Docs is the README, which the API serves at GET /docs: the API's routes,
// configuration and every behaviour decision.
func Docs() []byte { return readme }

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
