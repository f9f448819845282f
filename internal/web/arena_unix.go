//go:build unix

package web

import (
	"runtime"
	"syscall"
)

// newArena maps n bytes of anonymous memory: outside the Go heap, resident
// only as its pages are written. It is unmapped once owner is collected (a
// server's life, or a test's); a Variant being sent keeps owner alive.
func newArena(owner *EncodedCache, n int) ([]byte, error) {
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return nil, err
	}
	runtime.AddCleanup(owner, func(b []byte) { syscall.Munmap(b) }, b)
	return b, nil
}
