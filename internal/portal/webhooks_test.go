package portal

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/webhooks"
)

// hookReceiver is a real HTTPS endpoint that keeps each delivery.
type hookReceiver struct {
	srv    *httptest.Server
	mu     sync.Mutex
	got    []hookDelivery
	status int // the answer's status; 200 when 0
}

type hookDelivery struct {
	header string
	body   []byte
}

func newHookReceiver(t *testing.T) *hookReceiver {
	h := &hookReceiver{}
	h.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		defer h.mu.Unlock()
		h.got = append(h.got, hookDelivery{r.Header.Get(webhooks.SignatureHeader), body})
		if h.status != 0 {
			w.WriteHeader(h.status)
		}
		io.WriteString(w, `{"received":true}`)
	}))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *hookReceiver) deliveries() []hookDelivery {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]hookDelivery(nil), h.got...)
}

// deliver sends every delivery due, as serve's worker does, to the
// receiver's test certificate.
func (tp *testPortal) deliver(h *hookReceiver) int {
	tp.t.Helper()
	w := &webhooks.Worker{Store: tp.store, Log: slog.New(slog.DiscardHandler), Now: tp.clock.Now,
		Client: webhooks.NewClient(webhooks.ClientOptions{AllowPrivate: true, TLS: h.srv.Client().Transport.(*http.Transport).TLSClientConfig})}
	n := 0
	for {
		did, err := w.DeliverOne(context.Background())
		if err != nil {
			tp.t.Fatal(err)
		}
		if !did {
			return n
		}
		n++
	}
}

var secretPattern = regexp.MustCompile(`<code id="new-secret-value">(whsec_[0-9a-f]{64})</code>`)

// shownSecret is the secret a page shows once.
func shownSecret(t *testing.T, body string) string {
	t.Helper()
	m := secretPattern.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no secret shown:\n%s", mainOf(body))
	}
	return m[1]
}

// addWebhook adds url for c's account and returns its id and secret.
func (tp *testPortal) addWebhook(c *client, acc *account.Account, u string) (int64, string) {
	tp.t.Helper()
	res := c.post("/account/webhooks", url.Values{"url": {u}})
	if res.status != http.StatusOK {
		tp.t.Fatalf("add %s: %d\n%s", u, res.status, mainOf(res.body))
	}
	secret := shownSecret(tp.t, res.body)
	tp.addSecret(secret)
	eps, err := tp.store.Endpoints(context.Background(), acc.ID)
	if err != nil {
		tp.t.Fatal(err)
	}
	return eps[len(eps)-1].ID, secret
}

func TestWebhooksPage(t *testing.T) {
	tp := newTestPortalWith(t, portalOptions{alerts: true})
	acc := tp.createAccount("dev@example.com", true)
	c := tp.session(acc)

	// Free: no webhook.
	res := c.get("/account/webhooks")
	mustContain(t, "Free webhooks page", res.body, `<a href="/account/webhooks" aria-current="page">Webhooks</a>`,
		"Your webhooks (0 of at most 0)", "The Free plan has no webhooks")
	res = c.post("/account/webhooks", url.Values{"url": {"https://example.com/hook"}})
	if res.status != http.StatusBadRequest {
		t.Fatalf("a Free plan's webhook: %d", res.status)
	}
	mustContain(t, "Free plan's webhook", res.body, "The Free plan has no webhooks; see the plans")

	tp.setPlan(acc, account.Pro)
	for _, tt := range []struct{ url, want string }{
		{"", "Give the URL the events are sent to"},
		{"http://example.com/hook", "&#34;http://example.com/hook&#34; is not https: webhooks are sent over https only."},
		{"ftp://example.com/", "is not an https URL"},
		{"example.com/hook", "is not an absolute URL"},
		{"https://user:pw@example.com/", "holds user information"},
		{"https://example.com/#frag", "holds a fragment"},
		{"https://example.com/" + strings.Repeat("a", 3000), "longer than 2048 characters"},
	} {
		res := c.post("/account/webhooks", url.Values{"url": {tt.url}})
		if res.status != http.StatusBadRequest {
			t.Errorf("URL %.40q: %d, want 400", tt.url, res.status)
			continue
		}
		mustContain(t, "URL "+tt.url[:min(len(tt.url), 40)], res.body, tt.want)
	}

	id, secret := tp.addWebhook(c, acc, "https://example.com/hook")
	res = c.get("/account/webhooks")
	mustContain(t, "webhooks page", res.body, "Your webhooks (1 of at most 3)",
		`<a href="/account/webhooks/`+strconv.FormatInt(id, 10)+`">https://example.com/hook</a>`, "<code>"+secret[:10]+"…</code>")
	mustNotContain(t, "webhooks page after the secret was shown", res.body, secret)

	// Pro keeps 3.
	tp.addWebhook(c, acc, "https://example.com/2")
	tp.addWebhook(c, acc, "https://example.com/3")
	mustContain(t, "full webhooks page", c.get("/account/webhooks").body, "You have 3 webhooks, the most the Pro plan keeps")
	res = c.post("/account/webhooks", url.Values{"url": {"https://example.com/4"}})
	if res.status != http.StatusBadRequest {
		t.Fatalf("a fourth webhook: %d", res.status)
	}
	mustContain(t, "a fourth webhook", res.body, "You have 3 webhooks, the most the Pro plan keeps: delete one first.")
}

