package serving

import "io"

// hugePage is the size of the kernel's huge pages (x86-64, arm64 with 4 KB
// pages): the artifact is written a whole aligned huge page at a time.
const hugePage = 2 << 20

// alignedWriter buffers what is written to a file written from offset 0
// and writes it out in whole aligned huge pages (the last one short). A
// file written so is in the page cache as huge folios (Linux 6.16's ext4,
// xfs: a write makes folios as large as it covers, aligned), so a replica
// maps it with 2 MB entries rather than 4 KB ones: at a million cards a
// card detail's lookups and a search's lists miss the TLB far less. Written
// through a 64 KB buffer, the same file was mapped with 4 KB pages
// (bench/README.md, "The artifact in huge pages").
type alignedWriter struct {
	w   io.Writer
	buf []byte
	err error
}

func newAlignedWriter(w io.Writer) *alignedWriter {
	return &alignedWriter{w: w, buf: make([]byte, 0, hugePage)}
}

func (a *alignedWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 && a.err == nil {
		k := copy(a.buf[len(a.buf):cap(a.buf)], p)
		a.buf, p = a.buf[:len(a.buf)+k], p[k:]
		if len(a.buf) == cap(a.buf) {
			a.Flush()
		}
	}
	if a.err != nil {
		return 0, a.err
	}
	return n, nil
}

// Flush writes out what is buffered.
func (a *alignedWriter) Flush() error {
	if a.err == nil && len(a.buf) > 0 {
		_, a.err = a.w.Write(a.buf)
		a.buf = a.buf[:0]
	}
	return a.err
}
