package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/alerts"
	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/portal/mail/mailtest"
	"github.com/cardcat/cardcat/internal/store/sqlite"
)

// emailDays is how many days of synth's mirror TestAlertEmailsEndToEnd
// looks through for a price that crosses, goes back and crosses again.
const emailDays = 6

// crossingAlert is an alert on synth's mirror (200 cards, seed 7) whose rule
// fires at two versions of days 0 to emailDays-1, neither the first: a
// card's TCGplayer market price, and the threshold and its direction, found
// by ingesting the days into a scratch store and stepping each price's
// alerts as the evaluation does (alerts.Step).
type crossingAlert struct {
	card, finish string
	rule         alerts.Rule
	fires        []int // the days it fires at
}

func findCrossingAlert(t *testing.T) crossingAlert {
	t.Helper()
	dir, mirror := t.TempDir(), t.TempDir()
	type key struct{ card, finish string }
	prices := map[key][]catalog.Money{}
	var order []key
	for day := range emailDays {
		synthIngest(t, mirror, dir, day)
		st, err := sqlite.Open(context.Background(), filepath.Join(dir, "cardcat.db"))
		if err != nil {
			t.Fatal(err)
		}
		cat, err := st.LoadCatalog(context.Background())
		st.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range cat.Games {
			for _, c := range g.Cards {
				for _, p := range c.TCGPrices {
					k := key{c.ID, p.SubType}
					if _, ok := prices[k]; !ok {
						order = append(order, k)
					}
					for len(prices[k]) < day {
						prices[k] = append(prices[k], catalog.Money{})
					}
					prices[k] = append(prices[k], p.Market)
				}
			}
		}
	}
	for _, k := range order {
		ps := prices[k]
		for _, p := range ps {
			for _, kind := range []alerts.Kind{alerts.Above, alerts.Below} {
				if !p.OK {
					continue
				}
				r := alerts.Rule{Kind: kind, Cents: p.Cents}
				var fires []int
				armed := true
				for day, price := range ps {
					var fire bool
					armed, fire = alerts.Step(armed, r, price, catalog.Money{})
					if fire {
						fires = append(fires, day)
					}
				}
				if len(fires) >= 2 && fires[0] > 0 {
					return crossingAlert{card: k.card, finish: k.finish, rule: r, fires: fires}
				}
			}
		}
	}
	t.Fatalf("no TCGplayer price of synth's 200 cards crosses a threshold twice in %d days", emailDays)
	return crossingAlert{}
}

// synthIngest writes synth's mirror of day into mirror and ingests it into
// dir.
func synthIngest(t *testing.T, mirror, dir string, day int) {
	t.Helper()
	if code, _, stderr := runSynth(t, nil, "--out", mirror, "--cards", "200", "--seed", "7", "--day", fmt.Sprint(day)); code != 0 {
		t.Fatalf("synth day %d: exit %d: %s", day, code, stderr)
	}
	var out, errb bytes.Buffer
	if err := run(context.Background(), []string{"ingest", "--from", mirror, "--data-dir", dir}, testEnv(nil), &out, &errb); err != nil {
		t.Fatalf("ingest day %d: %v\n%s", day, err, errb.String())
	}
}

