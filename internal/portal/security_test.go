package portal

// The security tests of issue 14 for accounts and sessions, on a real
// SQLite store over real HTTP. Every test's portal logs are checked for the
// passwords, hashes, tokens and session ids it used (portaltest_test.go).

import (
	"context"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/portal/mail"
	"github.com/cardcat/cardcat/internal/portal/mail/mailtest"
)

// A form posted from another site is refused before it does anything,
// whether the browser says so with Sec-Fetch-Site or only with Origin.
func TestCrossOriginPostRefused(t *testing.T) {
	tp := newTestPortal(t)
	tp.createAccount("ann@example.com", true)
	c := tp.client()
	c.login("ann@example.com", testPassword)

	for _, tc := range []struct {
		name   string
		header http.Header
	}{
		{"Sec-Fetch-Site cross-site", http.Header{"Sec-Fetch-Site": {"cross-site"}, "Origin": {"https://evil.example"}}},
		{"Sec-Fetch-Site same-site", http.Header{"Sec-Fetch-Site": {"same-site"}}},
		{"Origin of another host", http.Header{"Origin": {"https://evil.example"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := c.postWith("/account/settings/delete", url.Values{"password": {testPassword}}, tc.header)
			if res.status != http.StatusForbidden || !strings.Contains(res.body, "sent from another site") {
				t.Fatalf("delete: %d %q\n%s", res.status, res.location, mainOf(res.body))
			}
			// A login posted from elsewhere starts no session.
			other := tp.client()
			res = other.postWith("/account/login", url.Values{"email": {"ann@example.com"}, "password": {testPassword}}, tc.header)
			if res.status != http.StatusForbidden || other.sessionCookie() != "" {
				t.Fatalf("login: %d, cookie set %v", res.status, other.sessionCookie() != "")
			}
		})
	}
	tp.accountByEmail("ann@example.com") // still there
	if !c.loggedIn() {
		t.Fatal("the refused posts ended the session")
	}
}

// The flags of the session cookie and of the device cookie a login also
// sets (device.go): HttpOnly, SameSite=Lax, Path=/, no Domain; over https
// also Secure with the __Host- prefix. Logging out clears the session
// cookie only.
func TestCookieFlags(t *testing.T) {
	for _, tc := range []struct {
		name  string
		https bool
	}{
		{"http", false},
		{"https", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tp := newTestPortalWith(t, portalOptions{https: tc.https, cfg: Config{SessionMax: 48 * time.Hour}})
			if !strings.HasPrefix(tp.srv.URL, tc.name+"://") {
				t.Fatalf("server at %s", tp.srv.URL)
			}
			tp.createAccount("ann@example.com", true)
			c := tp.client()
			res := c.post("/account/login", url.Values{"email": {"ann@example.com"}, "password": {testPassword}})
			wantName, deviceName := "cardcat_session", "cardcat_device"
			if tc.https {
				wantName, deviceName = "__Host-cardcat_session", "__Host-cardcat_device"
			}
			cookies := map[string]*http.Cookie{}
			for _, line := range res.header.Values("Set-Cookie") {
				ck, err := http.ParseSetCookie(line)
				if err != nil {
					t.Fatalf("Set-Cookie %q: %v", line, err)
				}
				cookies[ck.Name] = ck
			}
			if len(cookies) != 2 || cookies[wantName] == nil || cookies[deviceName] == nil {
				t.Fatalf("Set-Cookie %q, want %s and %s", res.header.Values("Set-Cookie"), wantName, deviceName)
			}
			for name, maxAge := range map[string]int{wantName: 48 * 3600, deviceName: 180 * 24 * 3600} {
				ck := cookies[name]
				if ck.Value == "" || ck.Path != "/" || ck.Domain != "" || !ck.HttpOnly ||
					ck.SameSite != http.SameSiteLaxMode || ck.Secure != tc.https || ck.MaxAge != maxAge {
					t.Errorf("Set-Cookie: %s", ck)
				}
			}
			if !c.loggedIn() {
				t.Fatal("the cookie does not log in")
			}
			res = c.post("/account/logout", nil)
			if ck := onlyCookie(t, res); ck.Name != wantName || ck.Value != "" || ck.MaxAge >= 0 || ck.Secure != tc.https {
				t.Errorf("logout Set-Cookie: %s", res.header.Get("Set-Cookie"))
			}
		})
	}
}

