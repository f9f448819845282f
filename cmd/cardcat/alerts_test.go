package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/store/sqlite"
	"github.com/cardcat/cardcat/internal/webhooks"
)

// alertsCmd runs `cardcat args...` on dataDir with vars and returns its
// output and its exit code.
func alertsCmd(t *testing.T, dataDir string, vars map[string]string, args ...string) (string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	args = append(append(append([]string{}, args[:2]...), "--data-dir", dataDir), args[2:]...)
	err := run(context.Background(), args, testEnv(vars), &out, &errb)
	if err != nil {
		return errb.String() + err.Error(), exitCode(err)
	}
	return out.String(), 0
}

// TestAlertsEndToEnd: the operator's commands make a webhook and an alert,
// a running serve evaluates the catalogue's versions and delivers the one
// crossing to a real receiver once, signed; bad input exits 2.
func TestAlertsEndToEnd(t *testing.T) {
	dir, mirror := t.TempDir(), t.TempDir()
	ingestDay := func(day string) {
		t.Helper()
		if code, _, stderr := runSynth(t, nil, "--out", mirror, "--cards", "200", "--seed", "7", "--day", day); code != 0 {
			t.Fatalf("synth day %s: exit %d: %s", day, code, stderr)
		}
		var out, errb bytes.Buffer
		if err := run(context.Background(), []string{"ingest", "--from", mirror, "--data-dir", dir}, testEnv(nil), &out, &errb); err != nil {
			t.Fatalf("ingest day %s: %v\n%s", day, err, errb.String())
		}
	}
	ingestDay("0")
	createKey(t, dir, "--email", "ann@example.com", "--plan", "pro")
	createKey(t, dir, "--email", "free@example.com")

	// A card of the catalogue with a TCGplayer market price.
	st, err := sqlite.Open(context.Background(), filepath.Join(dir, "cardcat.db"))
	if err != nil {
		t.Fatal(err)
	}
	cat, err := st.LoadCatalog(context.Background())
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	var card, finish string
	for _, g := range cat.Games {
		for _, c := range g.Cards {
			for _, p := range c.TCGPrices {
				if p.Market.OK && card == "" {
					card, finish = c.ID, p.SubType
				}
			}
		}
	}
	if card == "" {
		t.Fatal("no card with a TCGplayer market price")
	}

	var mu sync.Mutex
	var secret string
	got := map[string]int{}
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		if err := webhooks.Verify(secret, r.Header.Get(webhooks.SignatureHeader), body, 0, time.Now()); err != nil {
			t.Errorf("delivery: %v", err)
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		got[r.Header.Get("Cardcat-Event-Id")]++
	}))
	defer recv.Close()
	allowHTTP := map[string]string{"CARDCAT_WEBHOOK_ALLOW_HTTP": "1"}

	// Bad input: exit 2, a message that says what to fix.
	for _, tt := range []struct {
		vars map[string]string
		args []string
		want string
	}{
		{nil, []string{"webhooks", "create", "--email", "ann@example.com", "--url", recv.URL}, "is not https"},
		{allowHTTP, []string{"webhooks", "create", "--email", "free@example.com", "--url", recv.URL}, "the Free plan has no webhooks"},
		{nil, []string{"webhooks", "create", "--email", "nobody@example.com", "--url", "https://example.com/"}, `no account with the email "nobody@example.com"`},
		{nil, []string{"alerts", "create", "--email", "ann@example.com", "--card", "dbs_0000000000000000", "--source", "tcg", "--variant", "Normal", "--above", "1"}, "no card"},
		{nil, []string{"alerts", "create", "--email", "ann@example.com", "--card", card, "--source", "tcg", "--variant", "Shiny", "--above", "1"}, `no TCGplayer finish "Shiny"`},
		{nil, []string{"alerts", "create", "--email", "ann@example.com", "--card", card, "--source", "tcg", "--variant", finish, "--above", "-1"}, "not an amount"},
		{nil, []string{"alerts", "create", "--email", "ann@example.com", "--card", card, "--source", "tcg", "--variant", finish, "--move", "0"}, "from 1 to 1000"},
		{nil, []string{"alerts", "create", "--email", "ann@example.com", "--card", card, "--source", "tcg", "--variant", finish, "--above", "1", "--below", "2"}, "exactly one"},
		{nil, []string{"alerts", "create", "--email", "ann@example.com", "--card", card, "--source", "ebay", "--variant", finish, "--above", "1"}, "not a marketplace"},
		{nil, []string{"alerts", "create", "--email", "ann@example.com", "--card", card, "--source", "tcg", "--variant", finish, "--above", "1", "--webhook", "https://example.com/none"}, "has no webhook"},
	} {
		out, code := alertsCmd(t, dir, tt.vars, tt.args...)
		if code != 2 || !strings.Contains(out, tt.want) {
			t.Errorf("cardcat %s: exit %d, %q; want exit 2 and %q", strings.Join(tt.args, " "), code, out, tt.want)
		}
	}

	out, code := alertsCmd(t, dir, allowHTTP, "webhooks", "create", "--email", "ann@example.com", "--url", recv.URL+"/hook")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || !strings.HasPrefix(lines[len(lines)-1], "whsec_") {
		t.Fatalf("webhooks create: exit %d, %q", code, out)
	}
	mu.Lock()
	secret = lines[len(lines)-1]
	mu.Unlock()
	// The Free plan's three alerts, then its limit.
	for i := range 4 {
		out, code := alertsCmd(t, dir, nil, "alerts", "create", "--email", "free@example.com", "--card", card, "--source", "tcg", "--variant", finish, "--below", "0.01")
		if i < 3 && code != 0 || i == 3 && (code != 1 || !strings.Contains(out, "has 3 alerts already")) {
			t.Fatalf("free alert %d: exit %d, %q", i+1, code, out)
		}
	}
	out, code = alertsCmd(t, dir, nil, "alerts", "create", "--email", "ann@example.com", "--card", card, "--source", "tcg", "--variant", finish,
		"--above", "0.01", "--webhook", recv.URL+"/hook")
	if code != 0 || !strings.HasPrefix(out, "alert 4 for account 1: "+card) {
		t.Fatalf("alerts create: exit %d, %q", code, out)
	}

	s := startServe(t, dir, map[string]string{"CARDCAT_WEBHOOK_ALLOW_HTTP": "1", "CARDCAT_WEBHOOK_ALLOW_PRIVATE": "1"}, "--refresh-interval", "100ms")
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(15 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s\n%s", what, s.stderr.String())
			}
		}
	}
	delivered := func() (events, deliveries int) {
		mu.Lock()
		defer mu.Unlock()
		for _, n := range got {
			deliveries += n
		}
		return len(got), deliveries
	}
	waitFor("the first version's event", func() bool { e, _ := delivered(); return e == 1 })
	ingestDay("1")
	waitFor("the second version's evaluation", func() bool {
		out, _ := alertsCmd(t, dir, nil, "alerts", "list", "--email", "ann@example.com")
		f := row(out, "4") // ... STATE LAST-VERSION LAST-PRICE WEBHOOK EMAIL CREATED
		return len(f) > 7 && f[len(f)-5] == "2"
	})
	time.Sleep(200 * time.Millisecond)
	if e, d := delivered(); e != 1 || d != 1 {
		t.Errorf("%d events in %d deliveries over two versions, want the one crossing once", e, d)
	}
	if err := s.stop(); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"CARDCAT_WEBHOOK_ALLOW_HTTP", "CARDCAT_WEBHOOK_ALLOW_PRIVATE", "alerts evaluated", "webhook delivered"} {
		if !strings.Contains(s.stderr.String(), want) {
			t.Errorf("serve's log lacks %q", want)
		}
	}
	list, _ := alertsCmd(t, dir, nil, "alerts", "list", "--email", "ann@example.com")
	if f := row(list, "4"); len(f) < 10 || f[len(f)-6] != "fired" || f[len(f)-3] != recv.URL+"/hook" || f[len(f)-2] != "-" {
		t.Errorf("alerts list: %q", list)
	}
}
