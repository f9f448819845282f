package portal

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/account"
)

// session logs a new client in as acc by a session made straight in the
// store, as a login would.
func (tp *testPortal) session(acc *account.Account) *client {
	tp.t.Helper()
	id := newSecret()
	now := tp.clock.Now()
	if err := tp.store.CreateSession(context.Background(), &account.Session{IDHash: hashSecret(id), AccountID: acc.ID, CreatedAt: now, LastSeenAt: now}); err != nil {
		tp.t.Fatalf("CreateSession: %v", err)
	}
	tp.addSecret(id)
	c := tp.client()
	c.setSessionCookie(id)
	return c
}

// mustContain fails unless body holds every one of want.
func mustContain(t *testing.T, what, body string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(body, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, mainOf(body))
		}
	}
}

func mustNotContain(t *testing.T, what, body string, unwanted ...string) {
	t.Helper()
	for _, w := range unwanted {
		if strings.Contains(body, w) {
			t.Errorf("%s holds %q:\n%s", what, w, mainOf(body))
		}
	}
}

// Every logged-in page answers 200 with its navigation entry marked; a
// visitor without a session is sent to log in and back.
func TestPagesNeedLogin(t *testing.T) {
	tp := newTestPortal(t)
	c := tp.session(tp.createAccount("dev@example.com", true))
	anon := tp.client()
	for _, tt := range []struct{ path, nav string }{
		{"/account/", "/account/"},
		{"/account/keys", "/account/keys"},
		{"/account/usage", "/account/usage"},
		{"/account/trial", "/account/trial"},
		{"/account/upgrade", "/account/upgrade"},
	} {
		res := c.get(tt.path)
		if res.status != http.StatusOK {
			t.Errorf("GET %s: %d\n%s", tt.path, res.status, mainOf(res.body))
			continue
		}
		mustContain(t, tt.path, res.body, `<a href="`+tt.nav+`" aria-current="page">`)
		if tt.path == "/account/upgrade" {
			continue // public
		}
		res = anon.get(tt.path)
		if want := "/account/login?next=" + url.QueryEscape(tt.path); res.status != http.StatusSeeOther || res.location != want {
			t.Errorf("logged out GET %s: %d %q, want 303 %q", tt.path, res.status, res.location, want)
		}
	}
}

func TestDashboard(t *testing.T) {
	tp := newTestPortal(t)
	acc := tp.createAccount("dev@example.com", false)
	c := tp.session(acc)
	ctx := context.Background()

	res := c.get("/account/")
	mustContain(t, "unverified dashboard", res.body,
		"dev@example.com", "Verify your email to create keys",
		`action="/account/verify/resend"`, `name="email" value="dev@example.com"`,
		"Free", "<td class=\"num\">100</td>", "<td class=\"num\">1,000</td>",
		"Not started", "0 of at most 10 active keys")

	// Two requests taken from the account's pool show as this hour's use.
	lim := acc.Limits()
	for range 2 {
		if _, err := tp.p.deps.Limiter.Take(ctx, account.PoolName(acc.ID), lim, tp.clock.Now()); err != nil {
			t.Fatal(err)
		}
	}
	acc.VerifiedAt = tp.clock.Now()
	acc.TrialStartedAt = tp.clock.Now()
	if err := tp.store.UpdateAccount(ctx, acc); err != nil {
		t.Fatal(err)
	}
	if err := tp.store.CreateKey(ctx, &account.Key{AccountID: acc.ID, Hash: "h1", Prefix: "pk_live_abcd", CreatedAt: tp.clock.Now()}); err != nil {
		t.Fatal(err)
	}
	res = c.get("/account/")
	mustContain(t, "dashboard", res.body,
		`<tr><th scope="row">This hour</th><td class="num">2</td><td class="num">100</td><td class="num">98</td>`,
		"active until 2026-03-09 10:15 UTC", "1 of at most 10 active keys", `<a href="/account/keys">`)
	mustNotContain(t, "verified dashboard", res.body, "Verify your email")

	tp.clock.Advance(account.TrialLength)
	c = tp.session(acc) // the first one expired meanwhile
	res = c.get("/account/")
	mustContain(t, "dashboard after the trial", res.body, "Your trial ended 2026-03-09 10:15 UTC", `href="/account/upgrade"`)

	acc.Plan = account.Ultra
	if err := tp.store.UpdateAccount(ctx, acc); err != nil {
		t.Fatal(err)
	}
	res = c.get("/account/")
	mustContain(t, "Ultra dashboard", res.body, "Ultra", "Your plan includes the paid endpoints", "<td class=\"num\">7,000</td>")
}

