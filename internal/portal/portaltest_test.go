package portal

// Test helpers: a portal on a real SQLite store in t.TempDir(), served over
// a real HTTP server, with a clock the test moves, a recording mailer, the
// in-process limiter, and its logs captured and checked for secrets when
// the test ends.

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/portal/mail"
	"github.com/cardcat/cardcat/internal/portal/password"
	"github.com/cardcat/cardcat/internal/ratelimit"
	"github.com/cardcat/cardcat/internal/ratelimit/memory"
	"github.com/cardcat/cardcat/internal/store/sqlite"
	"github.com/cardcat/cardcat/internal/testkit"
)

// testStart is the clock's start: 10:15 UTC, so that an hourly window has
// 45 minutes left.
var testStart = time.Date(2026, 3, 2, 10, 15, 0, 0, time.UTC)

// testPassword passes password.Check for any test email.
const testPassword = "correct horse battery staple"

type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// recordingMailer keeps every message and lets a test wait for the next one
// to an address.
type recordingMailer struct {
	mu      sync.Mutex
	msgs    []mail.Message
	taken   []bool // msgs[i] already returned by waitMail
	arrived chan struct{}
}

func newRecordingMailer() *recordingMailer { return &recordingMailer{arrived: make(chan struct{})} }

func (m *recordingMailer) Send(_ context.Context, msg mail.Message) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.msgs = append(m.msgs, msg)
	m.taken = append(m.taken, false)
	close(m.arrived)
	m.arrived = make(chan struct{})
	return nil
}

// sent is the number of messages sent so far.
func (m *recordingMailer) sent() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.msgs)
}

type testPortal struct {
	t      *testing.T
	p      *Portal
	srv    *httptest.Server
	store  *sqlite.DB
	mail   *recordingMailer
	clock  *testClock
	logs   *testkit.SyncBuffer
	keys   *refreshCounter
	limits ratelimit.Limiter
	snap   atomic.Pointer[catalog.Snapshot] // the catalogue served (loadCatalogue)
	mu     sync.Mutex
	secret map[string]bool // never to appear in a log line
}

type refreshCounter struct {
	mu sync.Mutex
	n  int
}

func (r *refreshCounter) Refresh(context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.n++
	return nil
}

func (r *refreshCounter) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n
}

type portalOptions struct {
	https   bool
	cfg     Config
	mailer  mail.Mailer // the recording mailer when nil
	billing Billing
	limiter ratelimit.Limiter // a new in-process one when nil; closed when the test ends
	// alerts serves the Alerts and Webhooks pages on the test's store, with
	// the catalogue tp.loadCatalogue puts in it; alertsHTTP takes http://
	// endpoints.
	alerts, alertsHTTP bool
}

// newTestPortal starts a portal on http://127.0.0.1:PORT.
func newTestPortal(t *testing.T) *testPortal { return newTestPortalWith(t, portalOptions{}) }

