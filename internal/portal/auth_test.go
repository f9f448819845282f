package portal

import (
	"context"
	"errors"
	"html/template"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/portal/mail"
	"github.com/cardcat/cardcat/internal/portal/password"
	"github.com/cardcat/cardcat/internal/testkit"
)

func TestNormalizeEmail(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"ann@example.com", "ann@example.com", true},
		{"  Ann@Example.COM \n", "ann@example.com", true},
		{"ann+tag@sub.example.org", "ann+tag@sub.example.org", true},
		{"", "", false},
		{"ann", "ann", false},
		{"ann@", "ann@", false},
		{"Ann <ann@example.com>", "ann <ann@example.com>", false},
		{`"a b"@example.com`, `"a b"@example.com`, false},
		{"ann@example.com\r\nBcc: x@example.com", "", false},
		{strings.Repeat("a", 250) + "@b.co", "", false},
		{strings.Repeat("a", 242) + "@example.com", strings.Repeat("a", 242) + "@example.com", true}, // 254 bytes
	} {
		got, err := normalizeEmail(tc.in)
		if (err == nil) != tc.ok {
			t.Errorf("normalizeEmail(%q): error %v, want ok=%v", tc.in, err, tc.ok)
		}
		if tc.want != "" && got != tc.want {
			t.Errorf("normalizeEmail(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if len(got) > maxEmailBytes {
			t.Errorf("normalizeEmail(%q) returned %d bytes", tc.in, len(got))
		}
	}
}

// signUp posts the sign-up form and returns the verification link emailed.
func (c *client) signUp(email, pw, next string) string {
	c.tp.t.Helper()
	form := url.Values{"email": {email}, "password": {pw}}
	if next != "" {
		form.Set("next", next)
	}
	res := c.post("/account/signup", form)
	if res.status != http.StatusOK || !strings.Contains(res.body, "Check your email") {
		c.tp.t.Fatalf("sign-up: %d\n%s", res.status, mainOf(res.body))
	}
	m := c.tp.waitMail(strings.ToLower(strings.TrimSpace(email)))
	if !strings.Contains(m.Text, m.Link) || !strings.HasPrefix(m.Link, c.tp.srv.URL+"/account/verify?token=") {
		c.tp.t.Fatalf("verification email: link %q, text:\n%s", m.Link, m.Text)
	}
	return m.Link
}

// pathOf is a link's path and query on the test server.
func pathOf(t *testing.T, link string) string {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	return u.RequestURI()
}

