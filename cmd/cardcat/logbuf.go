package main

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"sync"
	"time"
)

// logBuffer batches log lines into few writes: the access log writes a line
// per request, and a write system call per line costs the server a large
// share of a small answer's time. Lines are flushed every flushEvery, at once
// for warnings and errors, and when the program ends.
type logBuffer struct {
	mu  sync.Mutex
	buf *bufio.Writer
}

const flushEvery = 100 * time.Millisecond

func newLogBuffer(w io.Writer) *logBuffer {
	return &logBuffer{buf: bufio.NewWriterSize(w, 64<<10)}
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// Flush writes out what is buffered.
func (b *logBuffer) Flush() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Flush()
}

// run flushes every flushEvery until ctx ends, then once more.
func (b *logBuffer) run(ctx context.Context) {
	t := time.NewTicker(flushEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			b.Flush()
			return
		case <-t.C:
			b.Flush()
		}
	}
}

// urgentFlush flushes the buffer after every record of level Warn or above,
// so problems are never held back.
type urgentFlush struct {
	slog.Handler
	buf *logBuffer
}

func (h urgentFlush) Handle(ctx context.Context, r slog.Record) error {
	err := h.Handler.Handle(ctx, r)
	if r.Level >= slog.LevelWarn {
		h.buf.Flush()
	}
	return err
}

func (h urgentFlush) WithAttrs(attrs []slog.Attr) slog.Handler {
	return urgentFlush{h.Handler.WithAttrs(attrs), h.buf}
}

func (h urgentFlush) WithGroup(name string) slog.Handler {
	return urgentFlush{h.Handler.WithGroup(name), h.buf}
}
