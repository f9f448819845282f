package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/cardcat/cardcat/internal/store/sqlite"
	"github.com/cardcat/cardcat/internal/testkit"
	"github.com/cardcat/cardcat/internal/webhooks"
)

// TestPortalAlertsInChromium is issue 25's portal in a real Chromium
// against a real serve: a developer signs up and logs in (the operator
// moves the account to Pro and verifies it), adds a webhook pointing at a
// real receiver and copies its secret from the page, creates an alert on a
// card of the catalogue sent to the webhook and by email, sends a test event, and sees the receiver get it with a valid
// signature and the delivery in the log. The pages make no console error,
// no failed request and no request off the server.
//
// CARDCAT_TEST_CHROMIUM is the browser's path (/usr/bin/chromium);
// CARDCAT_TEST_SCREENSHOTS, when set, a directory for a screenshot of each
// page.
func TestPortalAlertsInChromium(t *testing.T) {
	exe := testkit.ChromiumPath(t, "the portal's alerts and webhooks pages in a browser")
	shots := os.Getenv("CARDCAT_TEST_SCREENSHOTS")
	if shots == "" {
		shots = t.TempDir()
	}
	const (
		email    = "grace@example.test"
		password = "copper-kettle-meadow-27"
	)

	// A catalogue of synthetic cards, and one with a TCGplayer market price.
	dir, mirror := t.TempDir(), t.TempDir()
	if code, _, stderr := runSynth(t, nil, "--out", mirror, "--cards", "100", "--seed", "3", "--day", "0"); code != 0 {
		t.Fatalf("synth: exit %d: %s", code, stderr)
	}
	var out, errb bytes.Buffer
	if err := run(context.Background(), []string{"ingest", "--from", mirror, "--data-dir", dir}, testEnv(nil), &out, &errb); err != nil {
		t.Fatalf("ingest: %v\n%s", err, errb.String())
	}
	card, finish := pricedCard(t, dir)

	// The receiver checks each delivery with the secret the page showed.
	var mu sync.Mutex
	var secret string
	var tests, refused int
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		if err := webhooks.Verify(secret, r.Header.Get(webhooks.SignatureHeader), body, 0, time.Now()); err != nil {
			refused++
			t.Errorf("a delivery with a bad signature: %v", err)
			http.Error(w, "bad signature", http.StatusBadRequest)
			return
		}
		if strings.Contains(string(body), `"test":true`) && strings.Contains(string(body), `"type":"price.alert"`) &&
			strings.Contains(string(body), `"card_id":"`+card+`"`) {
			tests++
		}
		io.WriteString(w, "thanks")
	}))
	defer recv.Close()

	srv := startServe(t, dir, map[string]string{"CARDCAT_WEBHOOK_ALLOW_HTTP": "1", "CARDCAT_WEBHOOK_ALLOW_PRIVATE": "1"})
	host := strings.TrimPrefix(srv.url, "http://")
	b := newJourneyBrowser(t, exe, shots, "", nil, host)

	// Sign up; the operator moves the account to Pro (webhooks are paid).
	b.open(srv.url + "/account/signup")
	b.typeInto("#email", email)
	b.typeInto("#password", password)
	b.clickTo(`form[action="/account/signup"] button[type=submit]`, "/account/signup")
	cardcatCmd(t, dir, "accounts", "set-plan", "--email", email, "--plan", "pro")
	cardcatCmd(t, dir, "accounts", "verify", "--email", email) // alert emails go to verified addresses
	b.open(srv.url + "/account/login")
	b.typeInto("#email", email)
	b.typeInto("#password", password)
	b.clickTo(`form[action="/account/login"] button[type=submit]`, "/account/")

	// A webhook: its secret, shown once.
	b.clickTo(`nav.portal-nav a[href="/account/webhooks"]`, "/account/webhooks")
	b.shot("webhooks", "")
	b.typeInto("#webhook-url", recv.URL+"/hook")
	b.clickTo(`form[action="/account/webhooks"] button[type=submit]`, "/account/webhooks")
	shown := b.text("#new-secret-value")
	if !strings.HasPrefix(shown, "whsec_") || len(shown) != 70 {
		b.fatalf("the new webhook's secret on the page: %q", shown)
	}
	mu.Lock()
	secret = shown
	mu.Unlock()
	b.shot("webhook-added", "")

	// An alert on the card, sent to the webhook.
	b.clickTo(`nav.portal-nav a[href="/account/alerts"]`, "/account/alerts")
	b.typeInto("#alert-card", card)
	b.typeInto("#alert-finish", finish)
	b.do(chromedp.SetValue(chromedp.CSS("#alert-rule"), "above"))
	b.typeInto("#alert-value", "0.01")
	b.do(chromedp.SetValue(chromedp.CSS("#alert-webhook"), "1"))
	b.do(chromedp.Click(chromedp.CSS("#alert-email"))) // and by email
	b.clickTo(`form[action="/account/alerts"] button[type=submit]`, "/account/alerts")
	if n := b.text(".notice"); !strings.HasPrefix(n, "Alert created.") {
		b.fatalf("after creating the alert: notice %q", n)
	}
	if row := b.text("table.alerts tbody tr"); !strings.Contains(row, card) || !strings.Contains(row, "at or above 0.01 USD") ||
		!strings.Contains(row, recv.URL+"/hook") || !strings.Contains(row, "your email") || !strings.Contains(row, "armed") {
		b.fatalf("the alert's row: %q", row)
	}
	b.shot("alerts", "")

	// A test event, from the webhook's page.
	b.clickTo(`table.alerts a[href="/account/webhooks/1"]`, "/account/webhooks/1")
	b.clickTo(`form[action="/account/webhooks/1/test"] button[type=submit]`, "/account/webhooks/1")
	if n := b.text(".notice"); !strings.HasPrefix(n, "Test event queued") {
		b.fatalf("after sending a test event: notice %q", n)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		mu.Lock()
		got := tests
		mu.Unlock()
		if got == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the receiver got no test event within 20 s\n%s", srv.stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The log shows the delivery (a reload, as the notice says).
	for deadline := time.Now().Add(10 * time.Second); ; {
		b.do(chromedp.Reload())
		if entry := b.text("article.delivery"); strings.Contains(entry, "delivered") {
			for _, want := range []string{"test", "1 attempt", "200", "thanks", "Resend"} {
				if !strings.Contains(entry, want) {
					b.fatalf("the delivery log's entry lacks %q: %q", want, entry)
				}
			}
			break
		}
		if time.Now().After(deadline) {
			b.fatalf("the delivery log shows no delivered event")
		}
		time.Sleep(200 * time.Millisecond)
	}
	b.shot("webhook-log", "")
	b.phoneShot("webhook-log-phone", "")
	mu.Lock()
	if tests != 1 || refused != 0 {
		t.Errorf("the receiver got %d test events and refused %d deliveries; want one, none", tests, refused)
	}
	mu.Unlock()
	b.checkClean()
	if err := srv.stop(); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(srv.stderr.String(), shown) {
		t.Error("the server's log holds the webhook's secret")
	}
}

// pricedCard is a card of dataDir's catalogue with a TCGplayer market
// price, and that price's finish.
func pricedCard(t *testing.T, dataDir string) (card, finish string) {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(dataDir, "cardcat.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	cat, err := st.LoadCatalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range cat.Games {
		for _, c := range g.Cards {
			for _, p := range c.TCGPrices {
				if p.Market.OK {
					return c.ID, p.SubType
				}
			}
		}
	}
	t.Fatal("no card with a TCGplayer market price")
	return "", ""
}
