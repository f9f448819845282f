package portal

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/alerts"
	"github.com/cardcat/cardcat/internal/catalog"
)

// emailToken fires a (its email queued) and claims that email from the
// queue, whose Token is a's unsubscribe token, as the worker would put it
// in the email; it is recorded as a secret, never to be logged.
func (tp *testPortal) emailToken(a alerts.Alert, version int64) string {
	tp.t.Helper()
	ctx := context.Background()
	e := alerts.NewTestEvent(a.AccountID, 0, &a, version, time.Now())
	e.ID, e.Test = alerts.EventID(a.ID, version), false
	rec, err := tp.store.RecordEvaluations(ctx, version, []alerts.Evaluation{{AlertID: a.ID, Price: catalog.Cents(300), Event: e, Email: true}}, 0)
	if err != nil || rec.Emailed != 1 {
		tp.t.Fatalf("RecordEvaluations = %+v, %v", rec, err)
	}
	m, err := tp.store.ClaimEmail(ctx, time.Now(), time.Minute)
	if err != nil || m.AlertID != a.ID || !alerts.ValidEmailToken(m.Token) {
		tp.t.Fatalf("ClaimEmail = %+v, %v", m, err)
	}
	if err := tp.store.FinishEmail(ctx, m, alerts.EmailSent, time.Now(), time.Time{}, ""); err != nil {
		tp.t.Fatal(err)
	}
	tp.addSecret(m.Token)
	return m.Token
}

// The alert form's "Email me": set on create and edit, shown in the list,
// refused (and disabled) for an address not verified yet.
func TestAlertsEmailOption(t *testing.T) {
	tp := newTestPortalWith(t, portalOptions{alerts: true})
	tp.p.deps.Alerts.EmailsPerHour = 20
	card, _ := tp.loadCatalogue()
	acc := tp.createAccount("dev@example.com", true)
	c := tp.session(acc)
	mustContain(t, "alerts page", c.get("/account/alerts").body, `<input type="checkbox" id="alert-email" name="email" value="1"> Email me when it fires`,
		"To dev@example.com: the card, the rule, the old and new price.", "Your account gets at most 20 alert emails an hour.")

	form := alertValues(card, "tcg", "Normal", "above", "2", "0")
	form.Set("email", "1")
	if res := c.post("/account/alerts", form); res.status != http.StatusSeeOther {
		t.Fatalf("create with email: %d\n%s", res.status, mainOf(res.body))
	}
	a := tp.alertsOf(acc)[0]
	if !a.Email {
		t.Fatalf("created without its email: %+v", a)
	}
	mustContain(t, "alerts page", c.get("/account/alerts").body, "<td>your email</td>")
	path := "/account/alerts/" + strconv.FormatInt(a.ID, 10)
	mustContain(t, "edit page", c.get(path).body, `name="email" value="1" checked>`)
	// Edited without the box: off; with it: on again, the same token.
	token := tp.emailToken(a, 1)
	if res := c.post(path, alertValues(card, "tcg", "Normal", "above", "3", "0")); res.status != http.StatusSeeOther || tp.alertsOf(acc)[0].Email {
		t.Fatalf("edit without the box: %d, email %v", res.status, tp.alertsOf(acc)[0].Email)
	}
	mustContain(t, "alerts page", c.get("/account/alerts").body, "<td>none</td>")
	form.Set("value", "4")
	if res := c.post(path, form); res.status != http.StatusSeeOther || !tp.alertsOf(acc)[0].Email {
		t.Fatalf("edit with the box: %d", res.status)
	}
	if got, err := tp.store.AlertByEmailToken(context.Background(), token); err != nil || got.ID != a.ID {
		t.Fatalf("the token after the email was turned off and on: %+v, %v", got, err)
	}

	// Not verified: the box is disabled and a forged one refused.
	unverified := tp.createAccount("new@example.com", false)
	u := tp.session(unverified)
	mustContain(t, "unverified alerts page", u.get("/account/alerts").body, `name="email" value="1" disabled>`,
		"Alert emails go to verified addresses only: verify new@example.com first")
	res := u.post("/account/alerts", form)
	if res.status != http.StatusBadRequest {
		t.Fatalf("an unverified account's email alert: %d", res.status)
	}
	mustContain(t, "refused", res.body, "Alert emails go to verified addresses only: verify new@example.com first")
	if as := tp.alertsOf(unverified); len(as) != 0 {
		t.Fatalf("stored %+v", as)
	}
}

