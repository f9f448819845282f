package web

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// writeCalls is the process's count of write system calls (write, writev)
// so far, from /proc/self/io; ok false where there is none.
func writeCalls(t *testing.T) (n int, ok bool) {
	t.Helper()
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, found := strings.CutPrefix(line, "syscw: "); found {
			n, err := strconv.Atoi(v)
			return n, err == nil
		}
	}
	return 0, false
}

type connKey struct{}

// serveResponses serves on ln (closed with the test) answers written
// through a Response told its connection, as the API's chain does, by
// handle; it returns the address.
func serveResponses(t *testing.T, ln net.Listener, handle func(rec *Response, r *http.Request)) string {
	t.Helper()
	srv := &http.Server{
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			return context.WithValue(ctx, connKey{}, c)
		},
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rec := &Response{}
			rec.Reset(w, nil, nil)
			rec.SendsOn(r.Context().Value(connKey{}).(net.Conn), r)
			handle(rec, r)
		}),
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// TestOneWrite: an answer sent whole over a OneWriteListener's connection
// arrives as it was sent, whatever its size (around net/http's 2 kB and
// 4 kB buffers, and far past the socket's buffer), by SendBody,
// SendBodyString and SendParts, on one keep-alive connection, and leaves in
// one write system call, header and body; without the listener a body of
// 5 kB or more leaves in two.
func TestOneWrite(t *testing.T) {
	if _, ok := writeCalls(t); !ok {
		t.Skip("no /proc/self/io here: the write system calls cannot be counted")
	}
	sizes := []int{0, 100, 2048, 2049, 3000, 3500, 4096, 5000, 7500, 8192, 45_000, 300_000, 4 << 20}
	for _, oneWrite := range []bool{true, false} {
		for _, send := range []string{"SendBody", "SendBodyString", "SendParts"} {
			t.Run(fmt.Sprintf("oneWrite=%v/%s", oneWrite, send), func(t *testing.T) {
				body := make([]byte, 4<<20)
				for i := range body {
					body[i] = 'a' + byte(i*7%26)
				}
				var size int
				bodyOf := func() []byte { return body[:size] }
				ln, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				if oneWrite {
					ln = OneWriteListener(ln)
				}
				addr := serveResponses(t, ln, func(rec *Response, _ *http.Request) {
					switch b := bodyOf(); send {
					case "SendBody":
						SendBody(rec, []string{"text/plain"}, b)
					case "SendBodyString":
						SendBodyString(rec, []string{"text/plain"}, string(b))
					default: // a head and a tail around the rest, as a set page
						head, tail := min(len(b), 300), max(len(b)-200, min(len(b), 300))
						SendParts(rec, []string{"text/plain"}, b[:head], b[head:tail], b[tail:])
					}
				})
				conn, err := net.Dial("tcp", addr)
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Close()
				br := bufio.NewReader(conn)
				// do sends one request and returns the answer's Content-Length,
				// body and the write calls the server made to send it: all of
				// them between the request sent and the answer read whole.
				do := func(method string) (int64, []byte, int) {
					req, _ := http.NewRequest(method, "http://"+ln.Addr().String()+"/", nil)
					before, _ := writeCalls(t)
					// One write call of the client's, counted out below.
					if _, err := conn.Write([]byte(method + " / HTTP/1.1\r\nHost: test\r\n\r\n")); err != nil {
						t.Fatal(err)
					}
					resp, err := http.ReadResponse(br, req)
					if err != nil {
						t.Fatalf("%s of %d bytes: %v", method, size, err)
					}
					got, err := io.ReadAll(resp.Body)
					resp.Body.Close()
					if err != nil {
						t.Fatalf("%s of %d bytes: %v", method, size, err)
					}
					after, _ := writeCalls(t)
					return resp.ContentLength, got, after - before - 1
				}
				for _, size = range sizes {
					if n, got, _ := do(http.MethodHead); len(got) != 0 || size > 0 && n != int64(size) {
						t.Errorf("HEAD of %d bytes: Content-Length %d, a body of %d", size, n, len(got))
					}
					// The fewest write calls of a few tries: the runtime's own
					// (waking its poller for a collection) can fall within one.
					fewest := -1
					for range 5 {
						n, got, calls := do(http.MethodGet)
						if n != int64(size) || !bytes.Equal(got, bodyOf()) {
							t.Fatalf("GET of %d bytes: Content-Length %d, %d bytes, not the body sent", size, n, len(got))
						}
						if fewest < 0 || calls < fewest {
							fewest = calls
						}
					}
					// Up to 45 kB the socket takes all at once; past it a
					// write may wait for the client and be resumed.
					switch {
					case size > 45_000:
					case oneWrite && fewest != 1:
						t.Errorf("GET of %d bytes: %d write calls while sending it, want 1", size, fewest)
					case !oneWrite && size >= 5000 && fewest != 2:
						t.Errorf("GET of %d bytes without the listener: %d write calls while sending it, want net/http's 2", size, fewest)
					}
				}
			})
		}
	}
}

