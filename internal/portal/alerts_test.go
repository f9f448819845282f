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
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/store/storetest"
	"github.com/cardcat/cardcat/internal/webhooks"
)

// loadCatalogue puts a one-game catalogue of two cards in the store and
// serves it; the first card is priced on both marketplaces (TCGplayer
// Normal 1.50 USD, Cardmarket normal 1.25 EUR). It returns the two cards'
// ids.
func (tp *testPortal) loadCatalogue() (priced, other string) {
	tp.t.Helper()
	day := time.Date(2026, 3, 1, 6, 0, 0, 0, time.UTC)
	g := storetest.Generate("dbs", 2, day)
	g.Cards[0].TCGPrices[0].Market = catalog.Cents(150)
	g.Cards[0].CMPrices = []catalog.CMPrice{{Variant: "normal", Trend: catalog.Cents(125), Avg7: catalog.Cents(100), UpdatedAt: day}}
	storetest.MustReplace(tp.t, tp.store, 0, []catalog.GameCatalog{g}, "{}", day)
	snap, err := catalog.NewSnapshot(storetest.MustLoad(tp.t, tp.store), game.Default())
	if err != nil {
		tp.t.Fatal(err)
	}
	tp.snap.Store(snap)
	return g.Cards[0].ID, g.Cards[1].ID
}

// setPlan moves acc to plan.
func (tp *testPortal) setPlan(acc *account.Account, plan account.Plan) {
	tp.t.Helper()
	acc.Plan = plan
	if err := tp.store.UpdateAccount(context.Background(), acc); err != nil {
		tp.t.Fatal(err)
	}
}

func alertValues(card, source, finish, rule, value, webhook string) url.Values {
	return url.Values{"card": {card}, "source": {source}, "finish": {finish}, "rule": {rule}, "value": {value}, "webhook": {webhook}}
}

func (tp *testPortal) alertsOf(acc *account.Account) []alerts.Alert {
	tp.t.Helper()
	as, err := tp.store.Alerts(context.Background(), acc.ID)
	if err != nil {
		tp.t.Fatal(err)
	}
	return as
}

func TestAlertsPage(t *testing.T) {
	tp := newTestPortalWith(t, portalOptions{alerts: true})
	card, _ := tp.loadCatalogue()
	acc := tp.createAccount("dev@example.com", true)
	tp.setPlan(acc, account.Pro)
	c := tp.session(acc)

	res := c.get("/account/alerts")
	if res.status != http.StatusOK {
		t.Fatalf("GET /account/alerts: %d", res.status)
	}
	mustContain(t, "alerts page", res.body, `<a href="/account/alerts" aria-current="page">Alerts</a>`, `<a href="/account/webhooks">Webhooks</a>`,
		"Your alerts (0 of at most 100)", "You have no alert yet.", `<form method="post" action="/account/alerts" class="stack">`,
		"The Pro plan keeps 100 alerts and 3 webhooks", "Add a webhook on the")

	res = c.post("/account/alerts", alertValues(card, "tcg", "Normal", "above", "2.50", "0"))
	if res.status != http.StatusSeeOther || res.location != "/account/alerts?done=created" {
		t.Fatalf("create: %d %q\n%s", res.status, res.location, mainOf(res.body))
	}
	as := tp.alertsOf(acc)
	if len(as) != 1 || as[0].CardID != card || as[0].Rule != (alerts.Rule{Kind: alerts.Above, Cents: 250}) || as[0].Game != "dbs" || as[0].WebhookID != 0 {
		t.Fatalf("alerts stored: %+v", as)
	}
	res = c.get(res.location)
	mustContain(t, "alerts page after create", res.body, "Alert created.", "Your alerts (1 of at most 100)", "<code>"+card+"</code>",
		"TCGplayer", "at or above 2.50 USD", `<td class="num">1.50 USD</td>`, `class="state-armed">armed</span>`, "<td>none</td>",
		`href="/account/alerts/`+strconv.FormatInt(as[0].ID, 10)+`"`)

	// Cardmarket, a move, sent to a webhook of the account's.
	ep := &webhooks.Endpoint{AccountID: acc.ID, URL: "https://example.com/hook", Secret: webhooks.NewSecret()}
	if err := tp.store.CreateEndpoint(context.Background(), ep, 3); err != nil {
		t.Fatal(err)
	}
	res = c.post("/account/alerts", alertValues(card, "cm", "normal", "move", "20%", strconv.FormatInt(ep.ID, 10)))
	if res.status != http.StatusSeeOther {
		t.Fatalf("create a move: %d\n%s", res.status, mainOf(res.body))
	}
	mustContain(t, "alerts page", c.get("/account/alerts").body, "moves 20% or more from its 7-day average", "1.25 EUR",
		`<a href="/account/webhooks/`+strconv.FormatInt(ep.ID, 10)+`">https://example.com/hook</a>`)
}

