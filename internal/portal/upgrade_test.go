package portal

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/cardcat/cardcat/internal/account"
)

// fakeBilling is a payment provider that records its checkouts.
type fakeBilling struct {
	mu        sync.Mutex
	checkouts []fakeCheckout
	err       error
	webhook   http.Handler // NotFound when nil
}

type fakeCheckout struct {
	AccountID          int64
	Plan               account.Plan
	SuccessURL, Cancel string
}

func (f *fakeBilling) Checkout(_ context.Context, acc *account.Account, plan account.Plan, success, cancel string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return "", f.err
	}
	f.checkouts = append(f.checkouts, fakeCheckout{acc.ID, plan, success, cancel})
	return "https://pay.example.test/c/" + string(plan), nil
}

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

// The spec's table, in its order, for everyone: prices, limits, Early
// Access closed, Pro's paid access explained, Business on contact.
var planTableRows = []string{
	"<th scope=\"row\">Free <span class=\"tag\">",
	">100</td>", ">1,000</td>", "$0 per month",
	"Early Access", "closed to new users",
	"Coffee", ">at least 1,000</td>", ">at least 10,000</td>", "voluntary payment",
	"Pro", ">5,000</td>", ">50,000</td>", "20 EUR per month", "the paid endpoints of Pokémon and One Piece",
	"Those of Dragon Ball Super and Magic: The Gathering need the 7-day trial",
	"Ultra", ">7,000</td>", ">70,000</td>", "29 EUR per month", "every paid endpoint of every game",
	"Business", ">custom</td>", "on contact",
}

func TestUpgradePageLoggedOut(t *testing.T) {
	tp := newTestPortalWith(t, portalOptions{cfg: Config{ContactEmail: "ops@example.com"}})
	res := tp.client().get("/account/upgrade")
	if res.status != http.StatusOK {
		t.Fatalf("status %d", res.status)
	}
	rows := append([]string{}, planTableRows[1:]...)
	mustContain(t, "upgrade page", res.body, rows...)
	mustContain(t, "upgrade page", res.body, `href="/account/signup?next=%2Faccount%2Fupgrade"`, `href="/account/login?next=%2Faccount%2Fupgrade"`,
		"Payments are not taken", `href="mailto:ops@example.com"`, "cardcat accounts set-plan")
	mustNotContain(t, "upgrade page", res.body, `<span class="tag">your plan</span>`, "Subscribe", `class="portal-nav"`)
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

func TestUpgradePageWithoutContact(t *testing.T) {
	tp := newTestPortal(t)
	c := tp.session(tp.createAccount("dev@example.com", true))
	res := c.get("/account/upgrade")
	mustContain(t, "upgrade page", res.body, planTableRows...)
	mustContain(t, "upgrade page", res.body, "ask the operator of this server", "Ask the operator")
	mustNotContain(t, "upgrade page", res.body, "mailto:", "Subscribe")

	// Without a payment provider a checkout is refused.
	res = c.post("/account/upgrade", url.Values{"plan": {"pro"}})
	if res.status != http.StatusBadRequest {
		t.Errorf("checkout without billing: %d, want 400", res.status)
	}
}

func TestCheckout(t *testing.T) {
	tp := newTestPortalWith(t, portalOptions{cfg: Config{ContactEmail: "ops@example.com"}})
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
	mustContain(t, "upgrade page", res.body, `href="mailto:ops@example.com?subject=Business%20plan"`)
	// Logged out with billing: log in to subscribe.
	mustContain(t, "logged-out upgrade page", tp.client().get("/account/upgrade").body, "Log in to subscribe")

	res = c.post("/account/upgrade", url.Values{"plan": {"ultra"}})
	if res.status != http.StatusSeeOther || res.location != "https://pay.example.test/c/ultra" {
		t.Fatalf("checkout: %d %q\n%s", res.status, res.location, mainOf(res.body))
	}
	want := fakeCheckout{acc.ID, account.Ultra, tp.srv.URL + "/account/upgrade?checkout=done", tp.srv.URL + "/account/upgrade?checkout=cancelled"}
	if got := bill.done(); len(got) != 1 || got[0] != want {
		t.Errorf("checkouts %+v, want [%+v]", got, want)
	}
	if got := tp.accountByEmail("dev@example.com"); got.Plan != account.Free {
		t.Errorf("the plan changed to %s before the payment was confirmed", got.Plan)
	}
	mustContain(t, "after payment", c.get("/account/upgrade?checkout=done").body, "Payment received; your plan changes as soon as the payment provider confirms it")
	mustContain(t, "after cancel", c.get("/account/upgrade?checkout=cancelled").body, "Checkout cancelled")

	for _, plan := range []string{"business", "coffee", "early-access", "free", "gold", ""} {
		if res := c.post("/account/upgrade", url.Values{"plan": {plan}}); res.status != http.StatusBadRequest {
			t.Errorf("checkout for %q: %d, want 400", plan, res.status)
		}
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
