//go:build !unix

package web

// newArena is the heap's where there is no anonymous mapping: the
// collector then counts the cache at its bound.
func newArena(_ *EncodedCache, n int) ([]byte, error) { return make([]byte, n), nil }