// The journey: sign up, follow the emailed link (GET shows a button, POST
// verifies), log in, log out; next is kept all along.
func TestSignupVerifyLoginLogout(t *testing.T) {
	tp := newTestPortal(t)
	c := tp.client()
	const email = "dev@example.com"

	res := c.get("/account/signup?next=/account/trial")
	if res.status != http.StatusOK || !strings.Contains(res.body, `name="next" value="/account/trial"`) ||
		!strings.Contains(res.body, `autocomplete="new-password"`) || !strings.Contains(res.body, `href="/account/login?next=%2faccount%2ftrial"`) {
		t.Fatalf("GET signup: %d\n%s", res.status, mainOf(res.body))
	}
	link := c.signUp("  Dev@Example.com ", testPassword, "/account/trial")
	acc := tp.accountByEmail(email)
	if acc.Plan != account.Free || !acc.VerifiedAt.IsZero() || acc.PasswordHash == "" {
		t.Fatalf("new account: plan %q, verified %v, hash set %v", acc.Plan, acc.VerifiedAt, acc.PasswordHash != "")
	}
	if ok, err := password.Verify(testPassword, acc.PasswordHash); !ok || err != nil {
		t.Fatalf("stored hash does not verify the password: %v %v", ok, err)
	}
	if keys, _ := tp.store.Keys(context.Background(), acc.ID); len(keys) != 0 {
		t.Fatalf("keys before verification: %v", keys)
	}

	// An unverified account can log in (the dashboard says to verify).
	c2 := tp.client()
	c2.login(email, testPassword)

	// A mail scanner's GETs do not spend the token.
	for range 2 {
		res = c.get(pathOf(t, link))
		if res.status != http.StatusOK || !strings.Contains(res.body, `action="/account/verify"`) {
			t.Fatalf("GET verify: %d\n%s", res.status, mainOf(res.body))
		}
	}
	res = c.post("/account/verify", url.Values{"token": {tokenOf(t, link)}, "next": {"/account/trial"}})
	if res.status != http.StatusSeeOther || res.location != "/account/login?verified=1&next=%2Faccount%2Ftrial" {
		t.Fatalf("POST verify: %d %q\n%s", res.status, res.location, mainOf(res.body))
	}
	if acc := tp.accountByEmail(email); !acc.VerifiedAt.Equal(testStart) {
		t.Fatalf("VerifiedAt = %v, want %v", acc.VerifiedAt, testStart)
	}
	res = c.get(res.location)
	if res.status != http.StatusOK || !strings.Contains(res.body, msgVerified) ||
		!strings.Contains(res.body, `name="next" value="/account/trial"`) || !strings.Contains(res.body, `autocomplete="current-password"`) {
		t.Fatalf("login page after verify: %d\n%s", res.status, mainOf(res.body))
	}
	res = c.post("/account/login", url.Values{"email": {email}, "password": {testPassword}, "next": {"/account/trial"}})
	if res.status != http.StatusSeeOther || res.location != "/account/trial" {
		t.Fatalf("login: %d %q\n%s", res.status, res.location, mainOf(res.body))
	}
	if !c.loggedIn() {
		t.Fatal("not logged in after login")
	}

	// Logging out is a POST: a GET changes nothing.
	if res = c.get("/account/logout"); res.status == http.StatusSeeOther {
		t.Fatalf("GET logout redirected to %q", res.location)
	}
	if !c.loggedIn() {
		t.Fatal("GET logout logged out")
	}
	old := c.sessionCookie()
	res = c.post("/account/logout", nil)
	if res.status != http.StatusSeeOther || res.location != "/account/login?loggedout=1" {
		t.Fatalf("logout: %d %q", res.status, res.location)
	}
	if c.loggedIn() {
		t.Fatal("still logged in after logout")
	}
	c.setSessionCookie(old)
	if c.loggedIn() {
		t.Fatal("the logged-out session id still works")
	}
	if !c2.loggedIn() {
		t.Fatal("logging out ended another browser's session")
	}
	if res = c.get("/account/login?loggedout=1"); !strings.Contains(res.body, msgLoggedOut) {
		t.Fatalf("login page after logout lacks the notice:\n%s", mainOf(res.body))
	}
}

// Bad sign-up input re-renders the form with the reason and the email,
// never the password, and creates nothing.
func TestSignupRefusals(t *testing.T) {
	tp := newTestPortal(t)
	c := tp.client()
	for _, tc := range []struct {
		name, email, pw, want string
	}{
		{"no email", "", testPassword, "Enter your email address."},
		{"bad email", "not-an-email", testPassword, "Enter a valid email address"},
		{"short password", "ann@example.com", "short1", string(password.ErrTooShort)},
		{"common password", "ann@example.com", "password1234", string(password.ErrTooCommon)},
		{"email as password", "ann@example.com", "ann@example.com", string(password.ErrIsEmail)},
		{"spaces as password", "ann@example.com", strings.Repeat(" ", 10), string(password.ErrBlank)},
		{"one character as password", "ann@example.com", "aaaaaaaaaa", string(password.ErrRepeated)},
		{"zero-width space in email", "ann\u200b@example.com", testPassword, msgHiddenInEmail},
		{"zero-width joiner in email", "ann@exa\u200dmple.com", testPassword, msgHiddenInEmail},
		{"right-to-left mark in email", "ann\u200f@example.com", testPassword, msgHiddenInEmail},
		{"right-to-left override in email", "\u202emoc.elpmaxe@nna", testPassword, msgHiddenInEmail},
		{"left-to-right embedding in email", "ann\u202a@example.com", testPassword, msgHiddenInEmail},
		{"isolate in email", "ann\u2066@example.com\u2069", testPassword, msgHiddenInEmail},
		{"byte order mark in email", "ann@example.com\ufeff", testPassword, msgHiddenInEmail},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := c.post("/account/signup", url.Values{"email": {tc.email}, "password": {tc.pw}})
			if res.status != http.StatusBadRequest || !strings.Contains(res.body, template.HTMLEscapeString(tc.want)) {
				t.Fatalf("%d, want 400 with %q\n%s", res.status, tc.want, mainOf(res.body))
			}
			if tc.email != "" && !strings.Contains(res.body, `value="`+tc.email+`"`) {
				t.Errorf("the email was not kept in the form")
			}
			if tc.pw != tc.email && strings.Contains(res.body, `value="`+tc.pw+`"`) {
				t.Errorf("the password was put back in the form")
			}
		})
	}
	if n := tp.mail.sent(); n != 0 {
		t.Errorf("%d emails sent for refused sign-ups", n)
	}
	if accs, _ := tp.store.Accounts(context.Background()); len(accs) != 0 {
		t.Errorf("accounts created: %v", accs)
	}
}