// Without a limiter the dashboard still shows the limits and says the
// live use is not tracked.
func TestDashboardWithoutLimiter(t *testing.T) {
	tp := newTestPortal(t)
	tp.p.deps.Limiter = nil
	c := tp.session(tp.createAccount("dev@example.com", true))
	res := c.get("/account/")
	if res.status != http.StatusOK {
		t.Fatalf("status %d", res.status)
	}
	mustContain(t, "dashboard", res.body, "<strong>100</strong> requests per hour", "does not track use live")
}

var keyPattern = regexp.MustCompile(`pk_(live|test)_[A-Za-z0-9]{32}`)

func TestKeys(t *testing.T) {
	tp := newTestPortal(t)
	acc := tp.createAccount("dev@example.com", true)
	c := tp.session(acc)
	ctx := context.Background()

	res := c.post("/account/keys", url.Values{"name": {"  <script>alert(1)</script>  "}, "kind": {"test"}})
	if res.status != http.StatusOK {
		t.Fatalf("create: %d\n%s", res.status, mainOf(res.body))
	}
	full := keyPattern.FindString(res.body)
	if !strings.HasPrefix(full, "pk_test_") {
		t.Fatalf("the answer shows no new test key:\n%s", mainOf(res.body))
	}
	tp.addSecret(full)
	mustContain(t, "create answer", res.body, "it will not be shown again", `data-copy="new-key-value"`,
		"&lt;script&gt;alert(1)&lt;/script&gt;")
	mustNotContain(t, "create answer", res.body, "<script>alert(1)</script>")
	if got := tp.keys.count(); got != 1 {
		t.Errorf("%d key refreshes after a create, want 1", got)
	}

	keys, err := tp.store.Keys(ctx, acc.ID)
	if err != nil || len(keys) != 1 {
		t.Fatalf("Keys: %v %v", keys, err)
	}
	k := keys[0]
	if k.Hash != account.HashKey(full) || k.Prefix != full[:12] || !k.Test || k.Name != "<script>alert(1)</script>" {
		t.Errorf("stored key %+v does not match the key shown", k)
	}

	// Shown once: the list has its prefix only, and "never" used.
	res = c.get("/account/keys")
	mustContain(t, "keys list", res.body, "<code>"+k.Prefix+"…</code>", "&lt;script&gt;alert(1)&lt;/script&gt;", "never",
		"Active keys (1 of at most 10)")
	mustNotContain(t, "keys list", res.body, full, "<script>alert(1)</script>", "will not be shown again")

	used := tp.clock.Now().Add(time.Minute)
	if err := tp.store.MarkKeysUsed(ctx, []account.KeyUse{{KeyID: k.ID, At: used}}); err != nil {
		t.Fatal(err)
	}
	res = c.get("/account/keys")
	mustContain(t, "keys list after use", res.body, "2026-03-02 10:16 UTC")
}