// The journey of a webhook: a test event, delivered and signed; the log
// with each attempt; a resend; a rotation with its overlap; delete.
func TestWebhookTestEventLogResendRotate(t *testing.T) {
	tp := newTestPortalWith(t, portalOptions{alerts: true})
	card, _ := tp.loadCatalogue()
	acc := tp.createAccount("dev@example.com", true)
	tp.setPlan(acc, account.Pro)
	c := tp.session(acc)
	recv := newHookReceiver(t)
	id, secret := tp.addWebhook(c, acc, recv.srv.URL+"/hook")
	page := "/account/webhooks/" + strconv.FormatInt(id, 10)
	if res := c.post("/account/alerts", alertValues(card, "tcg", "Normal", "above", "2", strconv.FormatInt(id, 10))); res.status != http.StatusSeeOther {
		t.Fatalf("alert: %d\n%s", res.status, mainOf(res.body))
	}

	res := c.get(page)
	mustContain(t, "webhook page", res.body, "No delivery yet.", `action="`+page+`/test"`, `action="`+page+`/rotate"`, `action="`+page+`/delete"`,
		"1 send to it")

	// A test event, the receiver answering 500 first.
	recv.mu.Lock()
	recv.status = http.StatusInternalServerError
	recv.mu.Unlock()
	res = c.post(page+"/test", nil)
	if res.status != http.StatusSeeOther || res.location != page+"?done=test" {
		t.Fatalf("test: %d %q", res.status, res.location)
	}
	if n := tp.deliver(recv); n != 1 {
		t.Fatalf("%d attempts", n)
	}
	got := recv.deliveries()
	if len(got) != 1 {
		t.Fatalf("%d deliveries", len(got))
	}
	if err := webhooks.Verify(secret, got[0].header, got[0].body, 0, tp.clock.Now()); err != nil {
		t.Fatalf("the test event's signature: %v", err)
	}
	for _, want := range []string{`"type":"price.alert"`, `"test":true`, `"card_id":"` + card + `"`, `"rule":"above","threshold":2`} {
		if !strings.Contains(string(got[0].body), want) {
			t.Errorf("test event %s lacks %s", got[0].body, want)
		}
	}
	res = c.get(res.location)
	mustContain(t, "log after a failed attempt", res.body, "Test event queued", `<span class="tag">test</span>`, "state-pending", "1 attempt, the next at",
		`<td class="num">500</td>`, `<pre class="excerpt">{&#34;received&#34;:true}</pre>`)
	log, err := tp.store.DeliveryLog(context.Background(), acc.ID, id, 0, 10)
	if err != nil || len(log) != 1 {
		t.Fatalf("DeliveryLog: %+v, %v", log, err)
	}
	resend := page + "/deliveries/" + strconv.FormatInt(log[0].ID, 10) + "/resend"
	mustContain(t, "log", res.body, `action="`+resend+`"`)

	// Resend: sent at once, not after the backoff.
	recv.mu.Lock()
	recv.status = 0
	recv.mu.Unlock()
	res = c.post(resend, nil)
	if res.status != http.StatusSeeOther || res.location != page+"?done=resent" {
		t.Fatalf("resend: %d %q", res.status, res.location)
	}
	if n := tp.deliver(recv); n != 1 {
		t.Fatalf("after the resend: %d attempts", n)
	}
	res = c.get(page)
	mustContain(t, "log after the resend", res.body, "state-delivered", "2 attempts", ", resent ", `<td class="num">500</td>`, `<td class="num">200</td>`)

	// Another account's delivery, endpoint, or none at all: 404.
	stranger := tp.createAccount("snoop@example.com", true)
	tp.setPlan(stranger, account.Pro)
	sc := tp.session(stranger)
	for _, p := range []string{page, page + "/test", resend, page + "/rotate", page + "/delete", "/account/webhooks/x", "/account/webhooks/99999",
		page + "/deliveries/x/resend", page + "/deliveries/99999/resend"} {
		var r response
		if strings.HasSuffix(p, "/test") || strings.HasSuffix(p, "/resend") || strings.HasSuffix(p, "/rotate") || strings.HasSuffix(p, "/delete") {
			r = sc.post(p, url.Values{"overlap": {"24h"}})
		} else {
			r = sc.get(p)
		}
		if r.status != http.StatusNotFound {
			t.Errorf("another account's %s: %d, want 404", p, r.status)
		}
	}
	if r := c.get(page + "?before=abc"); r.status != http.StatusBadRequest {
		t.Errorf("?before=abc: %d, want 400", r.status)
	}
	if n := len(recv.deliveries()); n != 2 {
		t.Fatalf("%d deliveries after the stranger's tries, want 2", n)
	}

	// A delivery being sent cannot be resent meanwhile.
	if res := c.post(resend, nil); res.status != http.StatusSeeOther {
		t.Fatalf("resend: %d", res.status)
	}
	if _, err := tp.store.ClaimDelivery(context.Background(), tp.clock.Now(), time.Minute); err != nil {
		t.Fatal(err)
	}
	res = c.post(resend, nil)
	if res.status != http.StatusConflict {
		t.Fatalf("resending a delivery in flight: %d, want 409", res.status)
	}
	mustContain(t, "resend in flight", res.body, "That delivery is being sent right now")
	tp.clock.Advance(2 * time.Minute) // the lease runs out
	tp.deliver(recv)

	// Rotation: a bad overlap is refused; then a new secret, shown once, and
	// both signing for an hour.
	res = c.post(page+"/rotate", url.Values{"overlap": {"5y"}})
	if res.status != http.StatusBadRequest {
		t.Fatalf("overlap 5y: %d", res.status)
	}
	mustContain(t, "overlap 5y", res.body, "Choose how long the old secret keeps signing")
	res = c.post(page+"/rotate", url.Values{"overlap": {"1h"}})
	if res.status != http.StatusOK {
		t.Fatalf("rotate: %d\n%s", res.status, mainOf(res.body))
	}
	fresh := shownSecret(t, res.body)
	tp.addSecret(fresh)
	if fresh == secret {
		t.Fatal("the rotation kept the secret")
	}
	until := tp.clock.Now().Add(time.Hour).Format("2006-01-02 15:04:05 UTC")
	mustContain(t, "rotated", res.body, "each delivery carries two <code>v1</code> signatures", "Until "+until)
	before := len(recv.deliveries())
	c.post(page+"/test", nil)
	tp.deliver(recv)
	got = recv.deliveries()[before:]
	if len(got) != 1 || strings.Count(got[0].header, "v1=") != 2 {
		t.Fatalf("a delivery during the overlap: %+v", got)
	}
	for _, s := range []string{secret, fresh} {
		if err := webhooks.Verify(s, got[0].header, got[0].body, 0, tp.clock.Now()); err != nil {
			t.Errorf("during the overlap: %v", err)
		}
	}
	mustContain(t, "webhooks page in the overlap", c.get("/account/webhooks").body, "the previous one also signs until "+until)
	tp.clock.Advance(61 * time.Minute)
	c.post(page+"/test", nil)
	tp.deliver(recv)
	got = recv.deliveries()
	last := got[len(got)-1]
	if len(got) != before+2 || strings.Count(last.header, "v1=") != 1 || webhooks.Verify(fresh, last.header, last.body, 0, tp.clock.Now()) != nil {
		t.Fatalf("after the overlap: %q", last.header)
	}
	mustNotContain(t, "webhooks page after the overlap", c.get("/account/webhooks").body, "the previous one also signs")

	// Delete: the page is gone, the alert sends nowhere.
	res = c.post(page+"/delete", nil)
	if res.status != http.StatusSeeOther || res.location != "/account/webhooks?done=deleted" {
		t.Fatalf("delete: %d %q", res.status, res.location)
	}
	if res := c.get(page); res.status != http.StatusNotFound {
		t.Fatalf("a deleted webhook's page: %d", res.status)
	}
	if as := tp.alertsOf(acc); len(as) != 1 || as[0].WebhookID != 0 {
		t.Fatalf("the alert of a deleted webhook: %+v", as)
	}
}