// Bad input: a 400 with the form as sent and a message that says what to
// fix; nothing is stored.
func TestAlertsBadInput(t *testing.T) {
	tp := newTestPortalWith(t, portalOptions{alerts: true})
	card, other := tp.loadCatalogue()
	acc := tp.createAccount("dev@example.com", true)
	tp.setPlan(acc, account.Pro)
	stranger := tp.createAccount("other@example.com", true)
	tp.setPlan(stranger, account.Pro)
	foreign := &webhooks.Endpoint{AccountID: stranger.ID, URL: "https://example.com/theirs", Secret: webhooks.NewSecret()}
	if err := tp.store.CreateEndpoint(context.Background(), foreign, 3); err != nil {
		t.Fatal(err)
	}
	c := tp.session(acc)
	for _, tt := range []struct {
		name string
		form url.Values
		want string
	}{
		{"no card", alertValues("", "tcg", "Normal", "above", "1", "0"), "Give the card&#39;s id"},
		{"unknown card", alertValues("dbs_00000000000000ff", "tcg", "Normal", "above", "1", "0"), "No card &#34;dbs_00000000000000ff&#34; in the current catalogue"},
		{"malformed card", alertValues("<script>", "tcg", "Normal", "above", "1", "0"), "No card &#34;&lt;script&gt;&#34;"},
		{"a control character", alertValues(card+"\x00", "tcg", "Normal", "above", "1", "0"), "control characters"},
		{"too long", alertValues(strings.Repeat("a", 300), "tcg", "Normal", "above", "1", "0"), "too long"},
		{"marketplace", alertValues(card, "ebay", "Normal", "above", "1", "0"), "Choose the marketplace: TCGplayer or Cardmarket."},
		{"no finish", alertValues(card, "tcg", "", "above", "1", "0"), "Give the finish to watch"},
		{"unknown finish", alertValues(card, "tcg", "Shiny", "above", "1", "0"), "has no TCGplayer finish &#34;Shiny&#34;: it has Normal"},
		{"unknown Cardmarket finish", alertValues(card, "cm", "foil", "above", "1", "0"), "has no Cardmarket finish &#34;foil&#34;: it has normal"},
		{"another card's finish", alertValues(other, "tcg", "Shiny", "above", "1", "0"), "has no TCGplayer finish &#34;Shiny&#34;"},
		{"rule", alertValues(card, "tcg", "Normal", "over", "1", "0"), "&#34;over&#34; is not a rule: want above, below or move."},
		{"negative amount", alertValues(card, "tcg", "Normal", "above", "-1", "0"), "&#34;-1&#34; is not an amount"},
		{"three decimals", alertValues(card, "tcg", "Normal", "below", "1.005", "0"), "is not an amount"},
		{"no amount", alertValues(card, "tcg", "Normal", "below", "", "0"), "is not an amount"},
		{"percent out of range", alertValues(card, "tcg", "Normal", "move", "0", "0"), "is not a whole percentage from 1 to 1000"},
		{"no such webhook", alertValues(card, "tcg", "Normal", "above", "1", "999"), "Choose one of your webhooks, or none."},
		{"another account's webhook", alertValues(card, "tcg", "Normal", "above", "1", strconv.FormatInt(foreign.ID, 10)), "Choose one of your webhooks, or none."},
		{"webhook not a number", alertValues(card, "tcg", "Normal", "above", "1", "x"), "Choose one of your webhooks, or none."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := c.post("/account/alerts", tt.form)
			if res.status != http.StatusBadRequest {
				t.Fatalf("status %d, want 400\n%s", res.status, mainOf(res.body))
			}
			mustContain(t, tt.name, res.body, `<p class="error" role="alert">`, tt.want)
		})
	}
	// The form keeps what was typed.
	res := c.post("/account/alerts", alertValues(card, "cm", "Shiny", "below", "3.5", "0"))
	mustContain(t, "refused form", res.body, `name="card" value="`+card+`"`, `<option value="cm" selected>`, `name="finish" value="Shiny"`,
		`<option value="below" selected>`, `name="value" value="3.5"`)
	if as := tp.alertsOf(acc); len(as) != 0 {
		t.Fatalf("refused forms stored %+v", as)
	}
}

