package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/faultproxy"
	"github.com/jackc/pgx/v5"
)

// Fault tests: `cardcat serve` on PostgreSQL through a proxy the test cuts,
// the way a partition (black hole) or a dead server (refused) would. The
// catalogue and the keys are in memory, so the API goes on answering; /health
// says the database is down but stays 200 (a load balancer must not pull every
// replica at once); the refresh loops log the outage once, do not hang, and
// pick up what changed during it once the database is back.

// postgresURLVar names the PostgreSQL of the tests; without it they skip.
const postgresURLVar = "CARDCAT_TEST_POSTGRES_URL"

// postgresSchema creates a schema of its own for the test, dropped at its
// end, and returns the test database's URL with its search_path set to it.
func postgresSchema(t *testing.T) string {
	t.Helper()
	base := os.Getenv(postgresURLVar)
	if base == "" {
		t.Skipf("PostgreSQL fault tests need %s, e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable", postgresURLVar)
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("%s: %v", postgresURLVar, err)
	}
	b := make([]byte, 8)
	rand.Read(b)
	schema := "cardcat_test_" + hex.EncodeToString(b)
	exec := func(query string) error {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, base)
		if err != nil {
			return err
		}
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, query)
		return err
	}
	if err := exec("CREATE SCHEMA " + schema); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		if err := exec("DROP SCHEMA " + schema + " CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// viaProxy returns dbURL with its host replaced by the proxy's.
func viaProxy(t *testing.T, dbURL string, p *faultproxy.Proxy) string {
	t.Helper()
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	u.Host = p.Addr()
	return u.String()
}

// adminURL is the admin listener's base URL, read from the start-up log.
func adminURL(t *testing.T, s *server) string {
	t.Helper()
	re := regexp.MustCompile(`msg="admin[^"]*listening" addr=(\S+)`)
	var m []string
	poll(t, 5*time.Second, 20*time.Millisecond, "no admin listener in the log", func() bool {
		m = re.FindStringSubmatch(s.stderr.String())
		return m != nil
	})
	return "http://" + m[1]
}

// healthOf is the part of a /health answer these tests look at.
type healthOf struct {
	Status  string
	Message string
	Checks  map[string]struct{ Status, Message string }
}

func getHealth(t *testing.T, s *server) (int, healthOf) {
	t.Helper()
	resp, body := get(t, s.url+"/health")
	var h healthOf
	if err := json.Unmarshal(body, &h); err != nil {
		t.Fatalf("/health: %v: %s", err, body)
	}
	return resp.StatusCode, h
}

// probe GETs a plain-text probe of the admin listener.
func probe(t *testing.T, u string) (int, string) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// poll checks cond every interval until it holds or within has passed (a
// keyed request counts against its key's hourly quota: not too often).
func poll(t *testing.T, within, every time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %s", within, what)
		}
		time.Sleep(every)
	}
}

// The outage lines of the refresh loops (internal/poll), one per outage.
const (
	catalogueFailing   = `level=WARN msg="catalogue refresh failing`
	catalogueRecovered = `level=INFO msg="catalogue refresh recovered`
	keysFailing        = `level=WARN msg="key directory refresh failing`
	keysRecovered      = `level=INFO msg="key directory refresh recovered`
)

func TestServePostgresOutage(t *testing.T) {
	for _, tc := range []struct {
		name string
		mode faultproxy.Mode
	}{
		{"blackhole", faultproxy.Blackhole},
		{"refused", faultproxy.Refuse},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			testPostgresOutage(t, tc.mode)
		})
	}
}

