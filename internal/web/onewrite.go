package web

import (
	"net"
	"net/http"
	"sync"
)

// OneWriteListener wraps a TCP listener so that an answer sent whole
// (SendBody, SendBodyString) leaves in one system call. net/http writes a
// body of more than its 4 kB buffer in two: the buffer (the header and the
// body's start) and then the rest; on a set page of 50 the second call cost
// more than the whole of cardcat's own work (bench/README.md, "One write an
// answer"). Connections that are not TCP are returned as they are.
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
// release (sendWhole, on the handler's goroutine, the one that writes an
// HTTP/1.x connection) its first write is copied and kept, and sent with
// the next one in a single writev; release sends what is still kept. Outside
// them it writes as the TCP connection does. Embedding *net.TCPConn keeps
// the methods net/http looks for (CloseWrite, ReadFrom for sendfile).
type oneWriteConn struct {
	*net.TCPConn
	holding bool
	held    *[]byte
	vec     [2][]byte
	bufs    net.Buffers // vec's, so that writev needs no allocation
}

// heldBufs keeps the copies of net/http's 4 kB buffer: a connection holds
// one only while it sends an answer.
var heldBufs = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

func (c *oneWriteConn) Write(p []byte) (int, error) {
	if !c.holding {
		return c.TCPConn.Write(p)
	}
	if c.held == nil {
		// net/http's buffer is written into again as soon as this returns.
		c.held = heldBufs.Get().(*[]byte)
		*c.held = append((*c.held)[:0], p...)
		return len(p), nil
	}
	kept := len(*c.held)
	c.vec = [2][]byte{*c.held, p}
	c.bufs = c.vec[:]
	n, err := c.bufs.WriteTo(c.TCPConn)
	c.drop()
	if n < int64(kept) {
		return 0, err
	}
	return int(n) - kept, err
}

func (c *oneWriteConn) hold() { c.holding = true }

// release ends the hold and sends what is kept. A failure closes the
// connection: net/http was told the kept bytes were written, and a client
// must not take a cut answer for a whole one on a connection left open.
func (c *oneWriteConn) release() {
	c.holding = false
	if c.held == nil {
		return
	}
	_, err := c.TCPConn.Write(*c.held)
	c.drop()
	if err != nil {
		c.TCPConn.Close()
	}
}

func (c *oneWriteConn) drop() {
	c.vec = [2][]byte{}
	heldBufs.Put(c.held)
	c.held = nil
}

// sendWhole writes the whole body of an answer whose header is set: through
// the connection's hold when the Response has a oneWriteConn and the body
// may be one net/http sends in two parts, with a flush so that its last
// part leaves before release rather than after the handler returns. Such a
// body has its Content-Length (SetContentLength), so the flush does not
// make net/http chunk it.
func sendWhole(w http.ResponseWriter, body []byte) {
	rec, _ := w.(*Response)
	if rec == nil || rec.conn == nil || len(body) <= chunkingAbove {
		w.Write(body)
		return
	}
	rec.conn.hold()
	defer rec.conn.release()
	w.Write(body)
	if f, ok := rec.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}
