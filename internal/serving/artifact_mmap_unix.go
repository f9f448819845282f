//go:build unix

package serving

import (
	"errors"
	"os"
	"syscall"
)

// mapFile maps the first size bytes of f read-only and shared (the page
// cache's pages, not a copy). An error means: read the file instead.
func mapFile(f *os.File, size int64) (*mapping, error) {
	if size <= 0 || int64(int(size)) != size {
		return nil, errors.New("serving: cannot map a file of this size")
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, err
	}
	adviseHuge(data)
	m := newMapping(data)
	if fi, err := f.Stat(); err == nil {
		m.file = fi
	}
	return m, nil
}

func munmap(data []byte) { syscall.Munmap(data) }
