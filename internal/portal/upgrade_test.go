package portal

import (
	"context"
	"errors"
	"html/template"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/portal/billing"
	"github.com/cardcat/cardcat/internal/portal/billing/stripetest"
)

// fakeBilling is a payment provider that records its checkouts. Its
// minimum for Coffee is 3 EUR.
type fakeBilling struct {
	mu        sync.Mutex
	checkouts []fakeCheckout
	err       error
	webhook   http.Handler // NotFound when nil
}

type fakeCheckout struct {
	AccountID          int64
	Plan               account.Plan
	Amount             account.Cents
	SuccessURL, Cancel string
}

func (f *fakeBilling) Checkout(_ context.Context, acc *account.Account, plan account.Plan, amount account.Cents, success, cancel string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return "", f.err
	}
	f.checkouts = append(f.checkouts, fakeCheckout{acc.ID, plan, amount, success, cancel})
	return "https://pay.example.test/c/" + string(plan), nil
}

func (f *fakeBilling) Minimum() account.Cents { return 300 }

func (f *fakeBilling) Webhook() http.Handler {
	if f.webhook != nil {
		return f.webhook
	}
	return http.NotFoundHandler()
}
func (f *fakeBilling) CheckoutOrigin() string { return "https://pay.example.test" }

func (f *fakeBilling) done() []fakeCheckout {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fakeCheckout(nil), f.checkouts...)
}

// The spec's table, in its order, for everyone: prices (in EUR), limits,
// Early Access closed, Pro's paid access explained, Business on contact.
var planTableRows = []string{
	"<th scope=\"row\">Free <span class=\"tag\">",
	">100</td>", ">1,000</td>", "0 EUR per month",
	"Early Access", "closed to new users",
	"Coffee", ">at least 1,000</td>", ">at least 10,000</td>", "voluntary payment",
	"Pro", ">5,000</td>", ">50,000</td>", "20 EUR per month", "the paid endpoints of Pokémon and One Piece",
	"Those of Dragon Ball Super and Magic: The Gathering need the 7-day trial",
	"Ultra", ">7,000</td>", ">70,000</td>", "29 EUR per month", "every paid endpoint of every game",
	"Business", ">custom</td>", "on contact",
}

// operatorOnly is what a customer's page never shows: the operator's
// commands and settings, and a price in dollars.
var operatorOnly = []string{"cardcat accounts", "set-plan", "CARDCAT_", "$"}

func TestUpgradePageLoggedOut(t *testing.T) {
	tp := newTestPortalWith(t, portalOptions{cfg: Config{Contact: "ops@example.com"}})
	res := tp.client().get("/account/upgrade")
	if res.status != http.StatusOK {
		t.Fatalf("status %d", res.status)
	}
	rows := append([]string{}, planTableRows[1:]...)
	mustContain(t, "upgrade page", res.body, rows...)
	mustContain(t, "upgrade page", res.body, `href="/account/signup?next=%2Faccount%2Fupgrade"`, `href="/account/login?next=%2Faccount%2Fupgrade"`,
		"Payments are not taken on this site: the operator of this server sets plans. To change yours, contact them at "+
			`<a href="mailto:ops@example.com?subject=Plan%20change">ops@example.com</a>.`,
		`<a href="mailto:ops@example.com?subject=Business%20plan" aria-label="Contact the operator about Business">Contact the operator</a>`,
		`<a href="mailto:ops@example.com?subject=Coffee%20plan" aria-label="Contact the operator about Coffee">Contact the operator</a>`,
		// The footer of every page.
		`<a href="/account/upgrade">Plans</a> · <a href="mailto:ops@example.com">Contact</a></footer>`,
		"Prices are in euros (EUR).")
	mustNotContain(t, "upgrade page", res.body, `<span class="tag">your plan</span>`, "Subscribe", `class="portal-nav"`, "No contact listed", `id="amount"`)
	mustNotContain(t, "upgrade page", res.body, operatorOnly...)
	order := []string{"Free", "Early Access", "Coffee", "Pro", "Ultra", "Business"}
	last := -1
	for _, name := range order {
		i := strings.Index(res.body, `<th scope="row">`+name)
		if i < last {
			t.Errorf("%s is out of the spec's order", name)
		}
		last = i
	}
}