// The log shows 25 deliveries a page, newest first, and links the older.
func TestWebhookLogPages(t *testing.T) {
	tp := newTestPortalWith(t, portalOptions{alerts: true})
	acc := tp.createAccount("dev@example.com", true)
	tp.setPlan(acc, account.Pro)
	c := tp.session(acc)
	recv := newHookReceiver(t)
	id, _ := tp.addWebhook(c, acc, recv.srv.URL)
	page := "/account/webhooks/" + strconv.FormatInt(id, 10)
	for range logPage + 2 {
		if res := c.post(page+"/test", nil); res.status != http.StatusSeeOther {
			t.Fatalf("test: %d", res.status)
		}
		tp.clock.Advance(10 * time.Minute) // within the test events' throttle
	}
	res := c.get(page)
	if n := strings.Count(res.body, `<article class="card delivery"`); n != logPage {
		t.Fatalf("the first page shows %d deliveries, want %d", n, logPage)
	}
	m := regexp.MustCompile(`href="(` + regexp.QuoteMeta(page) + `\?before=\d+)#log">Older deliveries`).FindStringSubmatch(res.body)
	if m == nil {
		t.Fatalf("no link to older deliveries:\n%s", mainOf(res.body))
	}
	res = c.get(m[1])
	if n := strings.Count(res.body, `<article class="card delivery"`); n != 2 {
		t.Fatalf("the second page shows %d deliveries, want 2", n)
	}
	mustContain(t, "second page", res.body, "(older deliveries)", `href="`+page+`#log">Newest deliveries`)
	mustNotContain(t, "second page", res.body, "Older deliveries</a>")
}