func onlyCookie(t *testing.T, res response) *http.Cookie {
	t.Helper()
	lines := res.header.Values("Set-Cookie")
	if len(lines) != 1 {
		t.Fatalf("%d: Set-Cookie %q, want one", res.status, lines)
	}
	ck, err := http.ParseSetCookie(lines[0])
	if err != nil {
		t.Fatalf("Set-Cookie %q: %v", lines[0], err)
	}
	return ck
}

// A login replaces the session id the browser came with, planted or not,
// and the old id stops working.
func TestSessionRotatedAtLogin(t *testing.T) {
	tp := newTestPortal(t)
	tp.createAccount("ann@example.com", true)
	c := tp.client()
	c.setSessionCookie("an-id-an-attacker-planted")
	c.login("ann@example.com", testPassword)
	first := c.sessionCookie()
	if first == "" || first == "an-id-an-attacker-planted" {
		t.Fatalf("session cookie after login: %q", first)
	}
	c.login("ann@example.com", testPassword)
	second := c.sessionCookie()
	if second == first {
		t.Fatal("the session id was not rotated at the second login")
	}
	if !c.loggedIn() {
		t.Fatal("the new session does not work")
	}
	if _, err := tp.store.Session(context.Background(), hashSecret(first)); !errors.Is(err, account.ErrNotFound) {
		t.Errorf("the old session is still stored: %v", err)
	}
	old := tp.client()
	old.setSessionCookie(first)
	if old.loggedIn() {
		t.Error("the session id from before the login still works")
	}
}

// A session ends after SessionIdle without use and SessionMax after login
// however much it is used; the expired session is deleted.
func TestSessionExpiry(t *testing.T) {
	cfg := Config{SessionIdle: time.Hour, SessionMax: 3 * time.Hour}
	t.Run("idle", func(t *testing.T) {
		tp := newTestPortalWith(t, portalOptions{cfg: cfg})
		tp.createAccount("ann@example.com", true)
		c := tp.client()
		c.login("ann@example.com", testPassword)
		tp.clock.Advance(59 * time.Minute)
		if !c.loggedIn() {
			t.Fatal("logged out before the idle time")
		}
		id := c.sessionCookie()
		tp.clock.Advance(61 * time.Minute) // an hour after the last use
		if c.loggedIn() {
			t.Fatal("still logged in after an idle hour")
		}
		if _, err := tp.store.Session(context.Background(), hashSecret(id)); !errors.Is(err, account.ErrNotFound) {
			t.Errorf("the expired session is still stored: %v", err)
		}
	})
	t.Run("absolute", func(t *testing.T) {
		tp := newTestPortalWith(t, portalOptions{cfg: cfg})
		tp.createAccount("ann@example.com", true)
		c := tp.client()
		c.login("ann@example.com", testPassword)
		for elapsed := 50 * time.Minute; elapsed < 3*time.Hour; elapsed += 50 * time.Minute {
			tp.clock.Advance(50 * time.Minute)
			if !c.loggedIn() {
				t.Fatalf("logged out %v after login, while in use", elapsed)
			}
		}
		tp.clock.Advance(50 * time.Minute) // 3 h 20 min after login
		if c.loggedIn() {
			t.Fatal("still logged in past the absolute expiry")
		}
	})
}