// Signing up with a registered email emails its owner, who is told to log
// in or reset, and changes nothing.
func TestSignupTakenEmail(t *testing.T) {
	tp := newTestPortal(t)
	acc := tp.createAccount("taken@example.com", true)
	res := tp.client().post("/account/signup", url.Values{"email": {"taken@example.com"}, "password": {"another long passphrase"}})
	if res.status != http.StatusOK {
		t.Fatalf("%d\n%s", res.status, mainOf(res.body))
	}
	m := tp.waitMail("taken@example.com")
	if !strings.Contains(m.Subject, "tried to sign up") || m.Link != tp.srv.URL+"/account/reset" ||
		!strings.Contains(m.Text, tp.srv.URL+"/account/login") {
		t.Errorf("email: %q %q\n%s", m.Subject, m.Link, m.Text)
	}
	if got := tp.accountByEmail("taken@example.com"); got.PasswordHash != acc.PasswordHash {
		t.Error("the password of the existing account changed")
	}
}

// The links between login, sign-up and reset carry next; a next that
// leaves the site is dropped.
func TestLoginNext(t *testing.T) {
	tp := newTestPortal(t)
	tp.createAccount("ann@example.com", true)
	c := tp.client()
	res := c.get("/account/login?next=/account/keys")
	for _, want := range []string{`href="/account/signup?next=%2faccount%2fkeys"`, `href="/account/reset?next=%2faccount%2fkeys"`} {
		if !strings.Contains(res.body, want) {
			t.Errorf("login page lacks %s", want)
		}
	}
	for _, tc := range []struct{ next, want string }{
		{"/account/keys", "/account/keys"},
		{"//evil.example/", "/account/"},
		{"https://evil.example/", "/account/"},
		{`/\evil.example`, "/account/"},
		{"", "/account/"},
	} {
		res := c.post("/account/login", url.Values{"email": {"ann@example.com"}, "password": {testPassword}, "next": {tc.next}})
		if res.status != http.StatusSeeOther || res.location != tc.want {
			t.Errorf("next %q: %d %q, want %q", tc.next, res.status, res.location, tc.want)
		}
	}
}