// TestOneWriteConnFailure: when the client is gone, release, which sends
// what the hold kept, closes the connection, so that net/http, told that
// those bytes were written, goes no further on it.
func TestOneWriteConnFailure(t *testing.T) {
	c := resetConn(t)
	body := make([]byte, 40_000)
	c.hold([][]byte{body})
	for _, p := range [][]byte{make([]byte, 4096), body[1000:]} {
		if n, err := c.Write(p); n != len(p) || err != nil {
			t.Fatalf("write while holding: %d, %v; want it kept", n, err)
		}
	}
	c.release()
	if c.holding || c.segs != nil || c.copied != nil {
		t.Fatal("the connection still holds after release")
	}
	if _, err := c.Write([]byte("y")); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("write after a failed release: %v; want the connection closed", err)
	}
}

// resetConn is the server side of a connection its client has reset, once
// a write has seen the reset.
func resetConn(t *testing.T) *oneWriteConn {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	ln = OneWriteListener(ln)
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	accepted, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { accepted.Close() })
	c := accepted.(*oneWriteConn)
	client.(*net.TCPConn).SetLinger(0) // a reset, not a polite close
	client.Close()
	// Until the reset has arrived a write still succeeds.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		if _, err := c.TCPConn.Write([]byte("x")); err != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("writes to a reset connection still succeed after 5s")
		}
	}
	return c
}

// TestSplicedWriteFailure: a spliced answer that cannot be written (the
// client reset the connection) fails the write, as net/http needs to
// close the connection, and leaves no lines pending.
func TestSplicedWriteFailure(t *testing.T) {
	c := resetConn(t)
	c.spliceHeader([]byte("X-Request-Id: 1\r\n"), nil, false)
	if n, err := c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}")); n != 0 || err == nil {
		t.Fatalf("spliced write to a reset connection: %d, %v; want a failure", n, err)
	}
	if c.head != nil {
		t.Fatal("the lines are still pending after the failed write")
	}
}

// TestOneWriteConnKeeps: during a hold, a write within one of the parts is
// kept by reference, anything else (net/http's buffers, which it writes
// into again at once, or a write that only starts within a part) as a copy.
func TestOneWriteConnKeeps(t *testing.T) {
	c := &oneWriteConn{}
	mem, other := make([]byte, 12_000), make([]byte, 4096)
	part := mem[:10_000]
	c.hold([][]byte{nil, part})
	writes := [][]byte{other, part[100:], part[:0], part[9_000:], part[9_999:], other[:10]}
	for _, p := range writes {
		if n, err := c.Write(p); n != len(p) || err != nil {
			t.Fatalf("write while holding: %d, %v", n, err)
		}
	}
	if len(c.segs) != len(writes) {
		t.Fatalf("%d writes kept, want %d", len(c.segs), len(writes))
	}
	for i, p := range writes {
		byRef := len(p) > 0 && unsafe.SliceData(c.segs[i]) == unsafe.SliceData(p)
		wantRef := i == 1 || i == 3 || i == 4
		if byRef != wantRef || len(c.segs[i]) != len(p) {
			t.Errorf("write %d (%d bytes): kept by reference %v, want %v", i, len(p), byRef, wantRef)
		}
	}
	// A write that starts within the part and goes past its end is copied.
	if c.isPart(mem[9_999:10_001]) {
		t.Error("a write past the part's end is taken for part of it")
	}
	c.holding = false
	c.parts, c.segs = nil, nil
}
