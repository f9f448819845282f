//go:build !linux

package serving

import "os"

func adviseHuge([]byte) {}

func fileID(*os.File) (dev, ino uint64) { return 0, 0 }

// settleHuge does nothing where huge pages of files are not known.
func settleHuge(string, *mapping) (hugeShare, error) { return hugeShare{}, nil }
