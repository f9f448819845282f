package faultproxy

import (
	"bufio"
	"net"
	"testing"
	"time"
)

// echo starts a line echo server.
func echo(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					c.Write([]byte(line))
				}
			}()
		}
	}()
	return ln.Addr().String()
}

func roundTrip(c net.Conn, wait time.Duration) (string, error) {
	c.SetDeadline(time.Now().Add(wait))
	if _, err := c.Write([]byte("ping\n")); err != nil {
		return "", err
	}
	return bufio.NewReader(c).ReadString('\n')
}

func TestModes(t *testing.T) {
	p := Start(t, echo(t))
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	if got, err := roundTrip(c, 2*time.Second); got != "ping\n" {
		t.Fatalf("pass: %q, %v", got, err)
	}

	p.Set(Blackhole)
	if got, err := roundTrip(c, 200*time.Millisecond); err == nil {
		t.Fatalf("blackhole: open connection answered %q", got)
	}
	c2, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatalf("blackhole: a new connection must be accepted: %v", err)
	}
	if got, err := roundTrip(c2, 200*time.Millisecond); err == nil {
		t.Fatalf("blackhole: new connection answered %q", got)
	}

	p.Set(Refuse)
	if _, err := roundTrip(c2, 2*time.Second); err == nil {
		t.Fatal("refuse: the held connection must be closed")
	}
	c3, err := net.Dial("tcp", p.Addr())
	if err == nil {
		if _, err := roundTrip(c3, 2*time.Second); err == nil {
			t.Fatal("refuse: a new connection must be closed at once")
		}
	}

	p.Set(Pass)
	c4, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	if got, err := roundTrip(c4, 2*time.Second); got != "ping\n" {
		t.Fatalf("pass again: %q, %v", got, err)
	}
}
