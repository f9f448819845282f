//go:build unix

package prefetch

import (
	"syscall"
	"testing"
	"unsafe"
)

// TestAtNeverFaults: a prefetch of memory that is not mapped (nil, a page
// just unmapped) is ignored, as callers rely on for a line past the end of
// what they will read; a load there would crash the test.
func TestAtNeverFaults(t *testing.T) {
	page := syscall.Getpagesize()
	b, err := syscall.Mmap(-1, 0, page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	b[0] = 1
	p := unsafe.Pointer(&b[0])
	At(p)
	if err := syscall.Munmap(b); err != nil {
		t.Fatal(err)
	}
	At(p)
	At(nil)
}
