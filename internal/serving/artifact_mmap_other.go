//go:build !unix

package serving

import (
	"errors"
	"os"
)

// mapFile does not map files here: ReadArtifact reads them.
func mapFile(*os.File, int64) (*mapping, error) {
	return nil, errors.New("serving: files are not mapped on this system")
}

func munmap([]byte) {}