func TestCreateKeyRefusals(t *testing.T) {
	tp := newTestPortal(t)
	verified := tp.session(tp.createAccount("dev@example.com", true))
	unverified := tp.session(tp.createAccount("new@example.com", false))
	tests := []struct {
		name string
		c    *client
		form url.Values
		want string
	}{
		{"unverified", unverified, url.Values{"name": {"laptop"}, "kind": {"live"}}, "Verify your email"},
		{"empty name", verified, url.Values{"name": {"   "}, "kind": {"live"}}, "1 to 64 characters"},
		{"long name", verified, url.Values{"name": {strings.Repeat("é", 65)}, "kind": {"live"}}, "1 to 64 characters"},
		{"bad kind", verified, url.Values{"name": {"laptop"}, "kind": {"prod"}}, "live or test"},
		{"right-to-left override", verified, url.Values{"name": {"prod\u202e1yek"}, "kind": {"live"}}, msgBidiInKeyName},
		{"left-to-right override", verified, url.Values{"name": {"\u202dlaptop"}, "kind": {"live"}}, msgBidiInKeyName},
		{"embedding", verified, url.Values{"name": {"laptop\u202b"}, "kind": {"live"}}, msgBidiInKeyName},
		{"pop", verified, url.Values{"name": {"lap\u202ctop"}, "kind": {"live"}}, msgBidiInKeyName},
		{"isolate", verified, url.Values{"name": {"\u2067laptop\u2069"}, "kind": {"live"}}, msgBidiInKeyName},
		{"mark", verified, url.Values{"name": {"laptop\u200f"}, "kind": {"live"}}, msgBidiInKeyName},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := tt.c.post("/account/keys", tt.form)
			if res.status != http.StatusBadRequest {
				t.Errorf("status %d, want 400", res.status)
			}
			mustContain(t, "answer", res.body, tt.want)
			if keyPattern.MatchString(res.body) {
				t.Errorf("a refused create shows a key")
			}
		})
	}
	// 64 characters, not bytes.
	if res := verified.post("/account/keys", url.Values{"name": {strings.Repeat("é", 64)}, "kind": {"live"}}); res.status != http.StatusOK {
		t.Errorf("a 64-character name: %d", res.status)
	}
	if n, err := tp.store.Keys(context.Background(), 0); err != nil || len(n) != 1 {
		t.Errorf("keys in the store: %d %v, want 1", len(n), err)
	}
}