// The same status and body, byte for byte, whether or not the email has an
// account: for sign-up, a failed login and a reset. Each pair asks for the
// same email before and after its account exists.
func TestNoEnumeration(t *testing.T) {
	tp := newTestPortal(t)
	c := tp.client()
	same := func(what string, unknown, known response) {
		t.Helper()
		if unknown.status != known.status || unknown.body != known.body {
			t.Errorf("%s: unknown email %d, known %d; bodies equal %v\n%s\n---\n%s", what, unknown.status, known.status,
				unknown.body == known.body, mainOf(unknown.body), mainOf(known.body))
		}
		for _, res := range []response{unknown, known} {
			if len(res.header.Values("Set-Cookie")) != 0 {
				t.Errorf("%s: a cookie was set", what)
			}
		}
	}

	form := url.Values{"email": {"sign@example.com"}, "password": {testPassword}}
	unknown := c.post("/account/signup", form)
	tp.waitMail("sign@example.com") // verification
	known := c.post("/account/signup", form)
	tp.waitMail("sign@example.com") // "someone tried to sign up"
	if unknown.status != http.StatusOK {
		t.Fatalf("sign-up: %d\n%s", unknown.status, mainOf(unknown.body))
	}
	same("sign-up", unknown, known)

	form = url.Values{"email": {"login@example.com"}, "password": {"not the password at all"}}
	unknown = c.post("/account/login", form)
	tp.createAccount("login@example.com", true)
	known = c.post("/account/login", form)
	if known.status != http.StatusUnauthorized || !strings.Contains(known.body, msgLoginFailed) {
		t.Fatalf("login: %d\n%s", known.status, mainOf(known.body))
	}
	same("login", unknown, known)
	// An account without a password (made by the CLI) too.
	if err := tp.store.CreateAccount(context.Background(), &account.Account{Email: "cli@example.com", Plan: account.Free}); err != nil {
		t.Fatal(err)
	}
	same("login without a password", unknown, withoutEmailResponse(c.post("/account/login",
		url.Values{"email": {"cli@example.com"}, "password": {"not the password at all"}}), "cli@example.com", "login@example.com"))

	form = url.Values{"email": {"reset@example.com"}}
	unknown = c.post("/account/reset", form)
	tp.createAccount("reset@example.com", true)
	known = c.post("/account/reset", form)
	tp.waitMail("reset@example.com")
	if known.status != http.StatusOK {
		t.Fatalf("reset: %d\n%s", known.status, mainOf(known.body))
	}
	same("reset", unknown, known)
	if n := tp.mail.sent(); n != 3 {
		t.Errorf("%d emails sent, want 3", n)
	}
}

// withoutEmailResponse is res with email, as text and in links, replaced
// by instead.
func withoutEmailResponse(res response, email, instead string) response {
	res.body = strings.NewReplacer(email, instead, url.QueryEscape(email), url.QueryEscape(instead)).Replace(res.body)
	return res
}

// Failed logins are throttled per email and client address (10 an hour),
// per client address (20 an hour) and per email (50 an hour), with a
// message that says which and for how long, the same for known and unknown
// emails; the right password does not get through a throttle. The owner's
// known browser is exempt from the per-email pool (TestAttackerCannotLockOwnerOut).
func TestLoginThrottle(t *testing.T) {
	tp := newTestPortal(t)
	tp.createAccount("victim@example.com", true)
	tp.createAccount("other@example.com", true)
	fail := func(c *client, email string, n int) {
		t.Helper()
		if refused := c.failLogins(email, n); refused != 0 {
			t.Fatalf("%d of %d failures for %s refused", refused, n, email)
		}
	}
	const forAccountHere = "Too many failed logins for this account from here; try again in 45 minutes."
	throttled := func(c *client, email, pw, want string) response {
		t.Helper()
		res := c.post("/account/login", url.Values{"email": {email}, "password": {pw}})
		if res.status != http.StatusTooManyRequests || !strings.Contains(res.body, want) ||
			res.header.Get("Retry-After") != "2700" || c.sessionCookie() != "" {
			t.Fatalf("%s: %d, Retry-After %q, want 429 with %q\n%s", email, res.status, res.header.Get("Retry-After"), want, mainOf(res.body))
		}
		return res
	}

	a := tp.from("192.0.2.1")
	fail(a, "victim@example.com", 10)
	known := throttled(a, "victim@example.com", testPassword, forAccountHere)
	// Another address is not refused for them.
	tp.from("192.0.2.2").login("victim@example.com", testPassword)

	u := tp.from("192.0.2.3")
	fail(u, "ghost@example.com", 10)
	unknown := throttled(u, "ghost@example.com", testPassword, forAccountHere)
	if got := withoutEmailResponse(unknown, "ghost@example.com", "victim@example.com"); got.body != known.body {
		t.Errorf("throttled answers differ for known and unknown emails:\n%s\n---\n%s", mainOf(known.body), mainOf(got.body))
	}

	// One address guessing many accounts.
	m := tp.from("198.51.100.7")
	for i := range 20 {
		fail(m, "guess"+string(rune('a'+i))+"@example.com", 1)
	}
	throttled(m, "other@example.com", testPassword, "Too many failed logins from here; try again in 45 minutes.")

	// Many addresses guessing one account: with the 10 above, 40 more
	// exhaust the account's 50.
	for i := range 4 {
		fail(tp.from("203.0.113."+strconv.Itoa(i)), "victim@example.com", 10)
	}
	throttled(tp.from("203.0.113.9"), "victim@example.com", testPassword, "Too many failed logins for this account; try again in 45 minutes.")

	// The hour ends.
	tp.clock.Advance(45 * time.Minute)
	tp.from("192.0.2.1").login("victim@example.com", testPassword)
	if !strings.Contains(tp.logs.String(), "portal: login throttled") {
		t.Error("throttled logins are not logged")
	}
}

