package serving

import (
	"bytes"
	"sync"
)

// logBuffer is a test's log: a Holder writes into it from background
// goroutines too (an artifact's re-read in huge pages logs once it ends:
// artifacts.go, settleHuge), while the test reads and resets it.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func (l *logBuffer) Reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b.Reset()
}
