package main

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Tests of the probe's findings on a real `cardcat serve` (issue 16): OPTIONS
// *, the errors net/http writes before the API, and the counts kept when the
// server is stopped. internal/httpapi/hardening_test.go has the rest.

// rawRequest sends request, as it is, on a new connection to the server at
// base and reads the answer.
func rawRequest(t *testing.T, base, request string) (*http.Response, string) {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(conn, request); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("%q: %v", request, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(body)
}

// TestOptionsStar: OPTIONS * is answered by the API like an OPTIONS of a
// path (405, or 204 as a CORS preflight), with the headers of every answer,
// not by net/http's bare 200.
func TestOptionsStar(t *testing.T) {
	s := startServe(t, t.TempDir(), nil)
	for _, tc := range []struct {
		name    string
		headers string
		status  int
	}{
		{"plain", "", http.StatusMethodNotAllowed},
		{"preflight", "Origin: https://app.example\r\nAccess-Control-Request-Method: GET\r\n", http.StatusNoContent},
	} {
		t.Run(tc.name, func(t *testing.T) {
			star, starBody := rawRequest(t, s.url, "OPTIONS * HTTP/1.1\r\nHost: localhost\r\n"+tc.headers+"Connection: close\r\n\r\n")
			path, pathBody := rawRequest(t, s.url, "OPTIONS /dbs/sets HTTP/1.1\r\nHost: localhost\r\n"+tc.headers+"Connection: close\r\n\r\n")
			if star.StatusCode != tc.status || path.StatusCode != tc.status {
				t.Errorf("OPTIONS * %d, OPTIONS /dbs/sets %d, want %d; body %s", star.StatusCode, path.StatusCode, tc.status, starBody)
			}
			if starBody != pathBody {
				t.Errorf("bodies differ:\nOPTIONS *         %s\nOPTIONS /dbs/sets %s", starBody, pathBody)
			}
			if star.Header.Get("X-Request-Id") == "" {
				t.Error("OPTIONS * has no X-Request-Id")
			}
			for _, name := range []string{"Access-Control-Allow-Origin", "Access-Control-Expose-Headers", "Access-Control-Allow-Methods",
				"Access-Control-Allow-Headers", "Access-Control-Max-Age", "Cache-Control", "Content-Type", "Allow", "X-Content-Type-Options",
				"X-RateLimit-Limit-Hour", "X-RateLimit-Remaining-Hour", "X-RateLimit-Limit-Day", "X-RateLimit-Remaining-Day"} {
				if got, want := star.Header.Get(name), path.Header.Get(name); got != want && !strings.HasPrefix(name, "X-RateLimit-Remaining") {
					t.Errorf("%s: OPTIONS * %q, OPTIONS /dbs/sets %q", name, got, want)
				}
			}
			if tc.status == http.StatusMethodNotAllowed && star.Header.Get("Cache-Control") != "no-store" {
				t.Errorf("the 405 of OPTIONS * is Cache-Control %q, want no-store", star.Header.Get("Cache-Control"))
			}
		})
	}
}

// TestErrorsBeforeTheAPI: what net/http refuses before any handler runs (a
// malformed request line, headers over the limit) is its own plain-text
// answer, as docs/api.md says.
func TestErrorsBeforeTheAPI(t *testing.T) {
	s := startServe(t, t.TempDir(), nil)
	for _, tc := range []struct {
		name, request string
		status        int
	}{
		{"malformed request line", "GET\r\n\r\n", http.StatusBadRequest},
		{"headers over 32 KB", "GET /health HTTP/1.1\r\nHost: localhost\r\nX-Big: " + strings.Repeat("a", 40<<10) + "\r\n\r\n", http.StatusRequestHeaderFieldsTooLarge},
	} {
		resp, body := rawRequest(t, s.url, tc.request)
		if resp.StatusCode != tc.status || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
			t.Errorf("%s: %d %q %q, want %d text/plain", tc.name, resp.StatusCode, resp.Header.Get("Content-Type"), body, tc.status)
		}
	}
}

// TestStopLosesNoCounts: stopping the server (its context canceled, as main
// does on SIGTERM) while a key's requests are in flight loses none of their
// counts: after a restart on the same data directory the key's pool shows
// every request that was answered. (A crash loses up to the save interval:
// docs/operations.md.)
func TestStopLosesNoCounts(t *testing.T) {
	avoidWindowEnd(t, 20*time.Second)
	dir := t.TempDir()
	key := newKey(t, dir)
	s := startServe(t, dir, nil)

	const workers, each, stopAfter = 8, 10, 30 // at most 80 of the Free plan's 100
	var answered atomic.Int64
	stopped := make(chan error, 1)
	var stopOnce sync.Once
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			client := &http.Client{Transport: &http.Transport{}, Timeout: 10 * time.Second}
			for range each {
				req, _ := http.NewRequest(http.MethodGet, s.url+"/dbs/sets", nil)
				req.Header.Set("X-API-Key", key)
				resp, err := client.Do(req)
				if err != nil {
					return // the server stopped listening
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					t.Errorf("GET /dbs/sets: %d", resp.StatusCode)
					return
				}
				if answered.Add(1) == stopAfter {
					stopOnce.Do(func() { go func() { stopped <- s.stop() }() })
				}
			}
		})
	}
	wg.Wait()
	stopOnce.Do(func() { stopped <- s.stop() })
	if err := <-stopped; err != nil {
		t.Fatalf("stop: %v\n%s", err, s.stderr)
	}
	n := answered.Load()
	t.Logf("%d requests answered before the server stopped", n)

	s = startServe(t, dir, nil)
	resp, _ := get(t, s.url+"/dbs/sets", "X-API-Key", key)
	if got, want := limitsOf(t, resp), [4]int64{100, 100 - n - 1, 1000, 1000 - n - 1}; got != want {
		t.Errorf("after %d requests, a stop and a restart, the next request shows %v, want %v", n, got, want)
	}
}