// Without a contact the page says so plainly, with no link that leads
// nowhere.
func TestUpgradePageWithoutContact(t *testing.T) {
	tp := newTestPortal(t)
	c := tp.session(tp.createAccount("dev@example.com", true))
	res := c.get("/account/upgrade")
	mustContain(t, "upgrade page", res.body, planTableRows...)
	mustContain(t, "upgrade page", res.body,
		"Payments are not taken on this site: the operator of this server sets plans. They have not listed a way to contact them here.",
		"<td>No contact listed</td>")
	mustNotContain(t, "upgrade page", res.body, "mailto:", "Subscribe", "Contact the operator", "Ask the operator", ">Contact</a>", `id="amount"`)
	mustNotContain(t, "upgrade page", res.body, operatorOnly...)

	// Without a payment provider a checkout is refused.
	res = c.post("/account/upgrade", url.Values{"plan": {"pro"}})
	if res.status != http.StatusBadRequest {
		t.Errorf("checkout without billing: %d, want 400", res.status)
	}
	mustContain(t, "refused checkout", res.body, "Payments are not taken on this server; the operator sets plans, and has not listed a way to contact them here.")
}

// A contact that is a web page is linked as it is, without a subject.
func TestUpgradePageContactURL(t *testing.T) {
	tp := newTestPortalWith(t, portalOptions{cfg: Config{Contact: "https://support.example.com/cardcat?from=portal"}, billing: &fakeBilling{}})
	res := tp.client().get("/account/upgrade")
	mustContain(t, "upgrade page", res.body,
		"Business is on contact: "+`<a href="https://support.example.com/cardcat?from=portal">https://support.example.com/cardcat?from=portal</a>.`,
		`<a href="https://support.example.com/cardcat?from=portal" aria-label="Contact the operator about Business">Contact the operator</a>`,
		`<a href="https://support.example.com/cardcat?from=portal">Contact</a></footer>`)
	mustNotContain(t, "upgrade page", res.body, "mailto:", "No contact listed")
}

func TestParseContact(t *testing.T) {
	for _, tt := range []struct {
		in         string
		href, text string // "" and "": refused
	}{
		{"ops@example.com", "mailto:ops@example.com", "ops@example.com"},
		{"mailto:ops@example.com", "mailto:ops@example.com", "ops@example.com"},
		{"https://example.com/contact", "https://example.com/contact", "https://example.com/contact"},
		{"http://example.com", "http://example.com", "http://example.com"},
		{"not an address", "", ""},
		{"Ops <ops@example.com>", "", ""},
		{"ops@example.com?cc=x@evil.example", "", ""},
		{"mailto:", "", ""},
		{"javascript:alert(1)", "", ""},
		{"ftp://example.com/", "", ""},
		{"https://", "", ""},
		{"https://user:pw@example.com/", "", ""},
		{"https://example.com/\n", "", ""},
	} {
		c, err := ParseContact(tt.in)
		switch {
		case tt.href == "" && err == nil:
			t.Errorf("ParseContact(%q) = %+v, want an error", tt.in, c)
		case tt.href != "" && (err != nil || c.Href != tt.href || c.Text != tt.text):
			t.Errorf("ParseContact(%q) = %+v, %v; want %s, %s", tt.in, c, err, tt.href, tt.text)
		}
	}
	if c, err := ParseContact(""); c != nil || err != nil {
		t.Errorf(`ParseContact("") = %+v, %v; want none`, c, err)
	}
	if _, err := New(Config{Contact: "nobody"}, Deps{Store: struct{ account.Store }{}, Mailer: nopMailer{}, PublicURL: "http://127.0.0.1:8080"}); err == nil {
		t.Error("New took a contact that is neither an email address nor a URL")
	}
}