// The plan's limit: Free keeps 3 alerts and no webhook.
func TestAlertsLimit(t *testing.T) {
	tp := newTestPortalWith(t, portalOptions{alerts: true})
	card, _ := tp.loadCatalogue()
	acc := tp.createAccount("dev@example.com", true)
	c := tp.session(acc)
	mustContain(t, "Free alerts page", c.get("/account/alerts").body, "The Free plan keeps 3 alerts and no webhook",
		"The Free plan has no webhooks")
	for i := range 3 {
		if res := c.post("/account/alerts", alertValues(card, "tcg", "Normal", "below", strconv.Itoa(i+1), "0")); res.status != http.StatusSeeOther {
			t.Fatalf("alert %d: %d\n%s", i+1, res.status, mainOf(res.body))
		}
	}
	res := c.get("/account/alerts")
	mustContain(t, "full alerts page", res.body, "Your alerts (3 of at most 3)", "You have 3 alerts, the most the Free plan keeps")
	mustNotContain(t, "full alerts page", res.body, `<form method="post" action="/account/alerts" class="stack">`)
	res = c.post("/account/alerts", alertValues(card, "tcg", "Normal", "below", "9", "0"))
	if res.status != http.StatusBadRequest {
		t.Fatalf("a fourth alert: %d", res.status)
	}
	mustContain(t, "a fourth alert", res.body, "You have 3 alerts, the most the Free plan keeps: delete one")
	if n := len(tp.alertsOf(acc)); n != 3 {
		t.Fatalf("%d alerts stored, want 3", n)
	}
}

func TestAlertEditPauseDelete(t *testing.T) {
	tp := newTestPortalWith(t, portalOptions{alerts: true})
	card, _ := tp.loadCatalogue()
	acc := tp.createAccount("dev@example.com", true)
	tp.setPlan(acc, account.Pro)
	c := tp.session(acc)
	if res := c.post("/account/alerts", alertValues(card, "tcg", "Normal", "above", "2", "0")); res.status != http.StatusSeeOther {
		t.Fatalf("create: %d", res.status)
	}
	a := tp.alertsOf(acc)[0]
	path := "/account/alerts/" + strconv.FormatInt(a.ID, 10)

	res := c.get(path)
	if res.status != http.StatusOK {
		t.Fatalf("GET %s: %d", path, res.status)
	}
	mustContain(t, "edit page", res.body, "Edit alert "+strconv.FormatInt(a.ID, 10), `<form method="post" action="`+path+`" class="stack">`,
		`name="card" value="`+card+`"`, `name="finish" value="Normal"`, `<option value="above" selected>`, `name="value" value="2.00"`, "Save the alert")

	// A bad edit changes nothing.
	res = c.post(path, alertValues(card, "tcg", "Normal", "move", "5000", "0"))
	if res.status != http.StatusBadRequest {
		t.Fatalf("bad edit: %d", res.status)
	}
	mustContain(t, "bad edit", res.body, "is not a whole percentage", `action="`+path+`"`, `name="value" value="5000"`)
	if got := tp.alertsOf(acc)[0]; got.Rule != a.Rule {
		t.Fatalf("a refused edit changed the rule: %+v", got.Rule)
	}
	res = c.post(path, alertValues(card, "cm", "normal", "below", "1", "0"))
	if res.status != http.StatusSeeOther || res.location != "/account/alerts?done=updated" {
		t.Fatalf("edit: %d %q\n%s", res.status, res.location, mainOf(res.body))
	}
	if got := tp.alertsOf(acc)[0]; got.Source != alerts.CM || got.Finish != "normal" || got.Rule != (alerts.Rule{Kind: alerts.Below, Cents: 100}) {
		t.Fatalf("after the edit: %+v", got)
	}

	res = c.post(path+"/pause", nil)
	if res.status != http.StatusSeeOther || !tp.alertsOf(acc)[0].Paused {
		t.Fatalf("pause: %d", res.status)
	}
	mustContain(t, "paused", c.get(res.location).body, "Alert paused", `<span class="tag">paused</span>`, `action="`+path+`/resume"`)
	res = c.post(path+"/resume", nil)
	if res.status != http.StatusSeeOther || tp.alertsOf(acc)[0].Paused {
		t.Fatalf("resume: %d", res.status)
	}
	res = c.post(path+"/delete", nil)
	if res.status != http.StatusSeeOther || len(tp.alertsOf(acc)) != 0 {
		t.Fatalf("delete: %d", res.status)
	}
	mustContain(t, "deleted", c.get(res.location).body, "Alert deleted.", "You have no alert yet.")
	if res := c.get(path); res.status != http.StatusNotFound {
		t.Fatalf("a deleted alert's page: %d", res.status)
	}
}