// A next with a control character or a backslash, typed or
// percent-encoded, is dropped (issue 24): browsers remove tabs and line
// breaks from a URL and read a backslash as a slash, so that /<TAB>/evil.example/
// in Location took the visitor to evil.example.
func TestLoginNextRefusesControlAndBackslash(t *testing.T) {
	tp := newTestPortal(t)
	tp.createAccount("ann@example.com", true)
	c := tp.client()
	for _, next := range []string{
		"/\t/evil.example/", "/\r/evil.example/", "/\n/evil.example/", "/\x00/evil.example/", "/\x7f/evil.example/",
		"/\\/evil.example/", "/account/\\evil.example", "/account/keys\t",
		"/%09/evil.example/", "/%0d/evil.example/", "/%0A/evil.example/", "/%00/evil.example/", "/%5c/evil.example/",
		"/%5C%5Cevil.example/", "/%2F/evil.example/", "/%zz/evil.example/",
	} {
		res := c.post("/account/login", url.Values{"email": {"ann@example.com"}, "password": {testPassword}, "next": {next}})
		if res.status != http.StatusSeeOther || res.location != "/account/" {
			t.Errorf("next %q: %d, Location %q, want /account/", next, res.status, res.location)
		}
		res = c.get("/account/login?next=" + url.QueryEscape(next))
		if strings.Contains(res.body, "evil.example") {
			t.Errorf("the login page carries next %q:\n%s", next, mainOf(res.body))
		}
	}
	res := c.post("/account/login", url.Values{"email": {"ann@example.com"}, "password": {testPassword}, "next": {"/account/keys?revoked=3"}})
	if res.location != "/account/keys?revoked=3" {
		t.Errorf("a next with a query: Location %q", res.location)
	}
}

// A reset link sets a new password: other sessions end, the account counts
// as verified, the old password stops working; an account the CLI made
// without a password gets one this way.
func TestResetPassword(t *testing.T) {
	tp := newTestPortal(t)
	acc := tp.createAccount("ann@example.com", false)
	other := tp.client()
	other.login("ann@example.com", testPassword)

	c := tp.client()
	if res := c.get("/account/reset"); res.status != http.StatusOK || !strings.Contains(res.body, `autocomplete="email"`) {
		t.Fatalf("GET reset: %d", res.status)
	}
	res := c.post("/account/reset", url.Values{"email": {"Ann@example.com"}})
	if res.status != http.StatusOK || !strings.Contains(res.body, "If an account exists for") {
		t.Fatalf("POST reset: %d\n%s", res.status, mainOf(res.body))
	}
	m := tp.waitMail("ann@example.com")
	if !strings.HasPrefix(m.Link, tp.srv.URL+"/account/reset/confirm?token=") || !strings.Contains(m.Text, m.Link) {
		t.Fatalf("reset email link %q", m.Link)
	}
	token := tokenOf(t, m.Link)
	res = c.get(pathOf(t, m.Link))
	if res.status != http.StatusOK || !strings.Contains(res.body, `value="`+token+`"`) || !strings.Contains(res.body, `autocomplete="new-password"`) {
		t.Fatalf("GET confirm: %d\n%s", res.status, mainOf(res.body))
	}
	// A refused password does not spend the link.
	res = c.post("/account/reset/confirm", url.Values{"token": {token}, "password": {"short"}})
	if res.status != http.StatusBadRequest || !strings.Contains(res.body, string(password.ErrTooShort)) {
		t.Fatalf("short password: %d\n%s", res.status, mainOf(res.body))
	}
	// Nor does one refused for the account's email: the form gets a new token.
	res = c.post("/account/reset/confirm", url.Values{"token": {token}, "password": {"ann@example.com"}})
	if res.status != http.StatusBadRequest || !strings.Contains(res.body, template.HTMLEscapeString(string(password.ErrIsEmail))) {
		t.Fatalf("email as password: %d\n%s", res.status, mainOf(res.body))
	}
	token = formValue(t, res.body, "token")
	tp.addSecret(token)
	const newPassword = "a brand new passphrase"
	res = c.post("/account/reset/confirm", url.Values{"token": {token}, "password": {newPassword}})
	if res.status != http.StatusSeeOther || res.location != "/account/login?reset=1" {
		t.Fatalf("confirm: %d %q\n%s", res.status, res.location, mainOf(res.body))
	}
	if got := tp.accountByEmail("ann@example.com"); !got.VerifiedAt.Equal(testStart) {
		t.Errorf("VerifiedAt = %v after a reset, want %v", got.VerifiedAt, testStart)
	}
	if other.loggedIn() {
		t.Error("a session from before the reset still works")
	}
	if res = c.get("/account/login?reset=1"); !strings.Contains(res.body, msgPasswordReset) {
		t.Errorf("no notice after reset")
	}
	res = c.post("/account/login", url.Values{"email": {"ann@example.com"}, "password": {testPassword}})
	if res.status != http.StatusUnauthorized {
		t.Errorf("old password: %d", res.status)
	}
	c.login("ann@example.com", newPassword)
	_ = acc

	// An account made by the CLI has no password: it cannot log in, and a
	// reset gives it one.
	cli := &account.Account{Email: "cli@example.com", Plan: account.Free}
	if err := tp.store.CreateAccount(context.Background(), cli); err != nil {
		t.Fatal(err)
	}
	if res := c.post("/account/login", url.Values{"email": {"cli@example.com"}, "password": {""}}); res.status != http.StatusUnauthorized {
		t.Fatalf("login without a password: %d", res.status)
	}
	c.post("/account/reset", url.Values{"email": {"cli@example.com"}})
	m = tp.waitMail("cli@example.com")
	res = c.post("/account/reset/confirm", url.Values{"token": {tokenOf(t, m.Link)}, "password": {newPassword}})
	if res.status != http.StatusSeeOther {
		t.Fatalf("CLI account's reset: %d\n%s", res.status, mainOf(res.body))
	}
	tp.client().login("cli@example.com", newPassword)
}