func TestCheckout(t *testing.T) {
	tp := newTestPortalWith(t, portalOptions{cfg: Config{Contact: "ops@example.com"}})
	bill := &fakeBilling{}
	tp.p.deps.Billing = bill
	acc := tp.createAccount("dev@example.com", true)
	c := tp.session(acc)

	res := c.get("/account/upgrade")
	mustContain(t, "upgrade page", res.body, planTableRows...)
	for _, pl := range []string{"pro", "ultra"} {
		mustContain(t, "upgrade page", res.body, `<input type="hidden" name="plan" value="`+pl+`">`)
	}
	if n := strings.Count(res.body, ">Subscribe</button>"); n != 2 {
		t.Errorf("%d Subscribe buttons, want 2 (Pro and Ultra)", n)
	}
	mustContain(t, "upgrade page", res.body, `href="mailto:ops@example.com?subject=Business%20plan"`,
		"voluntary payment: you choose, at least 3 EUR per month", `<a href="#choose-amount">Choose your amount</a>`,
		"Coffee, Pro and Ultra are paid by card, monthly")
	mustNotContain(t, "upgrade page", res.body, operatorOnly...)
	// Logged out with billing: log in to subscribe (Coffee, Pro, Ultra).
	out := tp.client().get("/account/upgrade").body
	if n := strings.Count(out, "Log in to subscribe"); n != 3 {
		t.Errorf("logged out: %d links to log in to subscribe, want 3 (Coffee, Pro, Ultra)", n)
	}
	mustNotContain(t, "logged-out upgrade page", out, `id="amount"`)

	res = c.post("/account/upgrade", url.Values{"plan": {"ultra"}})
	if res.status != http.StatusSeeOther || res.location != "https://pay.example.test/c/ultra" {
		t.Fatalf("checkout: %d %q\n%s", res.status, res.location, mainOf(res.body))
	}
	want := fakeCheckout{acc.ID, account.Ultra, 0, tp.srv.URL + "/account/upgrade?checkout=done", tp.srv.URL + "/account/upgrade?checkout=cancelled"}
	if got := bill.done(); len(got) != 1 || got[0] != want {
		t.Errorf("checkouts %+v, want [%+v]", got, want)
	}
	if got := tp.accountByEmail("dev@example.com"); got.Plan != account.Free {
		t.Errorf("the plan changed to %s before the payment was confirmed", got.Plan)
	}
	mustContain(t, "after payment", c.get("/account/upgrade?checkout=done").body, "Payment received; your plan changes as soon as the payment provider confirms it")
	mustContain(t, "after cancel", c.get("/account/upgrade?checkout=cancelled").body, "Checkout cancelled")

	for _, plan := range []string{"business", "early-access", "free", "gold", ""} {
		res := c.post("/account/upgrade", url.Values{"plan": {plan}})
		if res.status != http.StatusBadRequest {
			t.Errorf("checkout for %q: %d, want 400", plan, res.status)
		}
		mustContain(t, "checkout for "+plan, res.body, "That plan cannot be bought here: choose Coffee, Pro or Ultra.")
	}
	if n := len(bill.done()); n != 1 {
		t.Errorf("%d checkouts after refused ones, want 1", n)
	}

	// The current plan is marked and not sold again.
	acc.Plan = account.Pro
	if err := tp.store.UpdateAccount(context.Background(), acc); err != nil {
		t.Fatal(err)
	}
	res = c.get("/account/upgrade")
	mustContain(t, "Pro's upgrade page", res.body, `<tr class="current" aria-current="true">`+"\n"+`<th scope="row">Pro <span class="tag">your plan</span>`)
	if n := strings.Count(res.body, ">Subscribe</button>"); n != 1 {
		t.Errorf("%d Subscribe buttons on Pro, want 1 (Ultra)", n)
	}
	if res := c.post("/account/upgrade", url.Values{"plan": {"pro"}}); res.status != http.StatusBadRequest {
		t.Errorf("checkout for the current plan: %d, want 400", res.status)
	}

	bill.err = errors.New("stripe down")
	res = c.post("/account/upgrade", url.Values{"plan": {"ultra"}})
	if res.status != http.StatusBadGateway {
		t.Errorf("checkout with the provider down: %d, want 502", res.status)
	}
	mustContain(t, "provider down", res.body, "nothing was charged")

	// A logged-out POST goes to log in.
	if res := tp.client().post("/account/upgrade", url.Values{"plan": {"ultra"}}); res.status != http.StatusSeeOther || !strings.HasPrefix(res.location, "/account/login") {
		t.Errorf("logged-out checkout: %d %q", res.status, res.location)
	}
}

// The webhook is reached without a session or a same-site origin (Stripe
// posts it), and an event it accepted refreshes this replica's keys, so a
// plan it changed applies to the next request; a refused one does not.
// The checkout origin is allowed as a form target.
func TestWebhookRefreshesKeys(t *testing.T) {
	status := http.StatusOK
	fb := &fakeBilling{webhook: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(status) })}
	tp := newTestPortalWith(t, portalOptions{billing: fb})
	post := func() int {
		req, _ := http.NewRequest(http.MethodPost, tp.srv.URL+webhookPath, strings.NewReader("{}"))
		req.Header.Set("Origin", "https://stripe.example")
		req.Header.Set("Sec-Fetch-Site", "cross-site")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "form-action 'self' https://pay.example.test;") {
			t.Errorf("CSP %q does not allow the checkout origin", csp)
		}
		return resp.StatusCode
	}
	if got := post(); got != http.StatusOK || tp.keys.count() != 1 {
		t.Errorf("accepted event: status %d, %d refreshes, want 200 and 1", got, tp.keys.count())
	}
	status = http.StatusBadRequest
	if got := post(); got != http.StatusBadRequest || tp.keys.count() != 1 {
		t.Errorf("refused event: status %d, %d refreshes, want 400 and still 1", got, tp.keys.count())
	}
}

