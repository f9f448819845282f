// Package cardcat holds what the binary embeds from the repository root.
package cardcat

import (
	"embed"
	"io/fs"
)

//go:embed sample/tcgplayer sample/cardmarket sample/links
var sampleFS embed.FS

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
