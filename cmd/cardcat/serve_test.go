package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/config"
	"github.com/cardcat/cardcat/internal/testkit"
	"github.com/cardcat/cardcat/internal/web/accesslog"
)

// server is a cardcat serve started through run, as main starts it.
type server struct {
	url    string
	stop   func() error
	stderr *testkit.SyncBuffer
}

// testEnv returns a getenv over vars only: tests never read the caller's environment.
func testEnv(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// startServe runs `cardcat serve` on a free loopback port with its own data
// directory and waits until it listens.
func startServe(t *testing.T, dataDir string, vars map[string]string, extra ...string) *server {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	stderr := &testkit.SyncBuffer{}
	args := append([]string{"serve", "--addr", "127.0.0.1:0", "--data-dir", dataDir}, extra...)
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, args, testEnv(vars), pw, stderr)
		pw.Close()
	}()
	return awaitListening(t, pr, stderr, cancel, done, nil)
}

// awaitListening reads serve's standard output from pr until it says where
// it listens, and returns that server; its stop cancels serve, waits for it
// (30 s at most), then runs after (when not nil), once.
func awaitListening(t *testing.T, pr io.Reader, stderr *testkit.SyncBuffer, cancel func(), done <-chan error, after func()) *server {
	t.Helper()
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "cardcat listening on "); ok {
				urls <- u
			}
		}
		close(urls)
	}()
	s := &server{stderr: stderr, stop: stopOnce(cancel, done, after)}
	select {
	case u, ok := <-urls:
		if !ok {
			cancel()
			t.Fatalf("serve exited before listening: %v\n%s", <-done, stderr)
		}
		s.url = u
	case <-time.After(60 * time.Second):
		cancel()
		t.Fatalf("serve did not start in time\n%s", stderr)
	}
	t.Cleanup(func() { s.stop() })
	return s
}

// stopOnce is the stop of a serve run whose context cancel cancels and
// whose result comes on done: it cancels, waits 30 s at most, then runs
// after (when not nil); later calls return the first's result.
func stopOnce(cancel func(), done <-chan error, after func()) func() error {
	var once sync.Once
	var err error
	return func() error {
		once.Do(func() {
			cancel()
			select {
			case err = <-done:
			case <-time.After(30 * time.Second):
				err = context.DeadlineExceeded
			}
			if after != nil {
				after()
			}
		})
		return err
	}
}

// inProcessEnv is the Env main makes for serve, over vars, writing to
// stdout and to the returned buffer through the log writer; finish stops
// that writer once the lines still queued are written.
func inProcessEnv(vars map[string]string, stdout io.Writer) (env *Env, stderr *testkit.SyncBuffer, finish func()) {
	stderr = &testkit.SyncBuffer{}
	logs := accesslog.NewBuffer(stderr)
	logCtx, stopLogs := context.WithCancel(context.Background())
	flushed := make(chan struct{})
	go func() { logs.Run(logCtx); close(flushed) }()
	getenv := testEnv(vars)
	logCfg := config.ReadLog(getenv)
	env = &Env{Getenv: getenv, Stdout: stdout, Stderr: stderr, Log: newLogger(logCfg, logs), logs: logs, logCfg: logCfg}
	return env, stderr, func() { stopLogs(); <-flushed }
}

// get sends a GET and reads its answer, checked against the server's
// OpenAPI document (checkAnswer).
func get(t *testing.T, url string, header ...string) (*http.Response, []byte) {
	t.Helper()
	resp, body := fetch(t, url, header...)
	checkAnswer(t, resp.Request, resp, body)
	return resp, body
}

