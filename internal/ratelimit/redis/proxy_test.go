package redis

import (
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// proxy stands between a limiter and the real Redis so that a test can take
// Redis away and bring it back without touching the server others use.
type proxy struct {
	ln     net.Listener
	target string
	mode   atomic.Int32

	mu    sync.Mutex
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup
}

const (
	forward   int32 = iota // pass bytes both ways
	refuse                 // close every connection: Redis is down
	blackhole              // accept and swallow requests: Redis hangs
	pause                  // hold requests until the mode changes; forward them only if it is forward
)

// startProxy listens on a free loopback port and forwards to target.
func startProxy(t *testing.T, target string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln, target: target, conns: make(map[net.Conn]struct{})}
	p.wg.Go(p.accept)
	t.Cleanup(p.close)
	return p
}

func (p *proxy) addr() string { return p.ln.Addr().String() }

func (p *proxy) setMode(m int32) {
	p.mode.Store(m)
	if m == refuse {
		p.mu.Lock()
		for c := range p.conns {
			c.Close()
		}
		p.mu.Unlock()
	}
}

func (p *proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conns == nil {
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *proxy) accept() {
	for {
		client, err := p.ln.Accept()
		if err != nil {
			return
		}
		if p.mode.Load() == refuse || !p.track(client) {
			client.Close()
			continue
		}
		server, err := net.Dial("tcp", p.target)
		if err != nil || !p.track(server) {
			client.Close()
			if server != nil {
				server.Close()
			}
			continue
		}
		p.wg.Go(func() { p.pump(server, client, true) })
		p.wg.Go(func() { p.pump(client, server, false) })
	}
}

// pump copies src to dst; requests (toServer) are dropped in blackhole mode.
func (p *proxy) pump(dst, src net.Conn, toServer bool) {
	defer dst.Close()
	defer src.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		for toServer && p.mode.Load() == pause {
			time.Sleep(time.Millisecond)
		}
		if n > 0 && !(toServer && p.mode.Load() != forward) {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (p *proxy) close() {
	p.ln.Close()
	p.mu.Lock()
	for c := range p.conns {
		c.Close()
	}
	p.conns = nil
	p.mu.Unlock()
	p.wg.Wait()
}
