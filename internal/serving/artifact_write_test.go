package serving

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"
)

// chunks records the writes it is given.
type chunks struct {
	all   bytes.Buffer
	sizes []int
}

func (c *chunks) Write(p []byte) (int, error) {
	c.sizes = append(c.sizes, len(p))
	return c.all.Write(p)
}

// TestAlignedWriter: whatever the sizes written, the file gets whole huge
// pages, one write each, then the rest; the bytes as written.
func TestAlignedWriter(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var c chunks
	a := newAlignedWriter(&c)
	var want bytes.Buffer
	for want.Len() < 5*hugePage+12345 {
		p := make([]byte, []int{1, 7, 4096, 65536, 3 * hugePage}[rng.IntN(5)])
		for i := range p {
			p[i] = byte(rng.Uint32())
		}
		if n, err := a.Write(p); n != len(p) || err != nil {
			t.Fatalf("Write: %d, %v", n, err)
		}
		want.Write(p)
	}
	if err := a.Flush(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(c.all.Bytes(), want.Bytes()) {
		t.Fatal("the bytes written differ from the bytes given")
	}
	for i, n := range c.sizes {
		if i < len(c.sizes)-1 && n != hugePage || n > hugePage || n == 0 {
			t.Fatalf("write %d of %d is %d bytes (want %d, the last one at most that)", i, len(c.sizes), n, hugePage)
		}
	}
}

type failing struct{}

func (failing) Write(p []byte) (int, error) { return 0, errors.New("disk full") }

// TestAlignedWriterError: a failed write is the error of every later call.
func TestAlignedWriterError(t *testing.T) {
	a := newAlignedWriter(failing{})
	if _, err := a.Write(make([]byte, hugePage+1)); err == nil {
		t.Fatal("a write past a failed flush succeeded")
	}
	if _, err := a.Write([]byte("x")); err == nil {
		t.Fatal("a write after a failure succeeded")
	}
	if err := a.Flush(); err == nil {
		t.Fatal("Flush after a failure succeeded")
	}
}
