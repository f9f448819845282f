package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/serving"
)

// TestServeAdminAddr: a non-loopback admin address is a usage error (exit 2)
// that names the flag to use, unless the operator allows it, by flag or
// variable; then serve warns at start-up.
func TestServeAdminAddr(t *testing.T) {
	for _, tt := range []struct {
		env  map[string]string
		args []string
		ok   bool
	}{
		{nil, []string{"--admin-addr", "127.0.0.1:6060"}, true},
		{nil, []string{"--admin-addr", "localhost:6060"}, true},
		{nil, []string{"--admin-addr", "0.0.0.0:6060"}, false},
		{nil, []string{"--admin-addr", ":6060"}, false},
		{map[string]string{"CARDCAT_ADMIN_ADDR": "0.0.0.0:6060"}, nil, false},
		{nil, []string{"--admin-addr", "0.0.0.0:6060", "--admin-allow-public"}, true},
		{map[string]string{"CARDCAT_ADMIN_ADDR": "0.0.0.0:6060", "CARDCAT_ADMIN_ALLOW_PUBLIC": "true"}, nil, true},
		{map[string]string{"CARDCAT_ADMIN_ALLOW_PUBLIC": "true"}, []string{"--admin-addr", "0.0.0.0:6060", "--admin-allow-public=false"}, false},
		{map[string]string{"CARDCAT_ADMIN_ALLOW_PUBLIC": "yes please"}, nil, false},
	} {
		env, _ := configEnv(tt.env)
		_, err := parseServe(env, tt.args)
		if tt.ok != (err == nil) {
			t.Errorf("env %v, args %v: %v", tt.env, tt.args, err)
			continue
		}
		if err == nil {
			continue
		}
		if exitCode(err) != 2 {
			t.Errorf("env %v, args %v: exit %d, want 2 (%v)", tt.env, tt.args, exitCode(err), err)
		}
		if !strings.Contains(err.Error(), "CARDCAT_ADMIN_ALLOW_PUBLIC") {
			t.Errorf("env %v, args %v: %q does not name the setting that allows it", tt.env, tt.args, err)
		}
	}

	// Allowed: it starts, and says so once at start-up.
	dir := t.TempDir()
	s := startServe(t, dir, nil, "--admin-addr", "0.0.0.0:0", "--admin-allow-public")
	admin := adminURL(t, s)
	admin = strings.Replace(admin, "0.0.0.0", "127.0.0.1", 1)
	poll(t, 5*time.Second, 20*time.Millisecond, "no start-up warning of a public admin address", func() bool {
		return strings.Contains(s.stderr.String(), `level=WARN msg="the admin server may be reachable from other hosts`)
	})
	if code, body := probe(t, admin+"/livez"); code != http.StatusOK || body != "ok\n" {
		t.Errorf("/livez: %d %q", code, body)
	}
	if code, body := probe(t, admin+"/readyz"); code != http.StatusOK || body != "ok\n" {
		t.Errorf("/readyz: %d %q", code, body)
	}

	// A loopback address: no warning.
	s2 := startServe(t, t.TempDir(), nil, "--admin-addr", "127.0.0.1:0")
	admin2 := adminURL(t, s2)
	if strings.Contains(s2.stderr.String(), "reachable from other hosts") {
		t.Errorf("a loopback admin address warned:\n%s", s2.stderr)
	}

	// The footprint of the served sample: its products, its parts, the
	// process's memory.
	code, body := probe(t, admin2+"/debug/footprint")
	var fp serving.Footprint
	if err := json.Unmarshal([]byte(body), &fp); code != http.StatusOK || err != nil {
		t.Fatalf("/debug/footprint: %d %v\n%.300s", code, err, body)
	}
	if fp.Products == 0 || len(fp.Parts) == 0 || fp.Process.RssAnon == 0 {
		t.Errorf("/debug/footprint: %d products, %d parts, process %+v", fp.Products, len(fp.Parts), fp.Process)
	}
}
