package accesslog

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/testkit"
)

func TestLogBuffer(t *testing.T) {
	var out testkit.SyncBuffer
	buf := NewBuffer(&out)
	log := slog.New(buf.FlushOnWarn(slog.NewTextHandler(buf, nil)))

	log.Info("request", "path", "/dbs/sets")
	if out.String() != "" {
		t.Fatalf("an info line was written at once: %q", out.String())
	}
	log.Warn("trouble")
	if !strings.Contains(out.String(), "msg=request") || !strings.Contains(out.String(), "msg=trouble") {
		t.Fatalf("a warning did not flush the buffer: %q", out.String())
	}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { buf.Run(ctx); close(done) }()
	log.Info("later")
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(out.String(), "msg=later") {
		if time.Now().After(deadline) {
			t.Fatal("the periodic flush never wrote the line")
		}
		time.Sleep(10 * time.Millisecond)
	}
	log.Info("last")
	cancel()
	<-done
	if !strings.Contains(out.String(), "msg=last") {
		t.Errorf("the final flush lost a line: %q", out.String())
	}
}

// gateWriter holds every Write until its gate opens, and records what it
// was given.
type gateWriter struct {
	gate    chan struct{}
	entered chan struct{} // one value per Write that started
	out     testkit.SyncBuffer
}

func (g *gateWriter) Write(p []byte) (int, error) {
	g.entered <- struct{}{}
	<-g.gate
	return g.out.Write(p)
}

// TestLogBufferWriteDoesNotWait: a line is only copied on the caller's
// path; while the destination is slow (a write in progress), further lines
// are taken at once, and all arrive, in order, exactly once.
func TestLogBufferWriteDoesNotWait(t *testing.T) {
	g := &gateWriter{gate: make(chan struct{}), entered: make(chan struct{}, 100)}
	buf := NewBuffer(g)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { buf.Run(ctx); close(done) }()

	defer func() {
		select {
		case <-g.gate:
		default:
			close(g.gate) // a failed test lets a blocked write go
		}
	}()
	line := func(i int) string { return fmt.Sprintf("line %06d %s\n", i, strings.Repeat("x", 100)) }
	// writeLines writes lines [from, to) and fails the test if that waits
	// for the destination.
	writeLines := func(from, to int) {
		wrote := make(chan struct{})
		go func() {
			for i := from; i < to; i++ {
				buf.Write([]byte(line(i)))
			}
			close(wrote)
		}()
		select {
		case <-wrote:
		case <-time.After(5 * time.Second):
			t.Fatalf("Write of lines %d to %d waited for the destination", from, to)
		}
	}
	n := flushAt/len(line(0)) + 1 // enough to kick the flusher
	writeLines(0, n)
	select {
	case <-g.entered:
	case <-time.After(5 * time.Second):
		t.Fatal("the flusher did not start a write after flushAt bytes")
	}
	// The flusher is inside the destination's Write: more lines than the
	// kick size must still be taken without waiting for it.
	writeLines(n, 4*n)
	n *= 4
	close(g.gate)
	cancel()
	<-done

	var want strings.Builder
	for i := range n {
		want.WriteString(line(i))
	}
	if got := g.out.String(); got != want.String() {
		t.Errorf("wrote %d bytes, want %d: lines lost, repeated or out of order", len(got), want.Len())
	}
}

// TestLogBufferBounded: without a flusher (or one that cannot keep up),
// Write writes itself past maxPending: memory stays bounded, nothing is
// lost.
func TestLogBufferBounded(t *testing.T) {
	var out testkit.SyncBuffer
	buf := NewBuffer(&out)
	line := []byte(strings.Repeat("y", 999) + "\n")
	total := 0
	for total <= maxPending+len(line) {
		buf.Write(line)
		total += len(line)
		buf.mu.Lock()
		pending := len(buf.pending)
		buf.mu.Unlock()
		if pending > maxPending {
			t.Fatalf("%d bytes pending, over maxPending %d", pending, maxPending)
		}
	}
	if len(out.String()) == 0 {
		t.Fatal("nothing written past maxPending")
	}
	buf.Flush()
	if n := len(out.String()); n != total {
		t.Errorf("wrote %d bytes of %d", n, total)
	}
}

// TestLogBufferConcurrent: lines written from many goroutines at once
// arrive whole, each goroutine's in its order.
func TestLogBufferConcurrent(t *testing.T) {
	var out testkit.SyncBuffer
	buf := NewBuffer(&out)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { buf.Run(ctx); close(done) }()
	const writers, lines = 8, 3000
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range lines {
				buf.Write([]byte(fmt.Sprintf("w%d %05d %s\n", w, i, strings.Repeat("z", 40))))
			}
		}()
	}
	wg.Wait()
	cancel()
	<-done
	next := make([]int, writers)
	got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	for _, l := range got {
		var w, i int
		if _, err := fmt.Sscanf(l, "w%d %d", &w, &i); err != nil || w < 0 || w >= writers || len(l) != 49 {
			t.Fatalf("torn line %q", l)
		}
		if i != next[w] {
			t.Fatalf("writer %d: line %d after %d", w, i, next[w]-1)
		}
		next[w]++
	}
	if len(got) != writers*lines {
		t.Errorf("%d lines, want %d", len(got), writers*lines)
	}
}
