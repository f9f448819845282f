package web

import (
	"bytes"
	"errors"
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
	// The header fields' lines to splice into the next header net/http
	// writes (spliceHeader), and whether its Content-Length line is one of
	// them.
	head     []byte
	headDate []byte // the Date line, written before net/http's own fields
	headCL   bool
	lines    []byte // the buffer a Response makes head in, kept from answer to answer
	// spliced is an answer's pieces outside a hold, in spliceVec: one writev
	// (one buffer and one write measured the same).
	spliced net.Buffers
	// The arrays parts and segs use, so that a hold allocates nothing.
	partsVec  [6][]byte
	segsVec   [8][]byte
	spliceVec [5][]byte
}

// copyBufs keeps the copies of what net/http writes from its buffers (its
// 4 kB buffer, the body's last part): a connection holds one only while it
// sends an answer.
var copyBufs = sync.Pool{New: func() any { b := make([]byte, 0, 8<<10); return &b }}

func (c *oneWriteConn) Write(p []byte) (int, error) {
	if c.head != nil {
		return c.writeSpliced(p)
	}
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

// spliceHeader has the next write, which begins with the header net/http
// writes for an answer (its status line, its own fields, the blank line),
// carry lines (a Response's fields, each ending in CRLF) right after the
// status line, where net/http would have written them had they been in
// its map: its own fields (Date, and Content-Length or Connection when it
// adds them) come after a map's, and a map of one Content-Length writes it
// first, so that with dropCL (lines hold it) that line is left out. The
// bytes on the wire are those net/http writes from a map of every field
// (TestSpliceSameBytes). lines is read, not copied, until the write.
//
// date is the Date line net/http would have written first among its own
// fields, had the map not held a Date (net/http then writes none).
func (c *oneWriteConn) spliceHeader(lines, date []byte, dropCL bool) {
	c.head, c.headDate, c.headCL = lines, date, dropCL
}

var (
	crlf        = []byte("\r\n")
	headerEnd   = []byte("\r\n\r\n")
	clLineStart = []byte("Content-Length: ")
)

// writeSpliced writes p, net/http's first write of an answer, with the
// pending lines spliced into its header (spliceHeader): kept with the rest
// during a hold, else in one writev. A p that does not begin with a whole
// header fails the write, which closes the connection: an answer without
// its fields is not sent (net/http writes a header of a few fields in its
// 4 kB buffer, whole, in its first write).
func (c *oneWriteConn) writeSpliced(p []byte) (int, error) {
	lines, date, dropCL := c.head, c.headDate, c.headCL
	c.head, c.headDate = nil, nil
	status := bytes.Index(p, crlf) + 2
	end := bytes.Index(p, headerEnd) + 2 // after the last field's CRLF
	if !bytes.HasPrefix(p, []byte("HTTP/1.")) || status < 2 || end < status {
		c.TCPConn.Close()
		return 0, errHeaderNotWhole
	}
	own := p[status:end] // net/http's own fields
	if dropCL && bytes.HasPrefix(own, clLineStart) {
		own = own[bytes.Index(own, crlf)+2:]
	}
	v := append(c.spliceVec[:0], p[:status], lines, date, own, p[end:])
	if c.holding {
		for _, b := range v {
			if len(b) > 0 {
				c.Write(b) // kept: copied, as net/http's buffer is reused
			}
		}
		return len(p), nil
	}
	c.spliced = v // a field, so that WriteTo's pointer to it allocates nothing
	_, err := c.spliced.WriteTo(c.TCPConn)
	clear(c.spliceVec[:])
	if err != nil {
		return 0, err
	}
	return len(p), nil
}

var errHeaderNotWhole = errors.New("web: an answer's first write does not hold its whole header; connection closed")

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
	SetField(w, FieldContentType, contentType)
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
