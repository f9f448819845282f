//go:build !linux

package serving

import (
	"errors"

	"github.com/cardcat/cardcat/internal/catalog"
)

// pageMap is read on Linux only (footprint_linux.go): elsewhere the
// footprint's resident figures are -1.
type pageMap struct{}

func openPageMap() (*pageMap, error) {
	return nil, errors.New("serving: resident pages are read on Linux only")
}

func (*pageMap) Close() error { return nil }

func (*pageMap) resident(catalog.Span) (int64, error) { return 0, errors.ErrUnsupported }
