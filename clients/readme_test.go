// The clients' README examples, run as a reader would copy them against a
// real `cardcat serve` on the bundled sample (the Python client's README is
// run by its own tests, python/tests/test_live.py).
package clients_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cardcat/cardcat/clients/internal/livetest"
)

// readmeURL is the server the READMEs' examples name; the test puts its
// own in its place.
const readmeURL = "http://localhost:8080"

// TestREADMEExamples runs the examples of the Go and the TypeScript
// clients' READMEs against a real `cardcat serve` on the bundled sample,
// through a proxy that keeps every answer: each must be a success (an id
// the sample lacks is a 404), each search must find a card, and what the
// examples print must show values, not pointers.
func TestREADMEExamples(t *testing.T) {
	srv := livetest.Start(t)
	t.Run("go", func(t *testing.T) {
		blocks := readmeBlocks(t, filepath.Join("go", "cardcat", "README.md"), "go")
		if len(blocks) < 2 || !strings.HasPrefix(blocks[0], "package main\n") {
			t.Fatalf("go/cardcat/README.md: want a whole program (package main) then blocks that go on in its main, got %d blocks", len(blocks))
		}
		// The blocks after the first go on at the end of its main.
		end := strings.LastIndex(blocks[0], "}")
		program := blocks[0][:end] + strings.Join(blocks[1:], "\n") + "}\n"
		proxy := startRecordingProxy(t, srv.URL)
		out := runGoProgram(t, pointAt(t, program, proxy.URL), "CARDCAT_KEY="+srv.Key)
		proxy.check(t, out, 3)
	})
	t.Run("ts", func(t *testing.T) {
		dir := tsCopy(t, tsInstalled(t))
		blocks := readmeBlocks(t, filepath.Join("ts", "README.md"), "ts")
		if len(blocks) < 2 {
			t.Fatalf("ts/README.md: want at least 2 ts blocks, got %d", len(blocks))
		}
		// One module, the blocks in order, importing the client from its
		// sources rather than from the installed package.
		module := strings.ReplaceAll(strings.Join(blocks, "\n"), `from "cardcat-client"`, `from "../src/index.js"`)
		proxy := startRecordingProxy(t, srv.URL)
		if err := os.WriteFile(filepath.Join(dir, "test", "readme.ts"), []byte(pointAt(t, module, proxy.URL)), 0o644); err != nil {
			t.Fatal(err)
		}
		node(t, dir, filepath.Join("node_modules", "typescript", "bin", "tsc"), "-p", ".")
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "node", filepath.Join("dist", "test", "readme.js"))
		cmd.Dir = dir
		cmd.Env = append(livetest.Environ(), "CARDCAT_KEY="+srv.Key, "NO_COLOR=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("node dist/test/readme.js: %v\n%s", err, out)
		}
		proxy.check(t, string(out), 3)
	})
}

// readmeBlocks are the code blocks of lang (```lang) in file, in order.
func readmeBlocks(t *testing.T, file, lang string) []string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var blocks []string
	for _, m := range regexp.MustCompile("(?ms)^```"+regexp.QuoteMeta(lang)+"\n(.*?)^```$").FindAllSubmatch(b, -1) {
		blocks = append(blocks, string(m[1]))
	}
	return blocks
}

// pointAt puts url in the place of the server the examples name.
func pointAt(t *testing.T, code, url string) string {
	t.Helper()
	if !strings.Contains(code, readmeURL) {
		t.Fatalf("the examples do not name %s, which the test replaces with its server's address", readmeURL)
	}
	return strings.ReplaceAll(code, readmeURL, url)
}

// runGoProgram builds program as its own module, which requires this one
// through a replace directive (the way to use the client from a checkout),
// without the network: the module cache and this module's go.sum have
// every module it needs. It runs the program with env and returns what it
// printed.
func runGoProgram(t *testing.T, program string, env ...string) string {
	t.Helper()
	root, err := livetest.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	goMod, err := callerGoMod("readme", root, readFile(t, filepath.Join(root, "go.mod")))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files := map[string]string{
		"main.go": program,
		"go.mod":  goMod,
		"go.sum":  readFile(t, filepath.Join(root, "go.sum")),
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	goEnv := append(livetest.Environ(), "GOPROXY=off", "GOWORK=off", "CGO_ENABLED=0")
	// -mod=mod adds the client's requirements to go.mod, at the versions
	// this module requires (go mod tidy would look for its dependencies'
	// test dependencies too).
	build := exec.CommandContext(ctx, "go", "build", "-mod=mod", "-o", "readme", ".")
	build.Dir = dir
	build.Env = goEnv
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s\nthe program:\n%s", err, out, program)
	}
	cmd := exec.CommandContext(ctx, filepath.Join(dir, "readme"))
	cmd.Env = append(livetest.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the README's program: %v\n%s", err, out)
	}
	return string(out)
}

