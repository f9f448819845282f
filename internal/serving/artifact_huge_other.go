//go:build !linux

package serving

func adviseHuge([]byte) {}

// settleHuge does nothing where huge pages of files are not known.
func settleHuge(string, *mapping) (hugeShare, error) { return hugeShare{}, nil }
