package httpapi

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/serving"
)

func TestMethodsGolden(t *testing.T) {
	h := fixtureHandler(t)
	for _, tc := range []struct {
		name, method, target string
		status               int
		headers              []string
	}{
		{"errors_method_post", http.MethodPost, "/dbs/sets", 405, nil},
		{"errors_method_head", http.MethodHead, "/dbs/sets", 405, nil},
		{"errors_method_delete_unknown_path", http.MethodDelete, "/nope", 405, nil},
		{"errors_method_options_without_preflight", http.MethodOptions, "/dbs/sets", 405, nil},
		{"errors_cors_preflight", http.MethodOptions, "/dbs/sets", 204,
			[]string{"Origin", "https://app.example", "Access-Control-Request-Method", "GET", "X-API-Key", ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := do(h, tc.method, tc.target, tc.headers...)
			if w.Code != tc.status {
				t.Errorf("%s %s: status %d, want %d", tc.method, tc.target, w.Code, tc.status)
			}
			checkGolden(t, tc.name, w)
		})
	}
}

// TestCommonHeaders: every answer, whatever its status, has CORS headers
// and a request id.
func TestCommonHeaders(t *testing.T) {
	h := fixtureHandler(t)
	for _, tc := range []struct {
		method, target string
		headers        []string
	}{
		{"GET", "/", nil},
		{"GET", "/dbs/sets", nil},
		{"GET", "/dbs/sets", []string{"X-API-Key", ""}},
		{"GET", "/nope", nil},
		{"POST", "/dbs/sets", nil},
		{"GET", "/dbs/search?q=x", nil},
		{"GET", "/dbs//sets", nil},
	} {
		w := do(h, tc.method, tc.target, append(tc.headers, "X-Request-Id", "")...)
		hd := w.Header()
		if hd.Get("Access-Control-Allow-Origin") != "*" ||
			!strings.Contains(hd.Get("Access-Control-Expose-Headers"), "X-RateLimit-Remaining-Hour") ||
			!strings.Contains(hd.Get("Access-Control-Expose-Headers"), "Retry-After") ||
			!strings.Contains(hd.Get("Access-Control-Expose-Headers"), "ETag") ||
			hd.Get("X-Request-Id") == "" {
			t.Errorf("%s %s (%d): headers %v", tc.method, tc.target, w.Code, hd)
		}
		if w.Code != 204 && hd.Get("Content-Type") != "application/json; charset=utf-8" {
			t.Errorf("%s %s: Content-Type %q", tc.method, tc.target, hd.Get("Content-Type"))
		}
	}
}

// TestTransferEncodingClosesConnection: after answering a request sent
// with Transfer-Encoding, Content-Length besides or not, the server closes
// the connection (RFC 9112, 6.1: a request with both may be an attempt to
// smuggle a second one); a plain request keeps it open. Over a real
// listener: the connection's fate is net/http's, not the handler's.
func TestTransferEncodingClosesConnection(t *testing.T) {
	srv := httptest.NewServer(fixtureHandler(t))
	t.Cleanup(srv.Close)
	for _, tc := range []struct {
		name    string
		request string
		closed  bool
	}{
		{"Content-Length and Transfer-Encoding", "GET / HTTP/1.1\r\nHost: api.cardcat.test\r\nContent-Length: 5\r\n" +
			"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n", true},
		{"Transfer-Encoding and Content-Length", "POST /mcp HTTP/1.1\r\nHost: api.cardcat.test\r\nTransfer-Encoding: chunked\r\n" +
			"Content-Length: 3\r\n\r\n2\r\n{}\r\n0\r\n\r\n", true},
		{"Transfer-Encoding alone", "GET / HTTP/1.1\r\nHost: api.cardcat.test\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", true},
		{"Content-Length alone", "GET / HTTP/1.1\r\nHost: api.cardcat.test\r\nContent-Length: 2\r\n\r\n{}", false},
		{"no body", "GET / HTTP/1.1\r\nHost: api.cardcat.test\r\n\r\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", srv.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			conn.SetDeadline(time.Now().Add(10 * time.Second))
			if _, err := io.WriteString(conn, tc.request); err != nil {
				t.Fatal(err)
			}
			br := bufio.NewReader(conn)
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			// Closed: the next read ends at once. Open: it waits for an
			// answer that never comes, until the deadline.
			conn.SetReadDeadline(time.Now().Add(time.Second))
			_, err = br.ReadByte()
			var ne net.Error
			open := errors.As(err, &ne) && ne.Timeout()
			if open == tc.closed {
				t.Errorf("%d %v; after the answer: %v, want the connection closed %v", resp.StatusCode, resp.Header, err, tc.closed)
			}
			if tc.closed && !resp.Close {
				t.Errorf("the answer does not say Connection: close: %v", resp.Header)
			}
		})
	}
}

func TestRequestID(t *testing.T) {
	h := fixtureHandler(t)
	if got := get(h, "/", "X-Request-Id", "abc-123").Header().Get("X-Request-Id"); got != "abc-123" {
		t.Errorf("caller's id not kept: %q", got)
	}
	a := get(h, "/", "X-Request-Id", "").Header().Get("X-Request-Id")
	b := get(h, "/", "X-Request-Id", "bad id with spaces").Header().Get("X-Request-Id")
	if a == "" || b == "" || a == b || strings.Contains(b, " ") {
		t.Errorf("generated ids %q, %q", a, b)
	}
}

func TestPanicIsLogged500(t *testing.T) {
	var logs bytes.Buffer
	deps := testDeps(nil)
	deps.Logger = slog.New(slog.NewJSONHandler(&logs, nil))
	deps.View = func() *serving.View { panic("secret internal detail") }
	h := mustServer(t, Config{}, deps)
	w := get(h, "/dbs/sets")
	if w.Code != 500 || w.Header().Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("status %d, headers %v", w.Code, w.Header())
	}
	if strings.Contains(w.Body.String(), "secret") {
		t.Errorf("the answer leaks the panic: %s", w.Body)
	}
	if !strings.Contains(logs.String(), "secret internal detail") || !strings.Contains(logs.String(), `"request_id":"test-request"`) {
		t.Errorf("panic not logged with its request id: %s", logs.String())
	}
	checkGolden(t, "errors_internal", w)
}

func TestAccessLog(t *testing.T) {
	var logs bytes.Buffer
	deps := testDeps(mustView(t, mustFixture(t)))
	deps.Logger = slog.New(slog.NewJSONHandler(&logs, nil))
	h := mustServer(t, Config{}, deps)
	get(h, "/dbs/sets?x=1")
	for _, want := range []string{`"msg":"request"`, `"request_id":"test-request"`, `"method":"GET"`,
		`"path":"/dbs/sets?x=1"`, `"status":200`, `"bytes":`} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("access log lacks %s: %s", want, logs.String())
		}
	}
	if strings.Contains(logs.String(), testKey) {
		t.Errorf("access log holds the API key")
	}
}

func TestTrailingSlash(t *testing.T) {
	h := fixtureHandler(t)
	for _, p := range []string{"/dbs/sets", "/dbs/sets/FB01", "/dbs/search?q=goku", "/games", "/health"} {
		a := get(h, p)
		slashed := strings.Replace(p, "?", "/?", 1)
		if !strings.Contains(p, "?") {
			slashed = p + "/"
		}
		b := get(h, slashed)
		if a.Code != 200 || b.Code != 200 || a.Body.String() != b.Body.String() {
			t.Errorf("%s (%d) and %s (%d) differ", p, a.Code, slashed, b.Code)
		}
	}
}
