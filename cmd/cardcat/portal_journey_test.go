package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/cardcat/cardcat/internal/portal/billing/stripetest"
	"github.com/cardcat/cardcat/internal/portal/mail/mailtest"
	"github.com/cardcat/cardcat/internal/testkit"
)

var updateScreenshots = flag.Bool("update-screenshots", false,
	"write the portal journey's chosen screenshots into docs/screenshots/")

// TestPortalJourney is issue 14's "Done means": a visitor signs up in a
// real Chromium, verifies the email a real SMTP server received, logs in,
// creates a key, uses it, sees that use, meets a paid route, starts the
// trial, outlives it on the server's clock, pays Ultra through a fake
// Stripe's checkout and its signed webhook, and logs out. The pages make
// no console error, no failed request and no request off the server and
// the fake Stripe; the server's logs hold none of the secrets of the
// journey.
//
// CARDCAT_TEST_CHROMIUM is the browser's path (/usr/bin/chromium);
// CARDCAT_TEST_SCREENSHOTS, when set, a directory for a screenshot of each
// page. -update-screenshots rewrites the README's few in docs/screenshots/.
func TestPortalJourney(t *testing.T) {
	exe := testkit.ChromiumPath(t, "the portal's browser journey")
	shots := os.Getenv("CARDCAT_TEST_SCREENSHOTS")
	if shots == "" {
		shots = t.TempDir()
	}
	docs := ""
	if *updateScreenshots {
		docs = filepath.Join("..", "..", "docs", "screenshots")
		if err := os.MkdirAll(docs, 0o755); err != nil {
			t.Fatal(err)
		}
	}

	const (
		email    = "ada@example.test"
		password = "quill-lantern-harbour-91" // 24 characters, not a common password
		keyName  = "journey <b>bot</b>"
		sets     = 3 // keyed requests of GET /dbs/sets
	)
	clock := &journeyClock{}
	smtp := mailtest.Start(t)
	const webhookSecret = "whsec_journey_test_secret"
	const stripeKey = "sk_test_journey"
	fake := stripetest.New(t, stripetest.Options{SecretKey: stripeKey, WebhookSecret: webhookSecret, Now: clock.Now})
	srv := startJourneyServer(t, clock, smtp, map[string]string{
		"CARDCAT_SMTP_URL":              smtp.URL(),
		"CARDCAT_STRIPE_SECRET_KEY":     stripeKey,
		"CARDCAT_STRIPE_WEBHOOK_SECRET": webhookSecret,
		"CARDCAT_STRIPE_PRICE_PRO":      "price_journey_pro",
		"CARDCAT_STRIPE_PRICE_ULTRA":    "price_journey_ultra",
		"CARDCAT_STRIPE_API_URL":        fake.URL,
		"CARDCAT_KEYS_REFRESH_INTERVAL": "1s",
	})
	fake.SetWebhookURL(srv.url + "/account/billing/stripe")
	fakeURL, _ := url.Parse(fake.URL)
	b := newJourneyBrowser(t, exe, shots, docs, nil, srv.host(), fakeURL.Host)
	var cookies []string // the session cookie's values, one per login
	start := time.Now()
	t.Logf("server %s, fake Stripe %s", srv.url, fake.URL)

	// 1. Sign up.
	b.open(srv.url + "/account/signup")
	b.shot("signup", "signup")
	b.typeInto("#email", email)
	b.typeInto("#password", password)
	b.clickTo(`form[action="/account/signup"] button[type=submit]`, "/account/signup")
	if h := b.text("main h1"); h != "Check your email" {
		b.fatalf("after sign-up: heading %q, want Check your email", h)
	}
	b.shot("check-email", "")

	// 2. The verification email, received over SMTP; its link, its button.
	msg := smtp.WaitFor(t, email, 10*time.Second)
	link, err := url.Parse(msg.Link)
	if err != nil || link.Host != srv.host() || link.Path != "/account/verify" || link.Query().Get("token") == "" {
		t.Fatalf("the verification email's link %q (%v): want %s/account/verify?token=...\n%s", msg.Link, err, srv.url, msg.Text)
	}
	token := link.Query().Get("token")
	b.open(msg.Link)
	b.shot("verify", "")
	b.clickTo(`form[action="/account/verify"] button[type=submit]`, "/account/login")
	b.shot("verified-login", "")

	// 3. Log in: the dashboard, on the Free plan.
	login := func(wantPath string) {
		t.Helper()
		b.typeInto("#email", email)
		b.typeInto("#password", password)
		b.clickTo(`form[action="/account/login"] button[type=submit]`, wantPath)
		c := b.cookie(srv.url, "cardcat_session")
		if c == "" || slices.Contains(cookies, c) {
			b.fatalf("after logging in the session cookie is %q; earlier ones: %d", c, len(cookies))
		}
		cookies = append(cookies, c)
	}
	login("/account/")
	if plan := b.text("dl.facts dt:nth-of-type(2) + dd"); !strings.HasPrefix(plan, "Free") {
		b.fatalf("the dashboard's plan: %q, want Free", plan)
	}
	b.shot("dashboard", "dashboard")
	b.phoneShot("dashboard-phone", "dashboard-phone")

	// 4. A key, shown once, its name escaped.
	b.open(srv.url + "/account/keys")
	b.shot("keys", "")
	b.typeInto("#key-name", keyName)
	b.clickTo(`form[action="/account/keys"] button[type=submit]`, "/account/keys")
	key := b.text("#new-key-value")
	if !strings.HasPrefix(key, "pk_live_") {
		b.fatalf("the new key %q: want pk_live_...", key)
	}
	if h := b.text("#new-key"); !strings.Contains(h, "“"+keyName+"”") {
		b.fatalf("the new key's heading %q does not show the name %q as typed", h, keyName)
	}
	if n := eval[int](b, `document.querySelectorAll('main b').length`); n != 0 {
		b.fatalf("the key's name made %d <b> elements: it was not escaped", n)
	}
	b.shot("key-created", "keys")
	b.open(srv.url + "/account/keys")
	if eval[bool](b, `document.documentElement.outerHTML.includes(`+jsString(key)+`)`) {
		b.fatalf("the full key is still in /account/keys after a reload")
	}
	names := eval[[]string](b, `[...document.querySelectorAll('table.keys tbody td:nth-child(2)')].map(e => e.innerText)`)
	if !slices.Equal(names, []string{keyName}) || eval[int](b, `document.querySelectorAll('main b').length`) != 0 {
		b.fatalf("the keys' names %q: want [%q], escaped", names, keyName)
	}
	b.shot("keys-reloaded", "")

	// 5. The key answers GET /dbs/sets.
	for range sets {
		if resp, body := get(t, srv.url+"/dbs/sets", "X-API-Key", key); resp.StatusCode != http.StatusOK {
			t.Fatalf("GET /dbs/sets with the new key: %d %.300s", resp.StatusCode, body)
		}
	}

	// 6. The usage page counts them (it flushes the meter first).
	b.open(srv.url + "/account/usage")
	hourTotal := b.text(`section[aria-labelledby="by-hour"] table.usage tfoot td`)
	dayTotal := b.text(`section[aria-labelledby="by-day"] table.usage tfoot td`)
	if want := strconv.Itoa(sets); hourTotal != want || dayTotal != want {
		b.fatalf("usage: %q requests in the hours' table and %q in the days', want %d", hourTotal, dayTotal, sets)
	}
	b.shot("usage", "usage")

	// 7. A paid route: 403 with redeem_url.
	paid := srv.url + "/dbs/sets/trending"
	redeem := paidRoute(t, paid, key, http.StatusForbidden)
	if redeem.RedeemURL != srv.url+"/account/trial" || redeem.UpgradeURL != "" {
		t.Fatalf("the paid route before the trial: redeem_url %q, upgrade_url %q; want redeem_url %s/account/trial", redeem.RedeemURL, redeem.UpgradeURL, srv.url)
	}

	// 8. The trial, started from redeem_url: the paid route answers.
	b.open(redeem.RedeemURL)
	b.shot("trial", "")
	b.clickTo(`form[action="/account/trial"] button[type=submit]`, "/account/trial")
	if s := b.text("main"); !strings.Contains(s, "Your trial is active until") {
		b.fatalf("after starting the trial the page says:\n%s", s)
	}
	b.shot("trial-started", "")
	paidRoute(t, paid, key, http.StatusOK)

	// 9. Eight days on, the trial has ended: 403 with upgrade_url.
	clock.Advance(8 * 24 * time.Hour)
	upgrade := paidRoute(t, paid, key, http.StatusForbidden)
	if upgrade.UpgradeURL != srv.url+"/account/upgrade" || upgrade.RedeemURL != "" {
		t.Fatalf("the paid route after the trial: upgrade_url %q, redeem_url %q; want upgrade_url %s/account/upgrade", upgrade.UpgradeURL, upgrade.RedeemURL, srv.url)
	}

	// 10. Ultra, bought through the fake Stripe. The session has idled out
	// meanwhile: the upgrade page asks to log in and comes back.
	b.open(upgrade.UpgradeURL)
	b.shot("upgrade-logged-out", "")
	b.clickTo(`a[href="/account/login?next=%2Faccount%2Fupgrade"]`, "/account/login")
	login("/account/upgrade")
	b.shot("upgrade", "upgrade")
	b.do(
		chromedp.Click(chromedp.CSS(`button[aria-label="Subscribe to Ultra"]`)),
		b.waitFor(`location.host === `+jsString(fakeURL.Host)+` && location.pathname.startsWith('/checkout/') && document.readyState === 'complete'`),
	)
	b.shot("stripe-checkout", "")
	b.clickTo("#pay", "/account/upgrade")
	if q := b.location().Query().Get("checkout"); q != "done" || b.text("p.notice") == "" {
		b.fatalf("back from the checkout: ?checkout=%q, notice %q", q, b.text("p.notice"))
	}
	b.shot("upgrade-paid", "")
	if ss := fake.Sessions(); len(ss) != 1 || !ss[0].Paid || ss[0].Params.Get("line_items[0][price]") != "price_journey_ultra" {
		t.Errorf("the fake Stripe's sessions: %+v; want one, paid, for Ultra's price", ss)
	}
	b.open(srv.url + "/account/")
	if plan := b.text("dl.facts dt:nth-of-type(2) + dd"); !strings.HasPrefix(plan, "Ultra") {
		b.fatalf("the dashboard's plan after paying: %q, want Ultra", plan)
	}
	b.shot("dashboard-ultra", "")
	paidRoute(t, paid, key, http.StatusOK)

	// 11. Log out: the dashboard asks to log in again.
	b.clickTo(`form[action="/account/logout"] button[type=submit]`, "/account/login")
	b.shot("logged-out", "")
	b.open(srv.url + "/account/")
	if p := b.location().Path; p != "/account/login" {
		b.fatalf("the dashboard after logging out: at %s, want the login page", p)
	}
	b.checkClean()
	t.Logf("the journey in the browser took %v", time.Since(start).Round(time.Millisecond))

	// 12. The logs keep no secret of the journey.
	if err := srv.stop(); err != nil {
		t.Fatalf("serve did not stop cleanly: %v", err)
	}
	logs := srv.stderr.String()
	if lines := strings.Count(logs, "\n"); lines < 20 || !strings.Contains(logs, "path=/account/usage status=200") {
		t.Fatalf("the server logged %d lines, not the journey's requests: the search for secrets would prove nothing\n%s", lines, logs)
	}
	secrets := map[string]string{"the password": password, "the key": key, "the verification token": token}
	for i, c := range cookies {
		secrets[fmt.Sprintf("the session cookie of login %d", i+1)] = c
	}
	for what, s := range secrets {
		if len(s) < 8 {
			t.Errorf("%s is only %q: too short to look for", what, s)
			continue
		}
		if strings.Contains(logs, s) {
			t.Errorf("the logs hold %s", what)
		}
	}
}

// planError is the part of a 403's body the journey reads.
type planError struct {
	Error      string `json:"error"`
	RedeemURL  string `json:"redeem_url"`
	UpgradeURL string `json:"upgrade_url"`
}

// paidRoute sends GET u with the key, wants status, and returns the
// answer's error fields.
func paidRoute(t *testing.T, u, key string, status int) planError {
	t.Helper()
	resp, body := get(t, u, "X-API-Key", key)
	if resp.StatusCode != status {
		t.Fatalf("GET %s: %d, want %d: %.300s", u, resp.StatusCode, status, body)
	}
	var e planError
	if status != http.StatusOK {
		if err := json.Unmarshal(body, &e); err != nil {
			t.Fatalf("GET %s: %v: %.300s", u, err, body)
		}
	}
	return e
}

// jsString is s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
