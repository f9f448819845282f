package prefetch

import "unsafe"

// At asks for the cache line holding the byte at p (PREFETCHT0). It never
// faults, whatever p is.
//
//go:noescape
func At(p unsafe.Pointer)