func TestServeEndToEnd(t *testing.T) {
	dir := t.TempDir()
	key := newKey(t, dir)
	s := startServe(t, dir, nil)

	resp, body := get(t, s.url+"/health")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/health: %d %s", resp.StatusCode, body)
	}
	var health struct {
		Status string
		Checks map[string]struct{ Status string }
	}
	if err := json.Unmarshal(body, &health); err != nil || health.Status != "healthy" || health.Checks["database"].Status != "healthy" {
		t.Errorf("/health = %s (%v)", body, err)
	}

	// The sample was loaded on first start: real card names answer at once.
	resp, body = get(t, s.url+"/dbs/search?q=Master+Roshi", "X-API-Key", key)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"name":"Master Roshi"`) {
		t.Errorf("search: %d %.300s", resp.StatusCode, body)
	}
	resp, body = get(t, s.url+"/mtg/sets/WHO", "X-API-Key", key)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"disambiguation":true`) {
		t.Errorf("shared set code: %d %.300s", resp.StatusCode, body)
	}
	if resp.Header.Get("X-Request-Id") == "" || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("headers: %v", resp.Header)
	}
	resp, body = get(t, s.url+"/dbs/sets")
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("no key: %d", resp.StatusCode)
	}
	// Every answer has its Content-Length, never chunked: net/http's for a
	// small body (this 401), ours for a large one, compressed or not.
	// (Accept-Encoding set here, so that Go's transport neither asks for gzip
	// nor decompresses, which would hide the Content-Length.)
	small := body
	big, bigBody := get(t, s.url+"/dbs/search?q=Goku", "X-API-Key", key, "Accept-Encoding", "identity")
	if len(small) > 2048 || len(bigBody) <= 2048 {
		t.Fatalf("bodies of %d and %d bytes do not straddle net/http's 2 KB", len(small), len(bigBody))
	}
	// (Not through get: the document describes the decompressed body.)
	gzReq, _ := http.NewRequest(http.MethodGet, s.url+"/dbs/search?q=Goku", nil)
	gzReq.Header.Set("X-API-Key", key)
	gzReq.Header.Set("Accept-Encoding", "gzip")
	gz, err := http.DefaultClient.Do(gzReq)
	if err != nil {
		t.Fatal(err)
	}
	gzBody, err := io.ReadAll(gz.Body)
	gz.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if gz.Header.Get("Content-Encoding") != "gzip" || len(gzBody) >= len(bigBody) {
		t.Errorf("gzip: Content-Encoding %q, %d bytes of %d", gz.Header.Get("Content-Encoding"), len(gzBody), len(bigBody))
	}
	for _, c := range []struct {
		resp *http.Response
		body []byte
	}{{resp, small}, {big, bigBody}, {gz, gzBody}} {
		if c.resp.ContentLength != int64(len(c.body)) {
			t.Errorf("%s: Content-Length %d for %d bytes (%v)", c.resp.Request.URL, c.resp.ContentLength, len(c.body), c.resp.TransferEncoding)
		}
	}

	if err := s.stop(); err != nil {
		t.Fatalf("serve did not stop cleanly: %v\n%s", err, s.stderr)
	}
	// Every request has its access log line, with the account of a valid key
	// (never the key), flushed by the time serve has stopped.
	logs := s.stderr.String()
	for _, want := range []string{
		` level=INFO msg=request request_id=`,
		` method=GET path="/dbs/search?q=Master+Roshi" status=200 bytes=`,
		` method=GET path=/dbs/sets status=401 bytes=`,
	} {
		if !strings.Contains(logs, want) {
			t.Errorf("the access log has no line with %q:\n%s", want, logs)
		}
	}
	if !regexp.MustCompile(`path=/mtg/sets/WHO status=200 bytes=\d+ duration=\S+ remote=127\.0\.0\.1:\d+ account=\d+\n`).MatchString(logs) ||
		strings.Contains(logs, key) {
		t.Errorf("access log line of a keyed request: want the account, never the key:\n%s", logs)
	}

	// A second start on the same data directory reuses the stored catalogue.
	s2 := startServe(t, dir, nil)
	if strings.Contains(s2.stderr.String(), "loading the bundled sample") {
		t.Error("second start loaded the sample again")
	}
	if resp, _ := get(t, s2.url+"/games"); resp.StatusCode != http.StatusOK {
		t.Errorf("/games after restart: %d", resp.StatusCode)
	}
}

// TestServeFinishesInFlightRequests stops the server while a slow client is
// still reading: the answer completes.
func TestServeGracefulShutdown(t *testing.T) {
	dir := t.TempDir()
	key := newKey(t, dir)
	s := startServe(t, dir, nil)
	req, _ := http.NewRequest(http.MethodGet, s.url+"/mtg/sets", nil)
	req.Header.Set("X-API-Key", key)
	resp, err := checkedClient(t, s.url).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	stopped := make(chan error, 1)
	go func() { stopped <- s.stop() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK || !bytes.Contains(body, []byte(`"success":true`)) {
		t.Errorf("in-flight answer: %d %v %.100s", resp.StatusCode, err, body)
	}
	if err := <-stopped; err != nil {
		t.Errorf("stop: %v", err)
	}
}

func TestIngestCommand(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	err := run(context.Background(), []string{"ingest", "--from", "../../sample", "--data-dir", dir}, testEnv(nil), &out, &errb)
	if err != nil {
		t.Fatalf("ingest: %v\n%s", err, errb.String())
	}
	for _, want := range []string{"dbs: ", "mtg: ", "linked", "ambiguous", "catalogue version 1 written"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, out.String())
		}
	}
	// A missing mirror is an error naming the file, and leaves version 1 in place.
	err = run(context.Background(), []string{"ingest", "--from", dir + "/nowhere", "--data-dir", dir}, testEnv(nil), &out, &errb)
	if err == nil || !strings.Contains(err.Error(), "groups.json") {
		t.Errorf("ingest of a missing mirror: %v", err)
	}
}

func TestCommandLine(t *testing.T) {
	tests := []struct {
		args     []string
		wantCode int
		wantOut  string
	}{
		{[]string{"--help"}, 0, "Commands:"},
		{[]string{"version"}, 0, "cardcat "},
		{[]string{"nope"}, 2, ""},
		{[]string{}, 2, ""},
		{[]string{"serve", "--help"}, 0, "-addr string"},
		{[]string{"ingest", "--help"}, 0, "-from string"},
		{[]string{"serve", "--bogus"}, 2, ""},
		{[]string{"serve", "--database-url", "mysql://x"}, 2, ""},
		{[]string{"ingest", "extra-arg"}, 2, ""},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		err := run(context.Background(), tt.args, testEnv(map[string]string{"CARDCAT_DATA_DIR": t.TempDir()}), &out, &errb)
		code := 0
		if err != nil {
			code = exitCode(err)
		}
		if code != tt.wantCode || !strings.Contains(out.String(), tt.wantOut) {
			t.Errorf("cardcat %v: exit %d (%v), stdout %q; want exit %d and %q", tt.args, code, err, out.String(), tt.wantCode, tt.wantOut)
		}
	}
	if os.Getenv("CARDCAT_DATA_DIR") != "" {
		t.Log("note: CARDCAT_DATA_DIR is set in the environment; tests ignore it")
	}
}
