package main

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/portal/mail/mailtest"
	"github.com/cardcat/cardcat/internal/testkit"
)

// journeyClock is the server's clock in the journey: the real time plus an
// offset the test moves forward (past a trial's end).
type journeyClock struct{ offset atomic.Int64 }

func (c *journeyClock) Now() time.Time { return time.Now().Add(time.Duration(c.offset.Load())) }

func (c *journeyClock) Advance(d time.Duration) { c.offset.Add(int64(d)) }

// journeyServer is `cardcat serve` run in process, as run starts it but
// with the test's clock and the test SMTP server's certificate.
type journeyServer struct {
	url    string
	stderr *testkit.SyncBuffer // every log line, once stop has returned
	stop   func() error
}

// listenWriter closes listening when serve prints its address.
type listenWriter struct {
	once      sync.Once
	listening chan struct{}
}

func (w *listenWriter) Write(p []byte) (int, error) {
	if strings.Contains(string(p), "cardcat listening on ") {
		w.once.Do(func() { close(w.listening) })
	}
	return len(p), nil
}

// startJourneyServer serves on a free loopback port known before it starts
// (the public URL, the webhook's address), with vars as its environment.
func startJourneyServer(t *testing.T, clock *journeyClock, mail *mailtest.Server, vars map[string]string) *journeyServer {
	t.Helper()
	addr := closedPort(t)
	public := "http://" + addr

	stdout := &listenWriter{listening: make(chan struct{})}
	env, stderr, finishLogs := inProcessEnv(vars, stdout)
	cfg, err := parseServe(env, []string{"--addr", addr, "--public-url", public, "--data-dir", t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	cfg.now = clock.Now
	cfg.portal.smtpTLS = mail.TLSConfig()

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serve(ctx, env, cfg) }()
	select {
	case <-stdout.listening:
	case err := <-done:
		cancel()
		finishLogs()
		t.Fatalf("serve exited before listening: %v\n%s", err, stderr)
	case <-time.After(30 * time.Second):
		t.Fatalf("serve did not listen within 30 s\n%s", stderr)
	}
	s := &journeyServer{url: public, stderr: stderr, stop: stopOnce(cancel, done, finishLogs)}
	t.Cleanup(func() { s.stop() })
	return s
}

// host is the server's port, for the allowed hosts.
func (s *journeyServer) host() string { return strings.TrimPrefix(s.url, "http://") }
