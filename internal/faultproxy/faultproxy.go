// Package faultproxy is a TCP proxy for fault tests: it forwards to a real
// server (PostgreSQL, Redis, an image source) until the test cuts it, the
// way a network partition or a dead peer would.
package faultproxy

import (
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
)

// Mode is what the proxy does with traffic.
type Mode int32

const (
	// Pass forwards every byte both ways.
	Pass Mode = iota
	// Refuse closes every connection, open or new, at once: a peer that is
	// down (connection refused or reset).
	Refuse
	// Blackhole keeps connections open but forwards nothing either way, and
	// accepts new ones that never get an answer: a partition, where only
	// deadlines help.
	Blackhole
)

// Proxy listens on a loopback port and forwards to a target address.
type Proxy struct {
	ln     net.Listener
	target string
	mode   atomic.Int32

	mu    sync.Mutex
	conns map[net.Conn]struct{}
	done  bool
}

// Start starts a proxy to target, closed when the test ends.
func Start(tb testing.TB, target string) *Proxy {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	p := &Proxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	go p.serve()
	tb.Cleanup(p.Close)
	return p
}

// Addr is the proxy's host:port.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Set switches the mode; Refuse also closes the open connections.
func (p *Proxy) Set(m Mode) {
	p.mode.Store(int32(m))
	if m == Refuse {
		p.closeConns()
	}
}

// Close stops the proxy and closes every connection.
func (p *Proxy) Close() {
	p.mu.Lock()
	p.done = true
	p.mu.Unlock()
	p.ln.Close()
	p.closeConns()
}

func (p *Proxy) closeConns() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		c.Close()
	}
	clear(p.conns)
}

func (p *Proxy) track(cs ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return false
	}
	for _, c := range cs {
		p.conns[c] = struct{}{}
	}
	return true
}

func (p *Proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.handle(c)
	}
}

func (p *Proxy) handle(client net.Conn) {
	switch Mode(p.mode.Load()) {
	case Refuse:
		client.Close()
		return
	case Blackhole:
		if !p.track(client) {
			client.Close()
			return
		}
		io.Copy(io.Discard, client) // hold it until the test refuses or closes
		return
	}
	server, err := net.Dial("tcp", p.target)
	if err != nil {
		client.Close()
		return
	}
	if !p.track(client, server) {
		client.Close()
		server.Close()
		return
	}
	go p.pipe(server, client)
	p.pipe(client, server)
}

// pipe copies from src to dst while the mode is Pass, and drops what it
// reads while it is Blackhole; it ends when either side closes.
func (p *Proxy) pipe(dst, src net.Conn) {
	defer dst.Close()
	defer src.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && Mode(p.mode.Load()) == Pass {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}