// An account holds at most 10 active keys; revoking one makes room.
func TestEleventhKeyRefused(t *testing.T) {
	tp := newTestPortal(t)
	acc := tp.createAccount("dev@example.com", true)
	c := tp.session(acc)
	for i := range account.MaxActiveKeys {
		if res := c.post("/account/keys", url.Values{"name": {"key " + string(rune('a'+i))}, "kind": {"live"}}); res.status != http.StatusOK {
			t.Fatalf("key %d: %d\n%s", i+1, res.status, mainOf(res.body))
		}
	}
	res := c.get("/account/keys")
	mustContain(t, "full list", res.body, "the most an account may hold")
	res = c.post("/account/keys", url.Values{"name": {"one more"}, "kind": {"live"}})
	if res.status != http.StatusBadRequest {
		t.Fatalf("11th key: %d", res.status)
	}
	mustContain(t, "11th key", res.body, "at most 10 active keys; revoke one first")

	keys, _ := tp.store.Keys(context.Background(), acc.ID)
	if res := c.post("/account/keys/"+itoa(keys[0].ID)+"/revoke", nil); res.status != http.StatusSeeOther {
		t.Fatalf("revoke: %d", res.status)
	}
	if res := c.post("/account/keys", url.Values{"name": {"one more"}, "kind": {"live"}}); res.status != http.StatusOK {
		t.Errorf("a key after revoking one: %d\n%s", res.status, mainOf(res.body))
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func TestRevokeKey(t *testing.T) {
	tp := newTestPortal(t)
	ctx := context.Background()
	owner := tp.createAccount("owner@example.com", true)
	other := tp.createAccount("other@example.com", true)
	c := tp.session(owner)
	k := &account.Key{AccountID: owner.ID, Hash: "h1", Prefix: "pk_live_abcd", Name: "laptop", CreatedAt: tp.clock.Now()}
	if err := tp.store.CreateKey(ctx, k); err != nil {
		t.Fatal(err)
	}

	// Someone else's key, or none, is a 404 and changes nothing.
	for _, id := range []string{itoa(k.ID), "999", "x"} {
		if res := tp.session(other).post("/account/keys/"+id+"/revoke", nil); res.status != http.StatusNotFound {
			t.Errorf("revoke %s by another account: %d, want 404", id, res.status)
		}
	}
	if keys, _ := tp.store.Keys(ctx, owner.ID); !keys[0].RevokedAt.IsZero() {
		t.Fatal("another account revoked the key")
	}

	tp.clock.Advance(time.Hour)
	res := c.post("/account/keys/"+itoa(k.ID)+"/revoke", nil)
	if want := "/account/keys?revoked=" + itoa(k.ID); res.status != http.StatusSeeOther || res.location != want {
		t.Fatalf("revoke: %d %q, want 303 %q", res.status, res.location, want)
	}
	keys, _ := tp.store.Keys(ctx, owner.ID)
	if !keys[0].RevokedAt.Equal(tp.clock.Now()) {
		t.Errorf("RevokedAt %v, want %v", keys[0].RevokedAt, tp.clock.Now())
	}
	if got := tp.keys.count(); got != 1 {
		t.Errorf("%d key refreshes after a revoke, want 1", got)
	}
	res = c.get(res.location)
	mustContain(t, "after revoke", res.body, "Key pk_live_abcd… was revoked", "Revoked keys (1)", "2026-03-02 11:15 UTC",
		"Active keys (0 of at most 10)")
}

func TestTrial(t *testing.T) {
	tp := newTestPortal(t)
	acc := tp.createAccount("dev@example.com", true)
	c := tp.session(acc)

	res := c.get("/account/trial")
	mustContain(t, "trial page", res.body, "Not started", `<form method="post" action="/account/trial">`,
		"GET /{game}/prices/{set}", "GET /{game}/sets/{set}/statistics", "GET /{game}/sets/{set}/completion-value",
		"GET /{game}/sets/trending", "GET /{game}/analytics/top-cards")

	res = c.post("/account/trial", nil)
	if res.status != http.StatusSeeOther || res.location != "/account/trial?started=1" {
		t.Fatalf("start: %d %q\n%s", res.status, res.location, mainOf(res.body))
	}
	got := tp.accountByEmail("dev@example.com")
	if !got.TrialStartedAt.Equal(testStart) || got.PaidAccess(tp.clock.Now()) != account.Allowed {
		t.Fatalf("after start: TrialStartedAt %v", got.TrialStartedAt)
	}
	if n := tp.keys.count(); n != 1 {
		t.Errorf("%d key refreshes after the start, want 1", n)
	}
	res = c.get(res.location)
	mustContain(t, "started trial", res.body, "Your trial has started", "active until 2026-03-09 10:15 UTC")
	mustNotContain(t, "started trial", res.body, `action="/account/trial"`)

	// Once ever: a second start, now or after the end, changes nothing.
	for _, d := range []time.Duration{time.Hour, account.TrialLength} {
		tp.clock.Advance(d)
		c = tp.session(acc) // a week outlives a session
		res = c.post("/account/trial", nil)
		if res.status != http.StatusConflict {
			t.Errorf("second start: %d, want 409", res.status)
		}
		mustContain(t, "second start", res.body, "already used its trial")
		if got := tp.accountByEmail("dev@example.com"); !got.TrialStartedAt.Equal(testStart) {
			t.Errorf("second start moved TrialStartedAt to %v", got.TrialStartedAt)
		}
	}
	res = c.get("/account/trial")
	mustContain(t, "ended trial", res.body, "ended 2026-03-09 10:15 UTC", `href="/account/upgrade"`)
	mustNotContain(t, "ended trial", res.body, `action="/account/trial"`)
}

// A plan with the paid endpoints has no trial to start.
func TestTrialIncludedInPlan(t *testing.T) {
	tp := newTestPortal(t)
	acc := tp.createAccount("dev@example.com", true)
	acc.Plan = account.Business
	if err := tp.store.UpdateAccount(context.Background(), acc); err != nil {
		t.Fatal(err)
	}
	c := tp.session(acc)
	mustContain(t, "trial page", c.get("/account/trial").body, "already includes the paid endpoints")
	if res := c.post("/account/trial", nil); res.status != http.StatusConflict {
		t.Errorf("start: %d, want 409", res.status)
	}
	if got := tp.accountByEmail("dev@example.com"); !got.TrialStartedAt.IsZero() {
		t.Errorf("a Business account's trial started")
	}
}