func newTestPortalWith(t *testing.T, o portalOptions) *testPortal {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "cardcat.db"))
	if err != nil {
		t.Fatalf("sqlite.Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	limiter := o.limiter
	if limiter == nil {
		limiter = memory.New(memory.Options{})
	}
	t.Cleanup(func() { limiter.Close() })
	tp := &testPortal{t: t, store: db, mail: newRecordingMailer(), clock: &testClock{now: testStart},
		logs: &testkit.SyncBuffer{}, keys: &refreshCounter{}, limits: limiter, secret: map[string]bool{}}

	var handler http.Handler
	tp.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		handler.ServeHTTP(w, r)
	}))
	if o.https {
		tp.srv.StartTLS()
	} else {
		tp.srv.Start()
	}
	t.Cleanup(tp.srv.Close)
	var mailer mail.Mailer = tp.mail
	if o.mailer != nil {
		mailer = o.mailer
	}
	var alertsDeps *AlertsDeps
	if o.alerts {
		alertsDeps = &AlertsDeps{Store: db, Catalog: tp.catalogue, AllowHTTP: o.alertsHTTP}
	}
	tp.p, err = New(o.cfg, Deps{
		Store:   db,
		Limiter: limiter,
		Mailer:  mailer,
		Keys:    tp.keys,
		Billing: o.billing,
		// A test names the client's address with X-Test-Client.
		ClientAddr: func(r *http.Request) string {
			if a := r.Header.Get("X-Test-Client"); a != "" {
				return a
			}
			return peerAddr(r)
		},
		Logger:    slog.New(slog.NewTextHandler(tp.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Now:       tp.clock.Now,
		PublicURL: tp.srv.URL,
		Alerts:    alertsDeps,
	})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	handler = tp.p
	// Registered last, so it runs first: the logs of everything the test did.
	t.Cleanup(tp.checkLogs)
	return tp
}

// catalogue is the catalogue the portal's alerts are checked against.
func (tp *testPortal) catalogue() *catalog.Snapshot { return tp.snap.Load() }

// addSecret records text that must never be logged.
func (tp *testPortal) addSecret(s string) {
	if s == "" {
		return
	}
	tp.mu.Lock()
	defer tp.mu.Unlock()
	tp.secret[s] = true
}

// checkLogs fails the test if a password, hash, token or session id it
// used appears in the portal's logs.
func (tp *testPortal) checkLogs() {
	accs, err := tp.store.Accounts(context.Background())
	if err != nil {
		tp.t.Errorf("Accounts: %v", err)
	}
	for _, a := range accs {
		tp.addSecret(a.PasswordHash)
	}
	logs := tp.logs.String()
	tp.mu.Lock()
	defer tp.mu.Unlock()
	for s := range tp.secret {
		for _, form := range []string{s, hashSecret(s), url.QueryEscape(s)} {
			if strings.Contains(logs, form) {
				tp.t.Errorf("the logs hold the secret %q:\n%s", s, logs)
			}
		}
	}
}

// waitMail returns the next message to addr, waiting up to 5 s, and
// records the token of its link as a secret.
func (tp *testPortal) waitMail(to string) mail.Message {
	tp.t.Helper()
	m := tp.mail
	timer := time.NewTimer(5 * time.Second)
	defer timer.Stop()
	for {
		m.mu.Lock()
		for i, msg := range m.msgs {
			if !m.taken[i] && msg.To == to {
				m.taken[i] = true
				m.mu.Unlock()
				tp.addSecret(tokenOf(tp.t, msg.Link))
				return msg
			}
		}
		arrived := m.arrived
		m.mu.Unlock()
		select {
		case <-arrived:
		case <-timer.C:
			tp.t.Fatalf("no email to %s within 5 s", to)
		}
	}
}

// tokenOf is the token= of a link, "" when none.
func tokenOf(tb testing.TB, link string) string {
	tb.Helper()
	u, err := url.Parse(link)
	if err != nil {
		tb.Fatalf("link %q: %v", link, err)
	}
	return u.Query().Get("token")
}

// createAccount makes an account with testPassword straight in the store.
func (tp *testPortal) createAccount(email string, verified bool) *account.Account {
	tp.t.Helper()
	hash, err := password.Hash(testPassword)
	if err != nil {
		tp.t.Fatal(err)
	}
	a := &account.Account{Email: email, Plan: account.Free, PasswordHash: hash}
	if verified {
		a.VerifiedAt = tp.clock.Now()
	}
	if err := tp.store.CreateAccount(context.Background(), a); err != nil {
		tp.t.Fatalf("CreateAccount: %v", err)
	}
	return a
}

func (tp *testPortal) accountByEmail(email string) *account.Account {
	tp.t.Helper()
	a, err := tp.store.AccountByEmail(context.Background(), email)
	if err != nil {
		tp.t.Fatalf("AccountByEmail(%s): %v", email, err)
	}
	return a
}

// client is a browser: a cookie jar, no redirects followed, and on every
// POST the headers a browser sends for a same-origin form.
type client struct {
	tp     *testPortal
	hc     *http.Client
	header http.Header // added to every request
}

func (tp *testPortal) client() *client {
	jar, err := cookiejar.New(nil)
	if err != nil {
		tp.t.Fatal(err)
	}
	hc := *tp.srv.Client() // a copy: the server's client is shared
	hc.Jar = jar
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &client{tp: tp, hc: &hc, header: http.Header{}}
}

// response is what a test reads of an answer.
type response struct {
	status   int
	body     string
	header   http.Header
	location string
}

func (c *client) do(req *http.Request) response {
	c.tp.t.Helper()
	for k, v := range c.header {
		req.Header[k] = v
	}
	res, err := c.hc.Do(req)
	if err != nil {
		c.tp.t.Fatalf("%s %s: %v", req.Method, req.URL.Path, err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		c.tp.t.Fatalf("%s %s: body: %v", req.Method, req.URL.Path, err)
	}
	for _, ck := range res.Cookies() {
		c.tp.addSecret(ck.Value)
	}
	return response{status: res.StatusCode, body: string(body), header: res.Header, location: res.Header.Get("Location")}
}

func (c *client) get(path string) response {
	c.tp.t.Helper()
	req, err := http.NewRequest(http.MethodGet, c.tp.srv.URL+path, nil)
	if err != nil {
		c.tp.t.Fatal(err)
	}
	req.Header.Set("Sec-Fetch-Site", "none")
	return c.do(req)
}

// post sends form as a browser on this site would.
func (c *client) post(path string, form url.Values) response {
	c.tp.t.Helper()
	return c.postWith(path, form, http.Header{"Sec-Fetch-Site": {"same-origin"}, "Origin": {c.tp.srv.URL}})
}

func (c *client) postWith(path string, form url.Values, h http.Header) response {
	c.tp.t.Helper()
	for _, v := range form {
		for _, s := range v {
			if len(s) >= 10 && !strings.Contains(s, "@") && !strings.HasPrefix(s, "/") {
				c.tp.addSecret(s) // passwords and tokens
			}
		}
	}
	req, err := http.NewRequest(http.MethodPost, c.tp.srv.URL+path, strings.NewReader(form.Encode()))
	if err != nil {
		c.tp.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for k, v := range h {
		req.Header[k] = v
	}
	return c.do(req)
}

// sessionCookie is the client's session cookie value, "" when none.
func (c *client) sessionCookie() string {
	u, _ := url.Parse(c.tp.srv.URL)
	for _, ck := range c.hc.Jar.Cookies(u) {
		if ck.Name == c.tp.p.cookieName() {
			return ck.Value
		}
	}
	return ""
}

// setSessionCookie puts a session id in the client's jar.
func (c *client) setSessionCookie(v string) {
	u, _ := url.Parse(c.tp.srv.URL)
	c.hc.Jar.SetCookies(u, []*http.Cookie{{Name: c.tp.p.cookieName(), Value: v, Path: "/"}})
}

// login logs the client in and fails the test unless it worked.
func (c *client) login(email, pw string) {
	c.tp.t.Helper()
	res := c.post("/account/login", url.Values{"email": {email}, "password": {pw}})
	if res.status != http.StatusSeeOther || res.location != "/account/" {
		c.tp.t.Fatalf("login %s: %d %q\n%s", email, res.status, res.location, mainOf(res.body))
	}
}

// loggedIn reports whether the client's session works, by the settings
// page, which needs one.
func (c *client) loggedIn() bool {
	c.tp.t.Helper()
	res := c.get("/account/settings")
	switch {
	case res.status == http.StatusOK:
		return true
	case res.status == http.StatusSeeOther && strings.HasPrefix(res.location, "/account/login"):
		return false
	}
	c.tp.t.Fatalf("GET /account/settings: %d %q", res.status, res.location)
	return false
}

var mainPattern = regexp.MustCompile(`(?s)<main[^>]*>(.*)</main>`)

// mainOf is the <main> of a page, for failure messages.
func mainOf(body string) string {
	if m := mainPattern.FindStringSubmatch(body); m != nil {
		return strings.TrimSpace(m[1])
	}
	return body
}
