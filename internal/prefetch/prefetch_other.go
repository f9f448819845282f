//go:build !amd64

package prefetch

import "unsafe"

// At does nothing on this architecture.
func At(unsafe.Pointer) {}