// Verification and reset links work once and until they expire; a GET
// never spends them, nor does a link of the other kind.
func TestTokensSingleUseAndExpiring(t *testing.T) {
	tp := newTestPortal(t)
	c := tp.client()
	verifyWith := func(token string) response {
		return c.post("/account/verify", url.Values{"token": {token}})
	}
	expired := func(what string, res response) {
		t.Helper()
		if res.status != http.StatusBadRequest || !strings.Contains(res.body, msgTokenExpired) {
			t.Fatalf("%s: %d, want 400 with %q\n%s", what, res.status, msgTokenExpired, mainOf(res.body))
		}
	}

	link := c.signUp("once@example.com", testPassword, "")
	token := tokenOf(t, link)
	c.get(pathOf(t, link))
	if res := verifyWith(token); res.status != http.StatusSeeOther {
		t.Fatalf("first use: %d\n%s", res.status, mainOf(res.body))
	}
	res := verifyWith(token)
	expired("verification link used twice", res)
	if !strings.Contains(res.body, `action="/account/verify/resend"`) {
		t.Error("the expired page offers no new link")
	}
	expired("unknown verification token", verifyWith("no-such-token-at-all"))
	expired("no verification token", verifyWith(""))

	link = c.signUp("late@example.com", testPassword, "")
	tp.clock.Advance(24 * time.Hour)
	expired("expired verification link", verifyWith(tokenOf(t, link)))
	if acc := tp.accountByEmail("late@example.com"); !acc.VerifiedAt.IsZero() {
		t.Error("an expired link verified the account")
	}

	resetLink := func(email string) string {
		t.Helper()
		c.post("/account/reset", url.Values{"email": {email}})
		return tokenOf(t, tp.waitMail(email).Link)
	}
	resetWith := func(token, pw string) response {
		return c.post("/account/reset/confirm", url.Values{"token": {token}, "password": {pw}})
	}
	token = resetLink("once@example.com")
	// A reset token does not verify, and is not spent by trying.
	expired("reset token at /account/verify", verifyWith(token))
	c.get("/account/reset/confirm?token=" + url.QueryEscape(token))
	if res := resetWith(token, "first new passphrase"); res.status != http.StatusSeeOther {
		t.Fatalf("first reset: %d\n%s", res.status, mainOf(res.body))
	}
	expired("reset link used twice", resetWith(token, "second new passphrase"))

	token = resetLink("once@example.com")
	tp.clock.Advance(time.Hour)
	expired("expired reset link", resetWith(token, "third new passphrase"))
	tp.client().login("once@example.com", "first new passphrase")
}

