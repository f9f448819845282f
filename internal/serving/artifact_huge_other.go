//go:build !linux

package serving

import (
	"errors"
	"os"
)

// hugeShare: see artifact_huge_linux.go; elsewhere nothing is measured.
type hugeShare struct {
	Before, After, Whole int64
	Reread               bool
}

var errArtifactChanged = errors.New("serving: the artifact changed on disk while mapped")

func adviseHuge([]byte) {}

func fileID(*os.File) (dev, ino uint64) { return 0, 0 }

// settleHuge does nothing where huge pages of files are not known.
func settleHuge(string, *mapping) (hugeShare, error) { return hugeShare{}, nil }