// http:// endpoints only where the operator allows them.
func TestWebhooksAllowHTTP(t *testing.T) {
	tp := newTestPortalWith(t, portalOptions{alerts: true, alertsHTTP: true})
	acc := tp.createAccount("dev@example.com", true)
	tp.setPlan(acc, account.Ultra)
	c := tp.session(acc)
	mustContain(t, "webhooks page", c.get("/account/webhooks").body, "on this server, http://", "Your webhooks (0 of at most 10)")
	tp.addWebhook(c, acc, "http://127.0.0.1:9/hook")
}

// Test events are throttled per endpoint and per account: a refusal is a
// 429 on the webhook's page that says when to try again, and queues
// nothing; the next hour has room again.
func TestWebhookTestEventThrottle(t *testing.T) {
	tp := newTestPortalWith(t, portalOptions{alerts: true})
	acc := tp.createAccount("dev@example.com", true)
	tp.setPlan(acc, account.Ultra)
	c := tp.session(acc)
	recv := newHookReceiver(t)
	var pages []string
	for i := range 4 {
		id, _ := tp.addWebhook(c, acc, recv.srv.URL+"/hook"+strconv.Itoa(i))
		pages = append(pages, "/account/webhooks/"+strconv.FormatInt(id, 10))
	}
	queued := func(page string) int {
		t.Helper()
		id, _ := strconv.ParseInt(strings.TrimPrefix(page, "/account/webhooks/"), 10, 64)
		log, err := tp.store.DeliveryLog(context.Background(), acc.ID, id, 0, 100)
		if err != nil {
			t.Fatal(err)
		}
		return len(log)
	}
	refused := func(page, want string) {
		t.Helper()
		res := c.post(page+"/test", nil)
		if res.status != http.StatusTooManyRequests || res.header.Get("Retry-After") != "2700" {
			t.Fatalf("%s/test over the limit: %d, Retry-After %q, want 429 and 2700", page, res.status, res.header.Get("Retry-After"))
		}
		mustContain(t, "a refused test event", res.body, want+"; try again in 45 minutes.", `action="`+page+`/test"`)
	}
	for range testEventByEndpoint.limits.Hour {
		if res := c.post(pages[0]+"/test", nil); res.status != http.StatusSeeOther {
			t.Fatalf("test: %d\n%s", res.status, mainOf(res.body))
		}
	}
	refused(pages[0], "Too many test events sent to this webhook")
	if n := queued(pages[0]); n != int(testEventByEndpoint.limits.Hour) {
		t.Fatalf("%d test events queued, want %d: a refused one is not", n, testEventByEndpoint.limits.Hour)
	}
	// The other endpoints have room of their own, until the account's is
	// used up.
	for _, page := range pages[1:3] {
		for range testEventByEndpoint.limits.Hour {
			if res := c.post(page+"/test", nil); res.status != http.StatusSeeOther {
				t.Fatalf("test: %d\n%s", res.status, mainOf(res.body))
			}
		}
	}
	refused(pages[3], "Too many test events sent from this account")
	if n := queued(pages[3]); n != 0 {
		t.Fatalf("%d test events queued past the account's limit", n)
	}
	tp.clock.Advance(45 * time.Minute)
	if res := c.post(pages[0]+"/test", nil); res.status != http.StatusSeeOther {
		t.Fatalf("a test event in the next hour: %d", res.status)
	}
}