// The whole sign-up journey with a real SMTP server (STARTTLS, AUTH) in
// the test: the verification email arrives, its link verifies, the login
// works; the logs name events but no secret.
func TestSignupJourneyOverSMTP(t *testing.T) {
	smtpSrv := mailtest.Start(t)
	cfg, err := mail.ParseSMTPURL(smtpSrv.URL())
	if err != nil {
		t.Fatal(err)
	}
	cfg.TLSConfig = smtpSrv.TLSConfig()
	tp := newTestPortalWith(t, portalOptions{mailer: mail.NewSMTP(cfg)})
	c := tp.client()

	res := c.post("/account/signup", url.Values{"email": {"journey@example.com"}, "password": {testPassword}})
	if res.status != http.StatusOK {
		t.Fatalf("sign-up: %d\n%s", res.status, mainOf(res.body))
	}
	// A server that sends email says so, as it always did.
	mustContain(t, "sign-up", res.body, "<h1>Check your email</h1>",
		"We sent an email to <strong>journey@example.com</strong>. Follow the link in it to continue.",
		"It may take a few minutes to arrive; look in your spam folder too.")
	mustNotContain(t, "sign-up", res.body, "server's log", mail.NotSent, "CARDCAT_")
	m := smtpSrv.WaitFor(t, "journey@example.com", 10*time.Second)
	tp.addSecret(tokenOf(t, m.Link))
	if !m.TLS || !strings.HasPrefix(m.Link, tp.srv.URL+"/account/verify?token=") || !strings.Contains(m.Subject, "Verify") {
		t.Fatalf("email: TLS %v, subject %q, link %q", m.TLS, m.Subject, m.Link)
	}
	res = c.get(pathOf(t, m.Link))
	res = c.post("/account/verify", url.Values{"token": {formValue(t, res.body, "token")}})
	if res.status != http.StatusSeeOther || res.location != "/account/login?verified=1" {
		t.Fatalf("verify: %d %q", res.status, res.location)
	}
	c.login("journey@example.com", testPassword)
	if !c.loggedIn() {
		t.Fatal("not logged in")
	}
	if acc := tp.accountByEmail("journey@example.com"); acc.VerifiedAt.IsZero() {
		t.Fatal("not verified")
	}
	logs := tp.logs.String()
	for _, want := range []string{"portal: account created", "portal: email verified", "portal: logged in"} {
		if !strings.Contains(logs, want) {
			t.Errorf("the logs lack %q:\n%s", want, logs)
		}
	}
}

// What a visitor typed comes back escaped.
func TestAuthPagesEscapeInput(t *testing.T) {
	tp := newTestPortal(t)
	c := tp.client()
	const evil = `<script>alert(1)</script>`
	res := c.post("/account/login", url.Values{"email": {evil}, "password": {"whatever it is"}, "next": {`/"><script>alert(2)</script>`}})
	if res.status != http.StatusUnauthorized {
		t.Fatalf("login: %d", res.status)
	}
	if strings.Contains(res.body, "<script>alert") || !strings.Contains(res.body, template.HTMLEscapeString(evil)) {
		t.Errorf("input not escaped:\n%s", mainOf(res.body))
	}
	res = c.get("/account/signup?next=" + url.QueryEscape(`/"><script>alert(3)</script>`))
	if strings.Contains(res.body, "<script>alert") {
		t.Errorf("next not escaped:\n%s", mainOf(res.body))
	}
}

// Setting a password ends the reset links sent before it (issue 24): a
// second link stayed valid for its hour after the first one had reset the
// password, and so did a link sent before a password change.
func TestResetLinksEndWhenPasswordSet(t *testing.T) {
	tp := newTestPortal(t)
	tp.createAccount("ann@example.com", true)
	c := tp.client()
	resetLink := func() string {
		t.Helper()
		c.post("/account/reset", url.Values{"email": {"ann@example.com"}})
		return tokenOf(t, tp.waitMail("ann@example.com").Link)
	}
	resetWith := func(token, pw string) response {
		return c.post("/account/reset/confirm", url.Values{"token": {token}, "password": {pw}})
	}
	expired := func(what string, res response) {
		t.Helper()
		if res.status != http.StatusBadRequest || !strings.Contains(res.body, msgTokenExpired) {
			t.Errorf("%s: %d, want 400 with %q\n%s", what, res.status, msgTokenExpired, mainOf(res.body))
		}
	}

	first, second := resetLink(), resetLink()
	if res := resetWith(first, "first new passphrase"); res.status != http.StatusSeeOther {
		t.Fatalf("reset with the first link: %d\n%s", res.status, mainOf(res.body))
	}
	expired("the second link after the first reset the password", resetWith(second, "second new passphrase"))

	before := resetLink()
	c.login("ann@example.com", "first new passphrase")
	res := c.post("/account/settings/password", url.Values{"current": {"first new passphrase"}, "password": {"third new passphrase"}})
	if res.status != http.StatusSeeOther {
		t.Fatalf("password change: %d\n%s", res.status, mainOf(res.body))
	}
	expired("a link sent before a password change", resetWith(before, "fourth new passphrase"))
	tp.client().login("ann@example.com", "third new passphrase")

	// A link sent after the change works.
	if res := resetWith(resetLink(), "fifth new passphrase"); res.status != http.StatusSeeOther {
		t.Errorf("a link sent after the change: %d\n%s", res.status, mainOf(res.body))
	}
}
