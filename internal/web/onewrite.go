package web

import (
	"net"
	"net/http"
	"sync"
	"unsafe"
)

// OneWriteListener wraps a TCP listener so that an answer sent whole
// (SendBody, SendBodyString, SendParts) leaves in one system call. net/http
// writes a body of more than its 4 kB buffer in two: the buffer (the header
// and the body's start) and then the rest; one call fewer made set pages
// 7.5% faster at saturation (bench/README.md, "One write an answer").
// Connections that are not TCP are returned as they are.
func OneWriteListener(ln net.Listener) net.Listener { return oneWriteListener{ln} }

type oneWriteListener struct{ net.Listener }

func (l oneWriteListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		return &oneWriteConn{TCPConn: tc}, nil
	}
	return c, err
}

// oneWriteConn is a connection of a OneWriteListener. Between hold and
// release (SendParts, on the handler's goroutine, the one that writes an
// HTTP/1.x connection) it sends nothing: each write is kept, by reference
// when it lies within the parts being sent (their memory outlives the
// hold), else as a copy (net/http's buffers are written into again as soon
// as a write returns); release sends them all in one writev. Outside a hold
// it writes as the TCP connection does. Embedding *net.TCPConn keeps the
// methods net/http looks for (CloseWrite, ReadFrom for sendfile).
type oneWriteConn struct {
	*net.TCPConn
	holding bool
	parts   [][]byte    // the parts being sent, in partsVec
	segs    net.Buffers // what was written while holding, in order, in segsVec
	copied  *[]byte     // the copies segs points into, pooled
	// The arrays parts and segs use, so that a hold allocates nothing.
	partsVec [6][]byte
	segsVec  [8][]byte
}

// copyBufs keeps the copies of what net/http writes from its buffers (its
// 4 kB buffer, the body's last part): a connection holds one only while it
// sends an answer.
var copyBufs = sync.Pool{New: func() any { b := make([]byte, 0, 8<<10); return &b }}

func (c *oneWriteConn) Write(p []byte) (int, error) {
	if !c.holding {
		return c.TCPConn.Write(p)
	}
	if !c.isPart(p) {
		if c.copied == nil {
			c.copied = copyBufs.Get().(*[]byte)
			*c.copied = (*c.copied)[:0]
		}
		// A copy that outgrows the buffer moves it; the segments already
		// kept still point into the old one, which they keep alive.
		start := len(*c.copied)
		*c.copied = append(*c.copied, p...)
		p = (*c.copied)[start:len(*c.copied):len(*c.copied)]
	}
	c.segs = append(c.segs, p)
	return len(p), nil
}

// isPart reports whether p lies within one of the parts being sent.
func (c *oneWriteConn) isPart(p []byte) bool {
	if len(p) == 0 {
		return false
	}
	at := uintptr(unsafe.Pointer(unsafe.SliceData(p)))
	for _, part := range c.parts {
		from := uintptr(unsafe.Pointer(unsafe.SliceData(part)))
		if len(part) > 0 && at >= from && at+uintptr(len(p)) <= from+uintptr(len(part)) {
			return true
		}
	}
	return false
}

func (c *oneWriteConn) hold(parts [][]byte) {
	c.holding = true
	c.parts = append(c.partsVec[:0], parts...)
	c.segs = c.segsVec[:0]
}

// release ends the hold and sends what was written during it. A failure
// closes the connection: net/http was told those bytes were written, and a
// client must not take a cut answer for a whole one on a connection left
// open.
func (c *oneWriteConn) release() {
	c.holding = false
	var err error
	if len(c.segs) > 0 {
		_, err = c.segs.WriteTo(c.TCPConn)
	}
	clear(c.partsVec[:])
	clear(c.segsVec[:])
	c.parts, c.segs = nil, nil
	if c.copied != nil {
		copyBufs.Put(c.copied)
		c.copied = nil
	}
	if err != nil {
		c.TCPConn.Close()
	}
}

// SendParts writes a 200 whose body is parts one after the other (identity
// or already compressed), without joining them first when w's connection is
// a OneWriteListener's: the parts and net/http's buffers leave in one
// writev. The parts must not change until SendParts returns.
func SendParts(w http.ResponseWriter, contentType []string, parts ...[]byte) {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	w.Header()["Content-Type"] = contentType
	SetContentLength(w, n)
	w.WriteHeader(http.StatusOK)
	rec, _ := w.(*Response)
	if rec == nil || rec.conn == nil || n <= chunkingAbove {
		// net/http would write each part of a body past its buffer in a
		// call of its own: one body, one or two calls.
		if len(parts) > 1 && n > chunkingAbove {
			bp := joinBufs.Get().(*[]byte)
			*bp = (*bp)[:0]
			for _, p := range parts {
				*bp = append(*bp, p...)
			}
			w.Write(*bp)
			if cap(*bp) <= maxJoinBuf {
				joinBufs.Put(bp) // a rare large body's buffer is not kept
			}
			return
		}
		for _, p := range parts {
			w.Write(p)
		}
		return
	}
	f, _ := rec.ResponseWriter.(http.Flusher)
	rec.conn.hold(parts)
	defer rec.conn.release()
	// The body has its Content-Length (SetContentLength), so a flush does
	// not make net/http chunk it. The first sends the header alone, so that
	// a part longer than net/http's buffers reaches the connection as it
	// lies rather than through them; the last sends the body's end within
	// the hold, not after the handler returns.
	if f != nil {
		f.Flush()
	}
	for _, p := range parts {
		w.Write(p)
	}
	if f != nil {
		f.Flush()
	}
}

var joinBufs = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

// maxJoinBuf bounds the join buffers kept: a set page of 200 cards is ~180 kB.
const maxJoinBuf = 1 << 20