// callerGoMod is the go.mod of a module named module that requires this
// one (at root, whose go.mod is rootGoMod) through a replace directive, the
// way to use the client from a checkout. It also requires what this module
// requires, at the same versions, so that its module graph is this one's:
// without them the go command looks for go.mod files this module's pruned
// graph never needs (go-jsonmerge's, which predates pruning), which an
// offline build (GOPROXY=off) on a fresh module cache does not have.
func callerGoMod(module, root, rootGoMod string) (string, error) {
	goVersion := regexp.MustCompile(`(?m)^go (\S+)$`).FindStringSubmatch(rootGoMod)
	if goVersion == nil {
		return "", fmt.Errorf("go.mod has no go line")
	}
	var b strings.Builder
	b.WriteString("module " + module + "\n\ngo " + goVersion[1] + "\n\n")
	for _, req := range regexp.MustCompile(`(?ms)^require \(.*?^\)$`).FindAllString(rootGoMod, -1) {
		b.WriteString(req + "\n\n")
	}
	b.WriteString("require github.com/cardcat/cardcat v0.0.0\n\nreplace github.com/cardcat/cardcat => " + root + "\n")
	return b.String(), nil
}

func readFile(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// recordingProxy forwards requests to the server and keeps its answers.
type recordingProxy struct {
	URL     string
	mu      sync.Mutex
	answers []recordedAnswer
}

type recordedAnswer struct {
	target string // path and query
	status int
	body   []byte
}

func startRecordingProxy(t *testing.T, target string) *recordingProxy {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := &recordingProxy{}
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(u)
			r.Out.Header.Del("Accept-Encoding") // bodies the test can read
		},
		ModifyResponse: func(resp *http.Response) error {
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				return err
			}
			resp.Body = io.NopCloser(bytes.NewReader(body))
			p.mu.Lock()
			defer p.mu.Unlock()
			p.answers = append(p.answers, recordedAnswer{resp.Request.URL.RequestURI(), resp.StatusCode, body})
			return nil
		},
	}
	s := httptest.NewServer(rp)
	t.Cleanup(s.Close)
	p.URL = s.URL
	return p
}

// pointer is how Go prints a pointer (%v of a *T): an example that prints
// one shows an address, not the value.
var pointer = regexp.MustCompile(`0x[0-9a-f]{6,}`)

// check fails the test unless the examples made at least min requests, each
// answered with a success, each search finding a card, and printed values.
func (p *recordingProxy) check(t *testing.T, out string, min int) {
	t.Helper()
	t.Logf("the examples printed:\n%s", out)
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.answers) < min {
		t.Errorf("the examples sent %d requests, want at least %d", len(p.answers), min)
	}
	for _, a := range p.answers {
		if a.status/100 != 2 {
			t.Errorf("GET %s: %d %s (use ids and names of the bundled sample)", a.target, a.status, a.body)
			continue
		}
		if strings.Contains(strings.SplitN(a.target, "?", 2)[0], "/search") {
			var found struct{ Pagination struct{ Total int } }
			if err := json.Unmarshal(a.body, &found); err != nil || found.Pagination.Total == 0 {
				t.Errorf("GET %s finds nothing on the bundled sample (%v): search a name it has", a.target, err)
			}
		}
	}
	if strings.TrimSpace(out) == "" {
		t.Error("the examples printed nothing")
	}
	if m := pointer.FindString(out); m != "" {
		t.Errorf("the examples print a pointer (%s), not its value", m)
	}
	for _, bad := range []string{"undefined", "[object Object]", "<nil>"} {
		if strings.Contains(out, bad) {
			t.Errorf("the examples print %q", bad)
		}
	}
}