// withoutEmail is body with email, as text and in links, replaced by EMAIL,
// to compare pages about different addresses.
func withoutEmail(body, email string) string {
	return strings.NewReplacer(email, "EMAIL", url.QueryEscape(email), "EMAIL").Replace(body)
}

// formValue is the value of the input named name in a page.
func formValue(t *testing.T, body, name string) string {
	t.Helper()
	_, after, ok := strings.Cut(body, `name="`+name+`" value="`)
	if !ok {
		t.Fatalf("no input %s in\n%s", name, mainOf(body))
	}
	v, _, _ := strings.Cut(after, `"`)
	return v
}

// A new verification link: the same answer for any address, a link only
// to an account waiting for verification.
func TestResendVerification(t *testing.T) {
	tp := newTestPortal(t)
	tp.createAccount("waiting@example.com", false)
	tp.createAccount("done@example.com", true)
	c := tp.client()
	if res := c.get("/account/verify/resend?email=waiting@example.com"); res.status != http.StatusOK ||
		!strings.Contains(res.body, `value="waiting@example.com"`) {
		t.Fatalf("GET resend: %d\n%s", res.status, mainOf(res.body))
	}
	var bodies []string
	for _, email := range []string{"done@example.com", "nobody@example.com", "waiting@example.com"} {
		res := c.post("/account/verify/resend", url.Values{"email": {email}})
		if res.status != http.StatusOK {
			t.Fatalf("resend %s: %d\n%s", email, res.status, mainOf(res.body))
		}
		bodies = append(bodies, withoutEmail(res.body, email))
	}
	if bodies[0] != bodies[1] || bodies[1] != bodies[2] {
		t.Errorf("resend answers differ by account:\n%s\n---\n%s\n---\n%s", mainOf(bodies[0]), mainOf(bodies[1]), mainOf(bodies[2]))
	}
	m := tp.waitMail("waiting@example.com")
	res := c.post("/account/verify", url.Values{"token": {tokenOf(t, m.Link)}})
	if res.status != http.StatusSeeOther {
		t.Fatalf("verify with the new link: %d", res.status)
	}
	if n := tp.mail.sent(); n != 1 {
		t.Errorf("%d emails sent, want 1 (to the account waiting)", n)
	}
}

