// Package livetest starts a real `cardcat serve` for the clients' tests: the
// binary built from this module, on a free loopback port, on a fresh data
// directory (the bundled sample, loaded at start), with its defaults and the
// public URL of its defaults' address, http://localhost:8080 (so that it
// serves clients/openapi.json), three keys made with `cardcat keys create`,
// and the Ultra account's price alerts (PaidAlerts). Start returns once the
// server has built its bulk files (GET /{game}/bulk lists them all).
package livetest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/bulk"
	"github.com/cardcat/cardcat/internal/testkit"
)

// The limited account's custom limits (business plan): its third request of
// an hour is refused, and one of any 6 requests is, even across an hour's end.
const (
	LimitedPerHour = 2
	LimitedPerDay  = 5
)

// Server is a running `cardcat serve`.
type Server struct {
	URL string
	// Key is a Free account's key (100 requests an hour).
	Key string
	// PaidKey is an Ultra account's key: the paid endpoints.
	PaidKey string
	// LimitedKey is the key of an account limited to LimitedPerHour requests
	// an hour and LimitedPerDay a day, for the 429.
	LimitedKey string
}

// Build builds cmd/cardcat into dir and returns the binary's path.
func Build(tb testing.TB, dir string) string {
	tb.Helper()
	root, err := ModuleRoot()
	if err != nil {
		tb.Fatal(err)
	}
	bin := filepath.Join(dir, "cardcat")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/cardcat")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("go build ./cmd/cardcat: %v\n%s", err, out)
	}
	return bin
}

// ModuleRoot is the directory of this module's go.mod.
func ModuleRoot() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", errors.New("livetest: no caller")
	}
	// clients/internal/livetest/livetest.go
	root := filepath.Join(filepath.Dir(file), "..", "..", "..")
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		return "", fmt.Errorf("livetest: module root: %w", err)
	}
	return filepath.Abs(root)
}

// Start builds cmd/cardcat, makes a data directory with the three keys, starts
// `cardcat serve` on it, waits until it answers, and stops it when the test
// ends. A test package starts one and runs its cases as subtests of it. The
// server's environment is the test's without CARDCAT_* variables, plus env
// (the image sources of a test that serves images: CARDCAT_TCGPLAYER_IMAGE_URL).
func Start(tb testing.TB, env ...string) *Server {
	tb.Helper()
	bin := Build(tb, tb.TempDir())
	dataDir := tb.TempDir()
	s := &Server{
		Key:        createKey(tb, bin, dataDir, "free@example.com"),
		PaidKey:    createKey(tb, bin, dataDir, "paid@example.com"),
		LimitedKey: createKey(tb, bin, dataDir, "limited@example.com"),
	}
	command(tb, bin, "accounts", "set-plan", "--data-dir", dataDir, "--email", "paid@example.com", "--plan", "ultra")
	command(tb, bin, "accounts", "set-plan", "--data-dir", dataDir, "--email", "limited@example.com",
		"--plan", "business", "--hour", fmt.Sprint(LimitedPerHour), "--day", fmt.Sprint(LimitedPerDay))

	// The public URL of the defaults (the one clients/openapi.json names),
	// not the listen address it would follow.
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--public-url", "http://localhost:8080", "--data-dir", dataDir)
	cmd.Env = append(Environ(), env...)
	var stderr testkit.SyncBuffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	exited := make(chan error, 1)
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "cardcat listening on "); ok {
				urls <- u
			}
		}
		io.Copy(io.Discard, stdout)
		exited <- cmd.Wait()
	}()
	tb.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			tb.Errorf("cardcat serve did not stop in 30 s\n%s", &stderr)
		}
		if tb.Failed() {
			tb.Logf("cardcat serve's log:\n%s", &stderr)
		}
	})
	select {
	case s.URL = <-urls:
	case err := <-exited:
		tb.Fatalf("cardcat serve exited before listening: %v\n%s", err, &stderr)
	case <-time.After(60 * time.Second):
		tb.Fatalf("cardcat serve did not listen in 60 s\n%s", &stderr)
	}
	waitHealthy(tb, s.URL)
	createAlerts(tb, bin, dataDir)
	waitBulkFiles(tb, s.URL, s.PaidKey)
	return s
}

// bulkDeadline is how long waitBulkFiles waits: building the sample's files
// takes seconds, but the tests may run on a loaded machine.
const bulkDeadline = 3 * time.Minute

// waitBulkFiles waits until every game's GET /{game}/bulk (each listing
// route of the server's /openapi.json) lists every bulk file: serve builds
// a version's files in the background once it listens, and until then a
// download is a 503 with Retry-After and the listing lacks the file. It
// polls with If-None-Match, so that an unchanged listing is a 304, which the
// key's counters do not count.
func waitBulkFiles(tb testing.TB, url, key string) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), bulkDeadline)
	defer cancel()
	for _, route := range bulkListings(tb, url) {
		if last, ok := waitBulkListing(ctx, url+route, key); !ok {
			tb.Fatalf("GET %s did not list the bulk files %q in %v (last: %s)", route, bulk.Names, bulkDeadline, last)
		}
	}
}