func testPostgresOutage(t *testing.T, mode faultproxy.Mode) {
	dbURL := postgresSchema(t)
	p := faultproxy.Start(t, mustHost(t, os.Getenv(postgresURLVar)))
	dir := t.TempDir()
	key := newKey(t, dir, "--database-url", dbURL)
	const interval = 200 * time.Millisecond
	s := startServe(t, dir, map[string]string{"CARDCAT_DATABASE_URL": viaProxy(t, dbURL, p)},
		"--refresh-interval", interval.String(), "--keys-refresh-interval", interval.String(), "--admin-addr", "127.0.0.1:0")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the server's log:\n%s", s.stderr)
		}
	})
	admin := adminURL(t, s)

	if code, h := getHealth(t, s); code != http.StatusOK || h.Status != "healthy" || h.Checks["database"].Status != "healthy" {
		t.Fatalf("/health before the outage: %d %+v", code, h)
	}
	if resp, body := get(t, s.url+"/dbs/sets", "X-API-Key", key); resp.StatusCode != http.StatusOK {
		t.Fatalf("/dbs/sets before the outage: %d %s", resp.StatusCode, body)
	}

	p.Set(mode)
	outage := time.Now()
	// A key made during the outage (straight to the database, as an
	// operator's `keys create` would be) is unknown until the database is back.
	late := newKey(t, dir, "--database-url", dbURL)

	// Both loops notice: each logs the outage once.
	poll(t, 30*time.Second, 100*time.Millisecond, "the refresh loops logged no outage", func() bool {
		logs := s.stderr.String()
		return strings.Contains(logs, catalogueFailing) && strings.Contains(logs, keysFailing)
	})
	t.Logf("outage logged by both loops after %v", time.Since(outage).Round(time.Millisecond))

	// The API answers from memory, /health says the database is down but the
	// replica serves, and so do the admin probes.
	for _, path := range []string{"/dbs/sets", "/mtg/search?q=Doctor", "/dbs/search?q=Goku"} {
		if resp, body := get(t, s.url+path, "X-API-Key", key); resp.StatusCode != http.StatusOK {
			t.Errorf("%s during the outage: %d %.200s", path, resp.StatusCode, body)
		}
	}
	if resp, _ := get(t, s.url+"/dbs/sets", "X-API-Key", late); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("the key made during the outage: %d, want 401 until the keys are reloaded", resp.StatusCode)
	}
	code, h := getHealth(t, s)
	if code != http.StatusOK || h.Status != "healthy" || h.Checks["database"].Status != "unhealthy" || h.Checks["database"].Message == "" {
		t.Errorf("/health during the outage: %d %+v; want 200, healthy, database unhealthy with its message", code, h)
	}
	if code, body := probe(t, admin+"/livez"); code != http.StatusOK {
		t.Errorf("/livez during the outage: %d %s", code, body)
	}
	if code, body := probe(t, admin+"/readyz"); code != http.StatusOK {
		t.Errorf("/readyz during the outage: %d %s", code, body)
	}

	// Long enough for several more failed refreshes (a black-holed call ends
	// at its deadline): still one line per loop.
	time.Sleep(7 * time.Second)
	logs := s.stderr.String()
	for _, line := range []string{catalogueFailing, keysFailing} {
		if n := strings.Count(logs, line); n != 1 {
			t.Errorf("%d lines %q during one outage, want 1", n, line)
		}
	}

	p.Set(faultproxy.Pass)
	back := time.Now()
	// The loops were not stuck: the next refresh succeeds, and the key made
	// during the outage works within a few intervals plus one deadline.
	poll(t, 20*time.Second, 250*time.Millisecond, "the key made during the outage still refused after the database came back", func() bool {
		resp, _ := get(t, s.url+"/dbs/sets", "X-API-Key", late)
		return resp.StatusCode == http.StatusOK
	})
	t.Logf("the key made during the outage works %v after the database is back", time.Since(back).Round(time.Millisecond))
	poll(t, 20*time.Second, 100*time.Millisecond, "no recovery logged by both loops", func() bool {
		logs := s.stderr.String()
		return strings.Contains(logs, catalogueRecovered) && strings.Contains(logs, keysRecovered)
	})
	poll(t, 20*time.Second, 250*time.Millisecond, "/health's database still unhealthy after the database came back", func() bool {
		code, h := getHealth(t, s)
		return code == http.StatusOK && h.Checks["database"].Status == "healthy"
	})
	logs = s.stderr.String()
	for _, line := range []string{catalogueFailing, keysFailing, catalogueRecovered, keysRecovered} {
		if n := strings.Count(logs, line); n != 1 {
			t.Errorf("%d lines %q for one outage, want 1", n, line)
		}
	}
	if !regexp.MustCompile(`msg="key directory refresh recovered[^\n]* outage=\d`).MatchString(logs) {
		t.Errorf("the recovery line does not say how long the outage lasted:\n%s", logs)
	}
	if err := s.stop(); err != nil {
		t.Errorf("serve did not stop cleanly: %v", err)
	}
}

// mustHost is the host:port of a database URL.
func mustHost(t *testing.T, dbURL string) string {
	t.Helper()
	u, err := url.Parse(dbURL)
	if err != nil || u.Host == "" {
		t.Skipf("%s: no host in %q (%v)", postgresURLVar, dbURL, err)
	}
	return u.Host
}