// A delivery is resent from its own endpoint's page only: through another
// endpoint of the same account it is a 404, like another account's.
func TestWebhookResendOtherEndpoint(t *testing.T) {
	tp := newTestPortalWith(t, portalOptions{alerts: true})
	acc := tp.createAccount("dev@example.com", true)
	tp.setPlan(acc, account.Pro)
	c := tp.session(acc)
	recv := newHookReceiver(t)
	a, _ := tp.addWebhook(c, acc, recv.srv.URL+"/a")
	b, _ := tp.addWebhook(c, acc, recv.srv.URL+"/b")
	pageA, pageB := "/account/webhooks/"+strconv.FormatInt(a, 10), "/account/webhooks/"+strconv.FormatInt(b, 10)
	if res := c.post(pageA+"/test", nil); res.status != http.StatusSeeOther {
		t.Fatalf("test: %d", res.status)
	}
	tp.deliver(recv)
	log, err := tp.store.DeliveryLog(context.Background(), acc.ID, a, 0, 10)
	if err != nil || len(log) != 1 {
		t.Fatalf("DeliveryLog: %+v, %v", log, err)
	}
	delivery := "/deliveries/" + strconv.FormatInt(log[0].ID, 10) + "/resend"
	if res := c.post(pageB+delivery, nil); res.status != http.StatusNotFound {
		t.Fatalf("resending A's delivery from B's page: %d, want 404", res.status)
	}
	if n := tp.deliver(recv); n != 0 {
		t.Fatalf("%d sent after a refused resend", n)
	}
	if res := c.post(pageA+delivery, nil); res.status != http.StatusSeeOther {
		t.Fatalf("resending from its own page: %d", res.status)
	}
	if n := tp.deliver(recv); n != 1 {
		t.Fatalf("%d sent after the resend, want 1", n)
	}
}

// Deleting the account deletes its alerts, webhooks and the deliveries not
// yet sent: nothing more is sent to its endpoints.
func TestDeleteAccountDeletesAlertsAndWebhooks(t *testing.T) {
	tp := newTestPortalWith(t, portalOptions{alerts: true})
	card, _ := tp.loadCatalogue()
	acc := tp.createAccount("dev@example.com", true)
	tp.setPlan(acc, account.Pro)
	c := tp.session(acc)
	recv := newHookReceiver(t)
	id, _ := tp.addWebhook(c, acc, recv.srv.URL+"/hook")
	if res := c.post("/account/alerts", alertValues(card, "tcg", "Normal", "above", "2", strconv.FormatInt(id, 10))); res.status != http.StatusSeeOther {
		t.Fatalf("alert: %d\n%s", res.status, mainOf(res.body))
	}
	if res := c.post("/account/webhooks/"+strconv.FormatInt(id, 10)+"/test", nil); res.status != http.StatusSeeOther {
		t.Fatalf("test: %d", res.status)
	}
	mustContain(t, "settings page", c.get("/account/settings").body, "your price alerts and webhooks are deleted")
	if res := c.post("/account/settings/delete", url.Values{"password": {testPassword}}); res.status != http.StatusSeeOther {
		t.Fatalf("delete: %d\n%s", res.status, mainOf(res.body))
	}
	if as := tp.alertsOf(acc); len(as) != 0 {
		t.Errorf("a deleted account's alerts: %+v", as)
	}
	if eps, err := tp.store.Endpoints(context.Background(), acc.ID); err != nil || len(eps) != 0 {
		t.Errorf("a deleted account's webhooks: %+v, %v", eps, err)
	}
	if n := tp.deliver(recv); n != 0 || len(recv.deliveries()) != 0 {
		t.Errorf("%d sent to a deleted account's webhook", n)
	}
}