// waitBulkListing polls one bulk listing until it lists every bulk file or
// ctx ends; last says what it answered last.
func waitBulkListing(ctx context.Context, url, key string) (last string, ok bool) {
	var etag string
	for {
		names, tag, status, err := bulkListing(ctx, url, key, etag)
		switch {
		case err != nil && ctx.Err() != nil:
			// The wait's own end, in the middle of a request: what the
			// server said last is the news, not the deadline.
			if last == "" {
				last = err.Error()
			}
			return last, false
		case err != nil:
			last = err.Error()
		case status == http.StatusNotModified:
		case status != http.StatusOK:
			last = fmt.Sprintf("status %d", status)
		case slices.Equal(names, bulk.Names):
			return "", true
		default:
			etag, last = tag, fmt.Sprintf("files %q", names)
		}
		select {
		case <-ctx.Done():
			return last, false
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// bulkListings are the paths of the bulk listings of every game the server
// serves, from its /openapi.json: /bulk (the base game) and /{game}/bulk
// for each game of the game parameter's enum.
func bulkListings(tb testing.TB, url string) []string {
	tb.Helper()
	resp, err := http.Get(url + "/openapi.json")
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	var doc struct {
		Paths      map[string]json.RawMessage
		Components struct {
			Parameters struct {
				Game struct {
					Schema struct {
						Enum []string
					}
				} `json:"game"`
			}
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil || resp.StatusCode != http.StatusOK {
		tb.Fatalf("GET /openapi.json: %s: %v", resp.Status, err)
	}
	var routes []string
	for path := range doc.Paths {
		switch path {
		case "/bulk":
			routes = append(routes, path)
		case "/{game}/bulk":
			for _, game := range doc.Components.Parameters.Game.Schema.Enum {
				routes = append(routes, "/"+game+"/bulk")
			}
		}
	}
	if len(routes) == 0 {
		tb.Fatalf("GET /openapi.json has no bulk listing")
	}
	slices.Sort(routes)
	return routes
}

// bulkListing is one GET of a bulk listing: the names of the files it
// lists, its ETag and its status.
func bulkListing(ctx context.Context, url, key, etag string) (names []string, tag string, status int, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, "", 0, err
	}
	req.Header.Set("X-API-Key", key)
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, "", 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, "", resp.StatusCode, nil
	}
	var body struct {
		Files []struct{ Name string }
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return nil, "", resp.StatusCode, fmt.Errorf("GET %s: %w", url, err)
	}
	for _, f := range body.Files {
		names = append(names, f.Name)
	}
	return names, resp.Header.Get("ETag"), resp.StatusCode, nil
}

// PaidAlerts are the alerts of the Ultra account (PaidKey), as GET /alerts
// lists them, made by createAlerts: one with a webhook, a move on
// Cardmarket, and one of the base game that emails; none is evaluated
// before the server's next catalogue version.
var PaidAlerts = []string{
	"1 dbs_3ef29751ae2b88a4 tcg Holofoil above 12.50 USD",
	"2 dbs_3ef29751ae2b88a4 cm foil move 20%",
	"3 pkm_7dfccec2b4149d0f tcg Holofoil below 40.00 USD",
}

// createAlerts gives the Ultra account a webhook and the alerts of
// PaidAlerts with `cardcat webhooks create` and `alerts create`, once the
// server has loaded the sample (an alert's card is checked against the
// store's catalogue); the account is verified first, as an alert that
// emails needs. Neither the webhook nor the email is sent: nothing fires
// before a new catalogue version.
func createAlerts(tb testing.TB, bin, dataDir string) {
	tb.Helper()
	const hook = "https://example.com/cardcat/hooks"
	account := []string{"--data-dir", dataDir, "--email", "paid@example.com"}
	command(tb, bin, "accounts", "verify", "--data-dir", dataDir, "--email", "paid@example.com")
	command(tb, bin, append([]string{"webhooks", "create", "--url", hook}, account...)...)
	for _, args := range [][]string{
		{"--card", "dbs_3ef29751ae2b88a4", "--source", "tcg", "--variant", "Holofoil", "--above", "12.50", "--webhook", hook},
		{"--card", "dbs_3ef29751ae2b88a4", "--source", "cm", "--variant", "foil", "--move", "20"},
		{"--card", "pkm_7dfccec2b4149d0f", "--source", "tcg", "--variant", "Holofoil", "--below", "40", "--email-notify"},
	} {
		command(tb, bin, append(append([]string{"alerts", "create"}, account...), args...)...)
	}
}

// Environ is the test's environment without CARDCAT_* variables, so that
// the server (and a client's example) runs on its defaults whatever the
// caller's shell sets.
func Environ() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CARDCAT_") {
			env = append(env, kv)
		}
	}
	return env
}

func command(tb testing.TB, bin string, args ...string) string {
	tb.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = Environ()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("cardcat %s: %v\n%s", strings.Join(args, " "), err, &stderr)
	}
	return string(out)
}

// createKey runs `cardcat keys create` for a new account of that email and
// returns the key, the last line it prints.
func createKey(tb testing.TB, bin, dataDir, email string) string {
	tb.Helper()
	out := strings.TrimSpace(command(tb, bin, "keys", "create", "--data-dir", dataDir, "--email", email))
	key := out[strings.LastIndexByte(out, '\n')+1:]
	if !strings.HasPrefix(key, "pk_") {
		tb.Fatalf("keys create printed %q", out)
	}
	return key
}

func waitHealthy(tb testing.TB, url string) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url+"/health", nil)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		select {
		case <-ctx.Done():
			tb.Fatalf("%s/health not 200 in 30 s (last: %v)", url, err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}