// Coffee is bought at the amount the visitor types, at least the
// provider's minimum: a refused amount is a form error beside the field,
// with the amount kept, and nothing reaches the provider.
func TestCoffeeAmountForm(t *testing.T) {
	bill := &fakeBilling{}
	tp := newTestPortalWith(t, portalOptions{billing: bill})
	acc := tp.createAccount("supporter@example.com", true)
	c := tp.session(acc)

	res := c.get("/account/upgrade")
	mustContain(t, "upgrade page", res.body,
		`<h2 id="choose-amount">Coffee: pay what you want</h2>`,
		"Coffee is a voluntary payment: you choose what you pay each month, at least 3 EUR, by card. It gives at least 1,000 requests an hour and 10,000 a day",
		`<input type="hidden" name="plan" value="coffee">`,
		`<input type="text" id="amount" name="amount" value="3" inputmode="decimal"`,
		`<button type="submit">Subscribe to Coffee</button>`)
	mustNotContain(t, "upgrade page", res.body, `aria-invalid`)

	for _, tt := range []struct {
		typed, want string
	}{
		{"2.99", "The least you can pay is 3 EUR a month; you entered 2.99 EUR."},
		{"0", "The least you can pay is 3 EUR a month; you entered 0 EUR."},
		{"", "Enter what you want to pay each month, in EUR: at least 3 EUR."},
		{"  ", "Enter what you want to pay each month, in EUR: at least 3 EUR."},
		{"€5", "Write the amount in EUR with digits, like 3 or 4.50, without the currency sign."},
		{"-5", "Write the amount in EUR with digits"},
		{"5.555", "Write the amount in EUR with digits"},
		{"1000.01", "The most this plan takes is 1000 EUR a month; for more, see Business."},
	} {
		res := c.post("/account/upgrade", url.Values{"plan": {"coffee"}, "amount": {tt.typed}})
		if res.status != http.StatusBadRequest {
			t.Errorf("amount %q: %d, want 400", tt.typed, res.status)
		}
		mustContain(t, "amount "+tt.typed, res.body,
			`<p class="error" role="alert">Nothing was charged: check the amount you chose for Coffee, below.</p>`,
			`aria-invalid="true" aria-describedby="amount-error"`,
			`<p class="error" id="amount-error">`+template.HTMLEscapeString(tt.want),
			`name="amount" value="`+template.HTMLEscapeString(tt.typed)+`"`)
	}
	if got := bill.done(); len(got) != 0 {
		t.Fatalf("refused amounts reached the provider: %+v", got)
	}

	for _, tt := range []struct {
		typed string
		want  account.Cents
	}{{"3", 300}, {"4,50", 450}, {" 12.5 ", 1250}, {"1000", 1000_00}} {
		res := c.post("/account/upgrade", url.Values{"plan": {"coffee"}, "amount": {tt.typed}})
		if res.status != http.StatusSeeOther || res.location != "https://pay.example.test/c/coffee" {
			t.Errorf("amount %q: %d %q, want 303 to the provider\n%s", tt.typed, res.status, res.location, mainOf(res.body))
			continue
		}
		got := bill.done()
		if last := got[len(got)-1]; last.Plan != account.Coffee || last.Amount != tt.want || last.AccountID != acc.ID {
			t.Errorf("amount %q: checkout %+v, want coffee at %d cents", tt.typed, last, tt.want)
		}
	}
	// A plan of fixed price takes no amount from the form.
	if res := c.post("/account/upgrade", url.Values{"plan": {"pro"}, "amount": {"1"}}); res.status != http.StatusSeeOther {
		t.Errorf("Pro with an amount: %d, want 303", res.status)
	}
	if got := bill.done(); got[len(got)-1].Amount != 0 {
		t.Errorf("Pro's checkout carries the amount %d, want 0", got[len(got)-1].Amount)
	}

	// On Coffee: the row is marked and the form gone.
	acc.Plan = account.Coffee
	if err := tp.store.UpdateAccount(context.Background(), acc); err != nil {
		t.Fatal(err)
	}
	res = c.get("/account/upgrade")
	mustContain(t, "Coffee's upgrade page", res.body, `<th scope="row">Coffee <span class="tag">your plan</span>`)
	mustNotContain(t, "Coffee's upgrade page", res.body, `id="amount"`, "Choose your amount")
	if res := c.post("/account/upgrade", url.Values{"plan": {"coffee"}, "amount": {"5"}}); res.status != http.StatusBadRequest {
		t.Errorf("Coffee again: %d, want 400", res.status)
	}
}

