package serving

import (
	"encoding/binary"
	"os"

	"github.com/cardcat/cardcat/internal/catalog"
)

// pageMap is this process's /proc/self/pagemap, whose entry of a page has
// bit 63 set when the page is present in the process's page table (what
// VmRSS counts). A process may read its own without privileges; only the
// frame numbers are hidden.
type pageMap struct {
	f   *os.File
	buf []byte
}

func openPageMap() (*pageMap, error) {
	f, err := os.Open("/proc/self/pagemap")
	if err != nil {
		return nil, err
	}
	return &pageMap{f: f, buf: make([]byte, 8*4096)}, nil
}

func (m *pageMap) Close() error { return m.f.Close() }

// resident returns how many bytes of s lie in present pages.
func (m *pageMap) resident(s catalog.Span) (int64, error) {
	ps := uintptr(os.Getpagesize())
	end := s.Addr + uintptr(s.Len)
	first, last := s.Addr/ps, (end-1)/ps
	var n int64
	for p := first; p <= last; {
		k := min(last-p+1, uintptr(len(m.buf)/8))
		if _, err := m.f.ReadAt(m.buf[:8*k], int64(p*8)); err != nil {
			return 0, err
		}
		for i := range k {
			if binary.LittleEndian.Uint64(m.buf[8*i:])>>63 == 0 {
				continue
			}
			lo, hi := (p+i)*ps, (p+i+1)*ps
			n += int64(min(hi, end) - max(lo, s.Addr))
		}
		p += k
	}
	return n, nil
}