// Another account's alert is as absent as one that never was: 404 on each
// route, and nothing changed.
func TestAlertsOfAnotherAccount(t *testing.T) {
	tp := newTestPortalWith(t, portalOptions{alerts: true})
	card, _ := tp.loadCatalogue()
	owner := tp.createAccount("owner@example.com", true)
	if res := tp.session(owner).post("/account/alerts", alertValues(card, "tcg", "Normal", "above", "2", "0")); res.status != http.StatusSeeOther {
		t.Fatalf("create: %d", res.status)
	}
	theirs := tp.alertsOf(owner)[0]
	path := "/account/alerts/" + strconv.FormatInt(theirs.ID, 10)
	c := tp.session(tp.createAccount("snoop@example.com", true))
	for _, tt := range []struct {
		method, path string
	}{
		{http.MethodGet, path}, {http.MethodPost, path}, {http.MethodPost, path + "/pause"}, {http.MethodPost, path + "/resume"},
		{http.MethodPost, path + "/delete"}, {http.MethodGet, "/account/alerts/x"}, {http.MethodPost, "/account/alerts/99999/delete"},
		{http.MethodGet, "/account/alerts/-1"},
	} {
		var res response
		if tt.method == http.MethodGet {
			res = c.get(tt.path)
		} else {
			res = c.post(tt.path, alertValues(card, "tcg", "Normal", "below", "1", "0"))
		}
		if res.status != http.StatusNotFound {
			t.Errorf("%s %s: %d, want 404", tt.method, tt.path, res.status)
		}
	}
	if got := tp.alertsOf(owner); len(got) != 1 || got[0].Paused || got[0].Rule != theirs.Rule {
		t.Fatalf("the owner's alert changed: %+v", got)
	}
	// Logged out: to the login page.
	if res := tp.client().get("/account/alerts"); res.status != http.StatusSeeOther || !strings.HasPrefix(res.location, "/account/login") {
		t.Fatalf("logged out: %d %q", res.status, res.location)
	}
}

// Without a catalogue an alert cannot be checked: the page says so, a
// create is refused with a clear message.
func TestAlertsWithoutCatalogue(t *testing.T) {
	tp := newTestPortalWith(t, portalOptions{alerts: true})
	c := tp.session(tp.createAccount("dev@example.com", true))
	mustContain(t, "alerts page", c.get("/account/alerts").body, "The server has no catalogue loaded yet")
	res := c.post("/account/alerts", alertValues("dbs_0000000000000001", "tcg", "Normal", "above", "1", "0"))
	if res.status != http.StatusBadRequest {
		t.Fatalf("status %d", res.status)
	}
	mustContain(t, "create without catalogue", res.body, "No catalogue is loaded yet; try again in a minute.")
}

// Without Deps.Alerts (a store without alerts) there are no such pages,
// and the navigation does not link them.
func TestAlertsOff(t *testing.T) {
	tp := newTestPortal(t)
	c := tp.session(tp.createAccount("dev@example.com", true))
	for _, p := range []string{"/account/alerts", "/account/webhooks", "/account/webhooks/1"} {
		if res := c.get(p); res.status != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", p, res.status)
		}
	}
	mustNotContain(t, "dashboard", c.get("/account/").body, `href="/account/alerts"`, `href="/account/webhooks"`)
}

// The upgrade page's plan table shows each plan's alerts and webhooks.
func TestUpgradePageAlertLimits(t *testing.T) {
	tp := newTestPortalWith(t, portalOptions{alerts: true})
	res := tp.client().get("/account/upgrade")
	mustContain(t, "upgrade page", res.body, `<th scope="col" class="num">Price alerts</th><th scope="col" class="num">Webhooks</th>`,
		// Free: 3 and none; Pro: 100 and 3; Ultra: 1,000 and 10; Business by contract.
		`>1,000</td>
<td class="num">3</td>
<td class="num">none</td>`,
		`>50,000</td>
<td class="num">100</td>
<td class="num">3</td>`,
		`>70,000</td>
<td class="num">1,000</td>
<td class="num">10</td>`,
		`<td class="num">by contract (10,000 unless agreed otherwise)</td>
<td class="num">50</td>`)
}