// TestCoffeeThroughStripe is the whole voluntary payment against the fake
// Stripe: an amount below the operator's minimum is refused on the form and
// creates no session; one at the minimum, and one above it, go to Stripe
// Checkout as a monthly price of that amount in EUR; paying sends the
// signed webhook, which puts the account on Coffee.
func TestCoffeeThroughStripe(t *testing.T) {
	const webhookSecret = "whsec_portal_coffee"
	tp := newTestPortal(t)
	fake := stripetest.New(t, stripetest.Options{SecretKey: "sk_test_coffee", WebhookSecret: webhookSecret, Now: tp.clock.Now})
	fake.SetWebhookURL(tp.srv.URL + webhookPath)
	bill, err := billing.New(billing.Config{
		SecretKey: "sk_test_coffee", WebhookSecret: webhookSecret, BaseURL: fake.URL, Minimum: 250,
		Prices: map[account.Plan]string{account.Pro: "price_pro", account.Ultra: "price_ultra"},
	}, tp.store, tp.clock.Now, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	tp.p.deps.Billing = bill

	for _, tt := range []struct {
		email, amount string
		cents         int64
	}{
		{"at-minimum@example.com", "2.50", 250},
		{"generous@example.com", "7", 700},
	} {
		acc := tp.createAccount(tt.email, true)
		c := tp.session(acc)
		mustContain(t, "upgrade page", c.get("/account/upgrade").body, "voluntary payment: you choose, at least 2.50 EUR per month", `value="2.50"`)

		res := c.post("/account/upgrade", url.Values{"plan": {"coffee"}, "amount": {"2.49"}})
		if res.status != http.StatusBadRequest {
			t.Fatalf("below the minimum: %d, want 400", res.status)
		}
		mustContain(t, "below the minimum", res.body, "The least you can pay is 2.50 EUR a month; you entered 2.49 EUR.")
		before := len(fake.Sessions())

		res = c.post("/account/upgrade", url.Values{"plan": {"coffee"}, "amount": {tt.amount}})
		ss := fake.Sessions()
		if len(ss) != before+1 {
			t.Fatalf("%s: %d sessions after a refused and an accepted amount, want %d", tt.email, len(ss), before+1)
		}
		s := ss[len(ss)-1]
		if res.status != http.StatusSeeOther || res.location != s.URL {
			t.Fatalf("%s: %d %q, want 303 to the session %s", tt.email, res.status, res.location, s.URL)
		}
		if s.Amount != tt.cents || s.Currency != "eur" || s.Interval != "month" || s.Params.Get("metadata[plan]") != "coffee" {
			t.Errorf("%s: session %d %s a %q for %q, want %d eur a month for coffee",
				tt.email, s.Amount, s.Currency, s.Interval, s.Params.Get("metadata[plan]"), tt.cents)
		}
		if got := tp.accountByEmail(tt.email); got.Plan != account.Free {
			t.Errorf("%s: plan %s before paying, want free", tt.email, got.Plan)
		}

		refreshes := tp.keys.count()
		if err := fake.Pay(context.Background(), s.ID); err != nil {
			t.Fatalf("Pay: %v", err)
		}
		got := tp.accountByEmail(tt.email)
		if got.Plan != account.Coffee || got.StripeSubscriptionID != s.Subscription {
			t.Errorf("%s after paying: plan %s, subscription %q; want coffee, %q", tt.email, got.Plan, got.StripeSubscriptionID, s.Subscription)
		}
		if tp.keys.count() != refreshes+1 {
			t.Errorf("%s: the webhook did not refresh the keys", tt.email)
		}
		mustContain(t, "upgrade page on Coffee", c.get("/account/upgrade").body, `<th scope="row">Coffee <span class="tag">your plan</span>`)
	}
}