// The unsubscribe link: GET shows a page whose buttons POST (it changes
// nothing); RFC 8058's one-click POST, without a session or a same-origin
// header, stops the alert's emails and answers 200; scope=all stops every
// alert's of the account, no other account's; a bad or stale token is a
// 404 page that says what to do, never a 500; the token is never logged.
func TestAlertsUnsubscribe(t *testing.T) {
	tp := newTestPortalWith(t, portalOptions{alerts: true})
	card, _ := tp.loadCatalogue()
	acc := tp.createAccount("dev@example.com", true)
	tp.setPlan(acc, account.Pro)
	stranger := tp.createAccount("other@example.com", true)
	form := alertValues(card, "tcg", "Normal", "above", "2", "0")
	form.Set("email", "1")
	for _, c := range []*client{tp.session(acc), tp.session(acc), tp.session(stranger)} {
		if res := c.post("/account/alerts", form); res.status != http.StatusSeeOther {
			t.Fatalf("create: %d\n%s", res.status, mainOf(res.body))
		}
	}
	mine := tp.alertsOf(acc)
	token := tp.emailToken(mine[0], 1)
	link := alerts.UnsubscribePath + "?token=" + token

	// GET: the page, nothing changed.
	visitor := tp.client()
	res := visitor.get(link)
	if res.status != http.StatusOK {
		t.Fatalf("GET the link: %d\n%s", res.status, mainOf(res.body))
	}
	mustContain(t, "unsubscribe page", res.body, "<h1>Stop alert emails</h1>", "alert "+strconv.FormatInt(mine[0].ID, 10)+": ",
		"<code>"+card+"</code>", "Normal on TCGplayer, at or above 2.00 USD",
		`<form method="post" action="`+alerts.UnsubscribePath+`?token=`+token+`" class="stack">`,
		"Stop the emails of this alert", `<input type="hidden" name="scope" value="all">`, "Stop the emails of all my alerts")
	if !tp.alertsOf(acc)[0].Email {
		t.Fatal("a GET of the link stopped the emails")
	}

	// The one click, as a mail provider sends it: no cookie, no Origin.
	oneClick := func(path string, h http.Header) response {
		t.Helper()
		return tp.client().postWith(path, url.Values{"List-Unsubscribe": {"One-Click"}}, h)
	}
	res = oneClick(link, nil)
	if res.status != http.StatusOK {
		t.Fatalf("one-click POST: %d\n%s", res.status, mainOf(res.body))
	}
	mustContain(t, "after the one click", res.body, "Emails of alert "+strconv.FormatInt(mine[0].ID, 10)+" stopped", "sends you no more emails.",
		"Stop the emails of all my alerts too")
	if got := tp.alertsOf(acc); got[0].Email || !got[1].Email {
		t.Fatalf("after the one click: %+v", got)
	}
	// Again (a provider retrying), and from a webmail's origin: still 200.
	res = oneClick(link, http.Header{"Origin": {"https://mail.example.net"}, "Sec-Fetch-Site": {"cross-site"}})
	if res.status != http.StatusOK {
		t.Fatalf("a second, cross-site one-click POST: %d\n%s", res.status, mainOf(res.body))
	}
	mustContain(t, "again", res.body, "they were off already")
	mustContain(t, "page of a stopped alert", visitor.get(link).body, "Its emails are off already.")

	// All of the account's, through the page's second button.
	res = visitor.post(link, url.Values{"scope": {"all"}})
	if res.status != http.StatusOK {
		t.Fatalf("POST scope=all: %d\n%s", res.status, mainOf(res.body))
	}
	mustContain(t, "all stopped", res.body, "<h1>No alert emails any more</h1>", "(1 stopped)")
	if got := tp.alertsOf(acc); got[0].Email || got[1].Email {
		t.Fatalf("after all: %+v", got)
	}
	if got := tp.alertsOf(stranger); !got[0].Email {
		t.Fatalf("another account's alert was stopped: %+v", got)
	}

	// Bad links: 404 with a page that says what to do; nothing changes.
	for name, path := range map[string]string{
		"no token":       alerts.UnsubscribePath,
		"cut short":      alerts.UnsubscribePath + "?token=" + token[:40],
		"not hex":        alerts.UnsubscribePath + "?token=" + strings.Repeat("z", 64),
		"upper case":     alerts.UnsubscribePath + "?token=" + strings.ToUpper(token),
		"unknown":        alerts.UnsubscribePath + "?token=" + strings.Repeat("0", 64),
		"script":         alerts.UnsubscribePath + "?token=%3Cscript%3E",
		"two tokens":     alerts.UnsubscribePath + "?token=" + strings.Repeat("0", 64) + "&token=" + token,
		"a long garbage": alerts.UnsubscribePath + "?token=" + strings.Repeat("a", 5000),
	} {
		for _, res := range []response{visitor.get(path), oneClick(path, nil)} {
			if res.status != http.StatusNotFound {
				t.Errorf("%s: %d, want 404\n%s", name, res.status, mainOf(res.body))
			}
			mustContain(t, name, res.body, "This unsubscribe link does not work", "No alert has this link")
			mustNotContain(t, name, res.body, "<script>")
		}
	}
	// A deleted alert's link.
	other := tp.emailToken(mine[1], 1)
	if err := tp.store.DeleteAlert(context.Background(), acc.ID, mine[1].ID); err != nil {
		t.Fatal(err)
	}
	for _, res := range []response{visitor.get(alerts.UnsubscribePath + "?token=" + other), oneClick(alerts.UnsubscribePath+"?token="+other, nil)} {
		if res.status != http.StatusNotFound {
			t.Errorf("a deleted alert's link: %d", res.status)
		}
	}
	// Other methods: 405.
	req, _ := http.NewRequest(http.MethodPut, tp.srv.URL+link, nil)
	if res := visitor.do(req); res.status != http.StatusMethodNotAllowed {
		t.Errorf("PUT the link: %d, want 405", res.status)
	}
	// The log says what was stopped, by ids.
	if logs := tp.logs.String(); !strings.Contains(logs, "portal: alert emails stopped") {
		t.Errorf("no log line of the unsubscribe:\n%s", logs)
	}
}
