package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/testkit"
)

// startServeArgs runs `cardcat serve` with exactly args and vars and waits
// until it listens.
func startServeArgs(t *testing.T, vars map[string]string, args ...string) *server {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	stderr := &testkit.SyncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"serve"}, args...), testEnv(vars), pw, stderr)
		pw.Close()
	}()
	return awaitListening(t, pr, stderr, cancel, done, nil)
}

// TestServePublicURLFollowsAddr: without --public-url, every URL serve gives
// callers (the verification link in the log, redeem_url, the 401's example,
// the bulk files) is the address it listens on, and the log says so once.
func TestServePublicURLFollowsAddr(t *testing.T) {
	dir := t.TempDir()
	key := newKey(t, dir)
	_, port, _ := net.SplitHostPort(closedPort(t))
	public := "http://localhost:" + port
	s := startServeArgs(t, map[string]string{"CARDCAT_ADDR": ":" + port}, "--data-dir", dir)

	// A 401's example.
	resp, body := get(t, public+"/mtg/sets")
	var e struct{ Example string }
	if json.Unmarshal(body, &e); resp.StatusCode != http.StatusUnauthorized || !strings.Contains(e.Example, `"`+public+`/mtg/sets"`) {
		t.Errorf("401: %d %s; want the example on %s", resp.StatusCode, body, public)
	}
	// A paid route before the trial: redeem_url.
	resp, body = get(t, public+"/dbs/sets/trending", "X-API-Key", key)
	var paid struct {
		RedeemURL string `json:"redeem_url"`
	}
	if json.Unmarshal(body, &paid); resp.StatusCode != http.StatusForbidden || paid.RedeemURL != public+"/account/trial" {
		t.Errorf("paid route: %d %s; want redeem_url %s/account/trial", resp.StatusCode, body, public)
	}
	// The bulk files.
	for _, f := range bulkListing(t, &server{url: public, stderr: s.stderr}, key, "dbs") {
		if want := public + "/dbs/bulk/" + f.Name; f.URL != want {
			t.Errorf("bulk file URL %s, want %s", f.URL, want)
		}
	}
	// The verification link of a sign-up, logged (no SMTP).
	resp, err := http.PostForm(public+"/account/signup", url.Values{"email": {"new@example.com"}, "password": {"a long enough passphrase 2026"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("sign-up: %d", resp.StatusCode)
	}
	waitLog(t, s, `link="`+public+"/account/verify?token=")

	if n := strings.Count(s.stderr.String(), `msg="public URL" url=`+public+" from="); n != 1 {
		t.Errorf("%d log lines name the public URL %s, want 1:\n%s", n, public, s.stderr)
	}
}

// TestServePublicURLSet: --public-url (or CARDCAT_PUBLIC_URL) wins over the
// address, and the log names where it came from.
func TestServePublicURLSet(t *testing.T) {
	s := startServeArgs(t, map[string]string{"CARDCAT_PUBLIC_URL": "https://api.example.test"}, "--addr", "127.0.0.1:0", "--data-dir", t.TempDir())
	_, body := get(t, s.url+"/mtg/sets")
	var e struct{ Example string }
	if json.Unmarshal(body, &e); !strings.HasSuffix(e.Example, ` "https://api.example.test/mtg/sets"`) {
		t.Errorf("401: %s; want the example on the public URL", body)
	}
	waitLog(t, s, `msg="public URL" url=https://api.example.test from=CARDCAT_PUBLIC_URL`)
}

func TestListenURL(t *testing.T) {
	for _, tt := range []struct {
		addr string
		port int // the listener's
		want string
	}{
		{":8081", 8081, "http://localhost:8081"},
		{"0.0.0.0:8081", 8081, "http://localhost:8081"},
		{"[::]:8081", 8081, "http://localhost:8081"},
		{"127.0.0.1:0", 40123, "http://127.0.0.1:40123"},
		{"[::1]:9000", 9000, "http://[::1]:9000"},
		{"cardcat.internal:80", 80, "http://cardcat.internal:80"},
		{"localhost:8081", 8081, "http://localhost:8081"},
	} {
		if got := listenURL(tt.addr, &net.TCPAddr{Port: tt.port}); got != tt.want {
			t.Errorf("listenURL(%q, port %d) = %s, want %s", tt.addr, tt.port, got, tt.want)
		}
	}
}

// TestServeAddressInUse: an address another program holds fails at once,
// before the store is opened or the sample loaded, naming the address, where
// it came from and how to choose another.
func TestServeAddressInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	addr := ln.Addr().String()
	for _, tt := range []struct {
		name string
		vars map[string]string
		args []string
		from string
	}{
		{"flag", nil, []string{"--addr", addr}, "(--addr)"},
		{"variable", map[string]string{"CARDCAT_ADDR": addr}, nil, "(CARDCAT_ADDR)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "data")
			var stdout, stderr bytes.Buffer
			start := time.Now()
			err := run(context.Background(), append([]string{"serve", "--data-dir", dir}, tt.args...), testEnv(tt.vars), &stdout, &stderr)
			if err == nil {
				t.Fatal("serve started on an address in use")
			}
			msg := err.Error()
			for _, want := range []string{"cannot listen on " + addr + " " + tt.from, "address already in use", "--addr or CARDCAT_ADDR"} {
				if !strings.Contains(msg, want) {
					t.Errorf("error %q lacks %q", msg, want)
				}
			}
			if exitCode(err) != 1 {
				t.Errorf("exit %d, want 1", exitCode(err))
			}
			if strings.Contains(stderr.String(), "sample") {
				t.Errorf("the sample was loaded before the address was tried:\n%s", &stderr)
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("the data directory was made (%v): the store was opened before the address was tried", err)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("failed after %s", d)
			}
		})
	}
}
