// Package testkit holds the helpers that tests of several packages share:
// a goroutine-safe buffer for logs and a child's output, and the headless
// Chromium of the browser tests. It is imported by _test.go files only, so
// that none of it, chromedp included, is linked into the cardcat binary.
package testkit

import (
	"bytes"
	"sync"
	"testing"
)

func init() {
	// A production import would link chromedp and the testing package into
	// the server: fail at start rather than ship it.
	if !testing.Testing() {
		panic("internal/testkit is imported by a program that is not a test")
	}
}

// SyncBuffer is a bytes.Buffer that goroutines (a server's handlers, a
// child's output) may write while the test reads it.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Reset empties the buffer.
func (s *SyncBuffer) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b.Reset()
}