// TestAlertEmailsEndToEnd is issue 25's email channel on a real serve with
// a real SMTP server (mailtest): an alert made with `alerts create
// --email-notify` on an account whose address is verified fires at a
// catalogue version of synth's mirror, and its email arrives over SMTP with
// what fired and RFC 8058's List-Unsubscribe headers; the one-click POST to
// that link (no session, as a mail provider sends it) answers 200 and turns
// the alert's email off, and the alert's next crossing, two versions later,
// fires (its state says so) but sends no email. A bad token is a 404; an
// unverified address is refused by the CLI.
func TestAlertEmailsEndToEnd(t *testing.T) {
	want := findCrossingAlert(t)
	t.Logf("alert: %s %s %s, firing at days %v", want.card, want.finish, want.rule, want.fires)
	smtp := mailtest.Start(t)
	dir, mirror := t.TempDir(), t.TempDir()
	synthIngest(t, mirror, dir, 0)
	createKey(t, dir, "--email", "ann@example.com")
	createKey(t, dir, "--email", "unverified@example.com")
	if out := cardcatCmd(t, dir, "accounts", "verify", "--email", "ann@example.com"); !strings.Contains(out, "ann@example.com") {
		t.Fatalf("accounts verify: %q", out)
	}
	ruleFlag := "--" + string(want.rule.Kind)
	create := []string{"alerts", "create", "--card", want.card, "--source", "tcg", "--variant", want.finish, ruleFlag, want.rule.Value(), "--email-notify"}
	out, code := alertsCmd(t, dir, nil, append(create[:2:2], append([]string{"--email", "unverified@example.com"}, create[2:]...)...)...)
	if code != 2 || !strings.Contains(out, "--email-notify: the address of account") || !strings.Contains(out, "is not verified") {
		t.Errorf("--email-notify for an unverified address: exit %d, %q; want exit 2", code, out)
	}
	out, code = alertsCmd(t, dir, nil, append(create[:2:2], append([]string{"--email", "ann@example.com"}, create[2:]...)...)...)
	if code != 0 || !strings.Contains(out, ", emailed to ann@example.com") {
		t.Fatalf("alerts create --email-notify: exit %d, %q", code, out)
	}
	alertID := strings.Fields(out)[1]
	email := func() string {
		t.Helper()
		out, _ := alertsCmd(t, dir, nil, "alerts", "list", "--email", "ann@example.com")
		f := row(out, alertID) // ... STATE LAST-VERSION LAST-PRICE WEBHOOK EMAIL CREATED
		if len(f) < 10 {
			t.Fatalf("alerts list: %q", out)
		}
		return f[len(f)-2]
	}
	if e := email(); e != "yes" {
		t.Fatalf("alerts list's EMAIL = %q, want yes", e)
	}

	s := startServeSMTP(t, dir, smtp)
	// version is the catalogue version of day (day 0 is version 1).
	ingested := func(day int) {
		t.Helper()
		synthIngest(t, mirror, dir, day)
		version := fmt.Sprint(day + 1)
		deadline := time.Now().Add(15 * time.Second)
		for {
			out, _ := alertsCmd(t, dir, nil, "alerts", "list", "--email", "ann@example.com")
			if f := row(out, alertID); len(f) >= 10 && f[len(f)-5] == version {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("day %d (version %s) not evaluated within 15 s:\n%s\n%s", day, version, out, s.stderr.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	first, second := want.fires[0], want.fires[1]
	for day := 1; day <= first; day++ {
		ingested(day)
	}
	m := smtp.WaitFor(t, "ann@example.com", 15*time.Second)
	if !m.TLS || m.AuthUser != mailtest.User {
		t.Errorf("the alert email came over TLS %v, as %q", m.TLS, m.AuthUser)
	}
	unsub := strings.TrimSuffix(strings.TrimPrefix(m.Header.Get("List-Unsubscribe"), "<"), ">")
	if !strings.HasPrefix(unsub, s.url+alerts.UnsubscribePath+"?token=") || m.Header.Get("List-Unsubscribe-Post") != "List-Unsubscribe=One-Click" {
		t.Fatalf("the alert email's headers: List-Unsubscribe %q, List-Unsubscribe-Post %q", m.Header.Get("List-Unsubscribe"),
			m.Header.Get("List-Unsubscribe-Post"))
	}
	for _, w := range []string{"Your price alert " + alertID + " fired", "(" + want.card + ")", "Marketplace:    TCGplayer (market price)",
		"Finish:         " + want.finish, "Rule:           " + want.rule.Text(alerts.TCG), "Old price:", "New price:", "Game:",
		s.url + "/account/alerts/" + alertID, "/cards/" + want.card, unsub} {
		if !strings.Contains(m.Text, w) {
			t.Errorf("the alert email lacks %q:\n%s", w, m.Text)
		}
	}
	if !strings.HasPrefix(m.Subject, "Price alert: ") || !strings.Contains(m.Subject, "on TCGplayer ("+want.finish+")") {
		t.Errorf("subject %q", m.Subject)
	}

	// A mangled link: a 404 page, nothing changed.
	resp := postForm(t, s.url+alerts.UnsubscribePath+"?token="+strings.Repeat("0", 64), url.Values{"List-Unsubscribe": {"One-Click"}})
	if resp.StatusCode != http.StatusNotFound || email() != "yes" {
		t.Fatalf("a bad token: %d, email %s", resp.StatusCode, email())
	}
	// The one click, as a mail provider sends it.
	resp = postForm(t, unsub, url.Values{"List-Unsubscribe": {"One-Click"}})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("the one-click POST: %d", resp.StatusCode)
	}
	if e := email(); e != "-" {
		t.Fatalf("after the one click, alerts list's EMAIL = %q, want -", e)
	}

	// The next crossing fires, and emails nobody.
	for day := first + 1; day <= second; day++ {
		ingested(day)
	}
	time.Sleep(300 * time.Millisecond) // an email would be sent within a poll or two
	out, _ = alertsCmd(t, dir, nil, "alerts", "list", "--email", "ann@example.com")
	if f := row(out, alertID); f[len(f)-6] != "fired" {
		t.Errorf("after the second crossing: %q, want fired", out)
	}
	if n := len(smtp.Messages()); n != 1 {
		t.Errorf("%d emails received, want the first crossing's only", n)
	}
	if err := s.stop(); err != nil {
		t.Fatal(err)
	}
	logs := s.stderr.String()
	if n := strings.Count(logs, "alert email sent"); n != 1 {
		t.Errorf("%d \"alert email sent\" lines, want 1", n)
	}
	for _, w := range []string{"portal: alert emails stopped", "emailed=1"} {
		if !strings.Contains(logs, w) {
			t.Errorf("serve's log lacks %q", w)
		}
	}
	if token := strings.TrimPrefix(unsub, s.url+alerts.UnsubscribePath+"?token="); strings.Contains(logs, token) {
		t.Errorf("serve's log holds the unsubscribe token (SMTP is configured: nothing should log it)")
	}
}

// startServeSMTP runs serve on dir, sending its emails through smtp (whose
// certificate it trusts), polling the store every 100 ms.
func startServeSMTP(t *testing.T, dir string, smtp *mailtest.Server) *server {
	t.Helper()
	pr, pw := io.Pipe()
	env, stderr, finishLogs := inProcessEnv(map[string]string{"CARDCAT_SMTP_URL": smtp.URL()}, pw)
	cfg, err := parseServe(env, []string{"--addr", "127.0.0.1:0", "--data-dir", dir, "--refresh-interval", "100ms"})
	if err != nil {
		t.Fatal(err)
	}
	cfg.portal.smtpTLS = smtp.TLSConfig()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- serve(ctx, env, cfg)
		pw.Close()
	}()
	return awaitListening(t, pr, stderr, cancel, done, finishLogs)
}

// postForm posts form to u as a mail provider's one click does: no cookie,
// no Origin.
func postForm(t *testing.T, u string, form url.Values) *http.Response {
	t.Helper()
	resp, err := http.Post(u, "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}