// Settings: the page shows the account; a password change needs the
// current one and ends the other sessions; deletion needs the password,
// revokes the keys at once and logs out.
func TestSettings(t *testing.T) {
	tp := newTestPortal(t)
	ctx := context.Background()
	acc := tp.createAccount("ann@example.com", true)
	c, other := tp.client(), tp.client()
	c.login("ann@example.com", testPassword)
	other.login("ann@example.com", testPassword)

	res := c.get("/account/settings")
	if res.status != http.StatusOK || !strings.Contains(res.body, "ann@example.com") ||
		!strings.Contains(res.body, acc.CreatedAt.UTC().Format("2006-01-02 15:04 UTC")) {
		t.Fatalf("settings: %d\n%s", res.status, mainOf(res.body))
	}
	const newPassword = "my second long passphrase"
	res = c.post("/account/settings/password", url.Values{"current": {"not my password"}, "password": {newPassword}})
	if res.status != http.StatusBadRequest || !strings.Contains(res.body, msgWrongPassword) {
		t.Fatalf("wrong current password: %d\n%s", res.status, mainOf(res.body))
	}
	res = c.post("/account/settings/password", url.Values{"current": {testPassword}, "password": {"short"}})
	if res.status != http.StatusBadRequest || !strings.Contains(res.body, string(password.ErrTooShort)) {
		t.Fatalf("short new password: %d\n%s", res.status, mainOf(res.body))
	}
	before := c.sessionCookie()
	res = c.post("/account/settings/password", url.Values{"current": {testPassword}, "password": {newPassword}})
	if res.status != http.StatusSeeOther || res.location != "/account/settings?changed=1" {
		t.Fatalf("change: %d %q\n%s", res.status, res.location, mainOf(res.body))
	}
	if c.sessionCookie() == before {
		t.Error("the session id was not replaced after a password change")
	}
	if res = c.get("/account/settings?changed=1"); res.status != http.StatusOK || !strings.Contains(res.body, msgPasswordChanged) {
		t.Fatalf("after change: %d\n%s", res.status, mainOf(res.body))
	}
	if other.loggedIn() {
		t.Error("another session survived the password change")
	}
	tp.client().login("ann@example.com", newPassword)

	key := &account.Key{AccountID: acc.ID, Hash: strings.Repeat("ab", 32), Prefix: "pk_live_abcd", Name: "k"}
	if err := tp.store.CreateKey(ctx, key); err != nil {
		t.Fatal(err)
	}
	res = c.post("/account/settings/delete", url.Values{"password": {testPassword}})
	if res.status != http.StatusBadRequest || !strings.Contains(res.body, "was not deleted") {
		t.Fatalf("delete with the wrong password: %d\n%s", res.status, mainOf(res.body))
	}
	res = c.post("/account/settings/delete", url.Values{"password": {newPassword}})
	if res.status != http.StatusSeeOther || res.location != "/account/signup?deleted=1" {
		t.Fatalf("delete: %d %q\n%s", res.status, res.location, mainOf(res.body))
	}
	if _, err := tp.store.AccountByEmail(ctx, "ann@example.com"); !errors.Is(err, account.ErrNotFound) {
		t.Errorf("the account is still there: %v", err)
	}
	keys, err := tp.store.Keys(ctx, acc.ID)
	if err != nil || len(keys) != 1 || !keys[0].RevokedAt.Equal(testStart) {
		t.Errorf("keys after deletion: %+v, %v", keys, err)
	}
	if n := tp.keys.count(); n != 1 {
		t.Errorf("key directory refreshed %d times, want 1", n)
	}
	if c.loggedIn() {
		t.Error("still logged in after deleting the account")
	}
	if res = c.get("/account/signup?deleted=1"); !strings.Contains(res.body, msgDeleted) {
		t.Errorf("no notice after deletion")
	}
	// The email is free again.
	c.signUp("ann@example.com", newPassword, "")
}

// lookupDown is a store whose account lookup by email fails: the database
// is down.
type lookupDown struct{ account.Store }

func (lookupDown) AccountByEmail(context.Context, string) (*account.Account, error) {
	return nil, errors.New("connection refused by 10.0.0.5:5432")
}

