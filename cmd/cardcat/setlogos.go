package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/cardcat/cardcat"
	"github.com/cardcat/cardcat/internal/images"
)

// setLogosFile is TCGdex's set list, which pairs TCGplayer groups with the
// TCGdex sets whose logos GET /sets/{set}/image serves.
const setLogosFile = "links/pokemon-tcgdex/sets.csv"

// openSetLogos reads the operator's set list, {data-dir}/links/pokemon-tcgdex/sets.csv,
// or else the bundled sample's. It returns where it read it from.
func openSetLogos(dataDir string) (*images.SetLogos, string, error) {
	path := filepath.Join(dataDir, filepath.FromSlash(setLogosFile))
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		sample, err := cardcat.Sample().Open(setLogosFile)
		if err != nil {
			return nil, "", err
		}
		defer sample.Close()
		logos, err := images.ReadSetLogos(sample)
		return logos, "the bundled sample's " + setLogosFile, err
	}
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	logos, err := images.ReadSetLogos(f)
	if err != nil {
		return nil, "", errors.Join(errors.New(path), err)
	}
	return logos, path, nil
}
