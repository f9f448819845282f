package accesslog

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"time"
)

// Buffer batches log lines into few writes: the access log writes a line
// per request, and a write system call per line costs the server a large
// share of a small answer's time. Lines are flushed every flushEvery, as
// soon as flushAt bytes wait, at once for warnings and errors (through
// FlushOnWarn), and when Run's context ends.
//
// A request only copies its line into memory and the flusher (Run) writes:
// the access log writes before net/http sends the answer, so a write in the
// request's path held that answer, and every request logging behind it, for
// the whole system call (bench/README.md, "The log buffer's flusher"). Past
// maxPending bytes (a destination that cannot keep up) Write writes itself:
// memory stays bounded and no line is dropped.
type Buffer struct {
	w    io.Writer
	kick chan struct{} // the flusher should write now (buffered, 1)

	mu      sync.Mutex
	pending []byte // lines not yet written, in order

	wmu   sync.Mutex // one write at a time, in the order lines were taken
	spare []byte     // the buffer last written, reused (under wmu)
}

const (
	flushEvery = 100 * time.Millisecond
	flushAt    = 32 << 10
	maxPending = 4 << 20
)

// NewBuffer returns a buffer that writes to w; Run must run for it to
// flush on time.
func NewBuffer(w io.Writer) *Buffer {
	return &Buffer{w: w, kick: make(chan struct{}, 1)}
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	if len(b.pending) > 0 && len(b.pending)+len(p) > maxPending {
		b.mu.Unlock()
		b.Flush()
		b.mu.Lock()
	}
	b.pending = append(b.pending, p...)
	n := len(b.pending)
	b.mu.Unlock()
	if n >= flushAt {
		select {
		case b.kick <- struct{}{}:
		default: // a kick is already waiting
		}
	}
	return len(p), nil
}

// Flush writes out what is buffered.
func (b *Buffer) Flush() {
	b.wmu.Lock()
	defer b.wmu.Unlock()
	b.mu.Lock()
	out := b.pending
	b.pending = b.spare[:0]
	b.mu.Unlock()
	if len(out) > 0 {
		b.w.Write(out) // a log that cannot be written has nowhere to say so
	}
	b.spare = out
}

// Run flushes every flushEvery and when kicked, until ctx ends, then once
// more.
func (b *Buffer) Run(ctx context.Context) {
	t := time.NewTicker(flushEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			b.Flush()
			return
		case <-t.C:
			b.Flush()
		case <-b.kick:
			b.Flush()
		}
	}
}

// FlushOnWarn wraps h, a handler writing to b, so that every record of
// level Warn or above flushes b: problems are never held back.
func (b *Buffer) FlushOnWarn(h slog.Handler) slog.Handler {
	return urgentFlush{h, b}
}

type urgentFlush struct {
	slog.Handler
	buf *Buffer
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