// A store that fails on the email forms answers the generic 500 page:
// nothing sent, the cause logged but not shown.
func TestMailFormsStoreDown(t *testing.T) {
	tp := newTestPortal(t)
	tp.createAccount("ann@example.com", false)
	tp.p.deps.Store = lookupDown{tp.store}
	c := tp.client()
	for _, path := range []string{"/account/reset", "/account/verify/resend"} {
		res := c.post(path, url.Values{"email": {"ann@example.com"}})
		if res.status != http.StatusInternalServerError || strings.Contains(res.body, "10.0.0.5") ||
			!strings.Contains(res.body, "nothing was changed") {
			t.Errorf("POST %s with the store down: %d\n%s", path, res.status, mainOf(res.body))
		}
	}
	if n := tp.mail.sent(); n != 0 {
		t.Errorf("%d emails sent with the store down", n)
	}
	if logs := tp.logs.String(); !strings.Contains(logs, "connection refused") {
		t.Errorf("the cause is not logged:\n%s", logs)
	}
}

// With the log mailer (no SMTP configured), the pages after a sign-up, a
// reset or a new verification link say that the link is in the server's
// log, name its line, and speak of no email or spam folder; and the link
// is there, and works.
func TestPagesSayWhereTheLinkIs(t *testing.T) {
	var logged testkit.SyncBuffer
	tp := newTestPortalWith(t, portalOptions{mailer: mail.LogMailer{Logger: slog.New(slog.NewTextHandler(&logged, nil))}})
	c := tp.client()
	logLine := `<code>` + mail.NotSent + `</code>`
	res := c.post("/account/signup", url.Values{"email": {"self-hosted@example.com"}, "password": {testPassword}})
	if res.status != http.StatusOK {
		t.Fatalf("sign-up: %d\n%s", res.status, mainOf(res.body))
	}
	mustContain(t, "sign-up", res.body, "<title>Find the link in the server&#39;s log · cardcat account</title>",
		"<h1>Find the link in the server's log</h1>",
		"A link to continue was made for <strong>self-hosted@example.com</strong>.",
		"No mail is configured on this server, so nothing was emailed: the link is in the server's log, on the line "+logLine,
		"If you run this server yourself (<code>make run</code>, <code>cardcat serve</code>), copy the link from its output; if someone else runs it, ask them.",
		"set <code>CARDCAT_SMTP_URL</code>")
	mustNotContain(t, "sign-up", res.body, "spam", "Check your email", "We sent")

	// The link is in the log, on that line, and verifies the account.
	m := regexp.MustCompile(`msg="` + regexp.QuoteMeta(mail.NotSent) + `" to=self-hosted@example.com subject=.* link="?([^"\s]+)`).FindStringSubmatch(logged.String())
	if m == nil {
		t.Fatalf("no line %q with the link in the log:\n%s", mail.NotSent, logged.String())
	}
	res = c.get(pathOf(t, m[1]))
	res = c.post("/account/verify", url.Values{"token": {formValue(t, res.body, "token")}})
	if res.status != http.StatusSeeOther {
		t.Fatalf("the logged link: %d %q", res.status, res.location)
	}

	for _, tt := range []struct{ path, email, want string }{
		{"/account/reset", "self-hosted@example.com", "a link to set a new password was made for it."},
		{"/account/verify/resend", "someone@example.com", "is waiting for verification, a new link was made for it."},
	} {
		mustContain(t, "GET "+tt.path, c.get(tt.path).body, "the server's log")
		res := c.post(tt.path, url.Values{"email": {tt.email}})
		mustContain(t, "POST "+tt.path, res.body, "<h1>Find the link in the server's log</h1>", tt.want, logLine)
		mustNotContain(t, "POST "+tt.path, res.body, "spam", "Check your email", "we sent")
	}

	// An account not yet verified is told where its link is.
	u := tp.session(tp.createAccount("unverified@example.com", false))
	mustContain(t, "dashboard", u.get("/account/").body, "this server sends no email, so it is in the server's log, on the line "+logLine)
	mustContain(t, "keys", u.get("/account/keys").body, "open the link in the server's log (this server sends no email)")
	mustContain(t, "key refused", u.post("/account/keys", url.Values{"name": {"bot"}, "kind": {"live"}}).body,
		"open the link in the server&#39;s log (this server sends no email)")
	mustNotContain(t, "dashboard", u.get("/account/").body, "We sent")
}
