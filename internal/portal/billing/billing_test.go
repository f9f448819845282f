package billing_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/portal/billing"
	"github.com/cardcat/cardcat/internal/portal/billing/stripetest"
	"github.com/cardcat/cardcat/internal/store/sqlite"
	"github.com/cardcat/cardcat/internal/testkit"
)

const (
	secretKey     = "sk_test_billing_secret_key_123"
	webhookSecret = "whsec_billing_test_secret_456"
	proPrice      = "price_pro_monthly"
	ultraPrice    = "price_ultra_monthly"
	successURL    = "https://cardcat.test/account/upgrade/done?session={CHECKOUT_SESSION_ID}"
	cancelURL     = "https://cardcat.test/account/upgrade"
	// coffeeMinimum is the operator's least monthly amount for Coffee.
	coffeeMinimum account.Cents = 300
)

// clock is time.Now moved by an offset the test sets.
type clock struct{ offset atomic.Int64 }

func (c *clock) Now() time.Time          { return time.Now().Add(time.Duration(c.offset.Load())) }
func (c *clock) Advance(d time.Duration) { c.offset.Add(int64(d)) }

// fixture is a billing on a real SQLite store, a fake Stripe, and the
// webhook served over HTTP where the fake sends its events.
type fixture struct {
	st    account.Store
	fake  *stripetest.Server
	bill  *billing.Stripe
	hook  string // the webhook's URL
	clock *clock
	logs  *testkit.SyncBuffer
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	return newFixtureOn(t, nil)
}

// newFixtureOn wraps the store with wrap when not nil.
func newFixtureOn(t *testing.T, wrap func(account.Store) account.Store) *fixture {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "cardcat.db"))
	if err != nil {
		t.Fatalf("sqlite.Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	f := &fixture{st: db, clock: &clock{}, logs: &testkit.SyncBuffer{}}
	st := f.st
	if wrap != nil {
		st = wrap(st)
	}
	f.fake = stripetest.New(t, stripetest.Options{SecretKey: secretKey, WebhookSecret: webhookSecret, Now: f.clock.Now})
	f.bill, err = billing.New(billing.Config{
		SecretKey:     secretKey,
		WebhookSecret: webhookSecret,
		Prices:        map[account.Plan]string{account.Pro: proPrice, account.Ultra: ultraPrice},
		Minimum:       coffeeMinimum,
		BaseURL:       f.fake.URL,
	}, st, f.clock.Now, slog.New(slog.NewTextHandler(f.logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	if err != nil {
		t.Fatalf("billing.New: %v", err)
	}
	mux := http.NewServeMux()
	mux.Handle(billing.WebhookRoute, f.bill.Webhook())
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	f.hook = srv.URL + "/account/billing/stripe"
	f.fake.SetWebhookURL(f.hook)
	t.Cleanup(func() {
		// No secret may reach the log, whatever the test did.
		logs := f.logs.String()
		for _, secret := range []string{secretKey, webhookSecret} {
			if strings.Contains(logs, secret) {
				t.Errorf("a secret is in the log:\n%s", logs)
			}
		}
	})
	return f
}

func (f *fixture) newAccount(t *testing.T, email string) *account.Account {
	t.Helper()
	a := &account.Account{Email: email, Plan: account.Free}
	if err := f.st.CreateAccount(context.Background(), a); err != nil {
		t.Fatalf("CreateAccount: %v", err)
	}
	return f.account(t, a.ID)
}

func (f *fixture) account(t *testing.T, id int64) *account.Account {
	t.Helper()
	a, err := f.st.Account(context.Background(), id)
	if err != nil {
		t.Fatalf("Account(%d): %v", id, err)
	}
	return a
}

func (f *fixture) update(t *testing.T, a *account.Account) {
	t.Helper()
	if err := f.st.UpdateAccount(context.Background(), a); err != nil {
		t.Fatalf("UpdateAccount: %v", err)
	}
}

// send posts a correctly signed event and returns the answer.
func (f *fixture) send(t *testing.T, eventType string, object any) (int, string) {
	t.Helper()
	body, sig := stripetest.SignedEventAt(t, webhookSecret, eventType, object, f.clock.Now())
	return stripetest.SendEvent(t, f.hook, body, sig)
}

// completedSession is a checkout.session.completed object as Checkout's
// session for acc and plan would carry it.
func completedSession(acc *account.Account, plan account.Plan, customer, sub string) map[string]any {
	id := strconv.FormatInt(acc.ID, 10)
	return map[string]any{
		"id": "cs_test_x", "object": "checkout.session", "mode": "subscription",
		"status": "complete", "payment_status": "paid",
		"client_reference_id": id,
		"metadata":            map[string]string{"account_id": id, "plan": string(plan)},
		"customer":            customer, "subscription": sub,
	}
}

func TestNewRefusesIncompleteConfig(t *testing.T) {
	full := func() billing.Config {
		return billing.Config{
			SecretKey: secretKey, WebhookSecret: webhookSecret,
			Prices:  map[account.Plan]string{account.Pro: proPrice, account.Ultra: ultraPrice},
			Minimum: coffeeMinimum,
		}
	}
	tests := []struct {
		name string
		edit func(*billing.Config)
	}{
		{"no secret key", func(c *billing.Config) { c.SecretKey = "" }},
		{"no webhook secret", func(c *billing.Config) { c.WebhookSecret = "" }},
		{"no Pro price", func(c *billing.Config) { delete(c.Prices, account.Pro) }},
		{"no Ultra price", func(c *billing.Config) { c.Prices[account.Ultra] = "" }},
		{"no prices", func(c *billing.Config) { c.Prices = nil }},
		{"a price for Business", func(c *billing.Config) { c.Prices[account.Business] = "price_b" }},
		{"a price for Coffee, whose buyer chooses the amount", func(c *billing.Config) { c.Prices[account.Coffee] = "price_c" }},
		{"no minimum for Coffee", func(c *billing.Config) { c.Minimum = 0 }},
		{"a minimum below Stripe's smallest charge", func(c *billing.Config) { c.Minimum = billing.MinimumCharge - 1 }},
		{"a minimum above the most Coffee takes", func(c *billing.Config) { c.Minimum = account.MaxVoluntary + 1 }},
	}
	st := openStore(t)
	if _, err := billing.New(full(), st, nil, nil); err != nil {
		t.Fatalf("New(full config): %v", err)
	}
	for _, edge := range []account.Cents{billing.MinimumCharge, account.MaxVoluntary} {
		cfg := full()
		cfg.Minimum = edge
		if _, err := billing.New(cfg, st, nil, nil); err != nil {
			t.Errorf("New with the minimum %s: %v", edge, err)
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := full()
			tt.edit(&cfg)
			if _, err := billing.New(cfg, st, nil, nil); err == nil {
				t.Error("New accepted it")
			}
		})
	}
}

func openStore(t *testing.T) account.Store {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "cardcat.db"))
	if err != nil {
		t.Fatalf("sqlite.Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestCheckoutCreatesSession(t *testing.T) {
	tests := []struct {
		name     string
		plan     account.Plan
		amount   account.Cents
		customer string // the account's StripeCustomerID
		want     map[string]string
		absent   []string
	}{
		{
			name: "Ultra, new customer", plan: account.Ultra,
			want:   map[string]string{"line_items[0][price]": ultraPrice, "customer_email": "buyer@example.com", "metadata[plan]": "ultra"},
			absent: []string{"customer"},
		},
		{
			name: "Pro, returning customer", plan: account.Pro, customer: "cus_known",
			want:   map[string]string{"line_items[0][price]": proPrice, "customer": "cus_known", "metadata[plan]": "pro"},
			absent: []string{"customer_email", "line_items[0][price_data][unit_amount]"},
		},
		{
			// A voluntary payment: the amount chosen, monthly, in EUR,
			// as a price made with the session.
			name: "Coffee at the amount chosen", plan: account.Coffee, amount: 550,
			want: map[string]string{
				"line_items[0][price_data][currency]":            "eur",
				"line_items[0][price_data][unit_amount]":         "550",
				"line_items[0][price_data][recurring][interval]": "month",
				"line_items[0][price_data][product_data][name]":  "Coffee plan (voluntary payment)",
				"metadata[plan]": "coffee", "customer_email": "buyer@example.com",
			},
			absent: []string{"line_items[0][price]", "customer"},
		},
		{
			name: "Coffee at the minimum", plan: account.Coffee, amount: coffeeMinimum,
			want: map[string]string{"line_items[0][price_data][unit_amount]": "300", "metadata[plan]": "coffee"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			acc := f.newAccount(t, "buyer@example.com")
			acc.StripeCustomerID = tt.customer
			f.update(t, acc)
			id := strconv.FormatInt(acc.ID, 10)

			url, err := f.bill.Checkout(context.Background(), acc, tt.plan, tt.amount, successURL, cancelURL)
			if err != nil {
				t.Fatalf("Checkout: %v", err)
			}
			sessions := f.fake.Sessions()
			if len(sessions) != 1 {
				t.Fatalf("the fake has %d sessions, want 1", len(sessions))
			}
			s := sessions[0]
			if url != s.URL || !strings.HasPrefix(url, f.fake.URL+"/checkout/") {
				t.Errorf("Checkout URL = %q, want the session's %q on the fake", url, s.URL)
			}
			want := map[string]string{
				"mode":                              "subscription",
				"line_items[0][quantity]":           "1",
				"client_reference_id":               id,
				"metadata[account_id]":              id,
				"subscription_data[metadata][plan]": string(tt.plan),
				"success_url":                       successURL,
				"cancel_url":                        cancelURL,
			}
			for k, v := range tt.want {
				want[k] = v
			}
			got := map[string]string{}
			for k := range want {
				got[k] = s.Params.Get(k)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("create params (-want +got):\n%s", diff)
			}
			for _, k := range tt.absent {
				if s.Params.Has(k) {
					t.Errorf("param %s = %q sent, want none", k, s.Params.Get(k))
				}
			}
			if tt.amount != 0 && (s.Amount != int64(tt.amount) || s.Currency != "eur" || s.Interval != "month") {
				t.Errorf("the fake's session charges %d %s a %q, want %d eur a month", s.Amount, s.Currency, s.Interval, tt.amount)
			}
			if a := f.account(t, acc.ID); a.Plan != account.Free {
				t.Errorf("plan = %s after Checkout alone, want free until paid", a.Plan)
			}
		})
	}
}

// TestCheckoutRefusesAmounts: Coffee's amount is at least the minimum and
// at most account.MaxVoluntary; a plan of fixed price takes none. Nothing
// reaches Stripe.
func TestCheckoutRefusesAmounts(t *testing.T) {
	f := newFixture(t)
	acc := f.newAccount(t, "buyer@example.com")
	for _, tt := range []struct {
		plan   account.Plan
		amount account.Cents
		below  bool
	}{
		{account.Coffee, coffeeMinimum - 1, true},
		{account.Coffee, 0, true},
		{account.Coffee, -500, true},
		{account.Coffee, account.MaxVoluntary + 1, false},
		{account.Pro, 500, false},
		{account.Ultra, 2900, false},
	} {
		_, err := f.bill.Checkout(context.Background(), acc, tt.plan, tt.amount, successURL, cancelURL)
		if !errors.Is(err, billing.ErrAmount) || errors.Is(err, account.ErrBelowMinimum) != tt.below {
			t.Errorf("Checkout(%s, %d) = %v, want ErrAmount (below the minimum: %v)", tt.plan, tt.amount, err, tt.below)
		}
	}
	if n := len(f.fake.Sessions()); n != 0 {
		t.Errorf("%d sessions created for refused amounts", n)
	}
}

func TestCheckoutRefusesPlansNotSold(t *testing.T) {
	f := newFixture(t)
	acc := f.newAccount(t, "buyer@example.com")
	for _, plan := range []account.Plan{account.Free, account.EarlyAccess, account.Business, "gold"} {
		t.Run(string(plan), func(t *testing.T) {
			_, err := f.bill.Checkout(context.Background(), acc, plan, 0, successURL, cancelURL)
			if !errors.Is(err, billing.ErrNotSold) {
				t.Errorf("Checkout(%s) = %v, want ErrNotSold", plan, err)
			}
			if f.bill.Sells(plan) {
				t.Errorf("Sells(%s) = true", plan)
			}
		})
	}
	if n := len(f.fake.Sessions()); n != 0 {
		t.Errorf("%d sessions created for plans not sold", n)
	}
	for _, plan := range []account.Plan{account.Coffee, account.Pro, account.Ultra} {
		if !f.bill.Sells(plan) {
			t.Errorf("Sells(%s) = false", plan)
		}
	}
}

func TestCheckoutReportsStripeError(t *testing.T) {
	f := newFixture(t)
	acc := f.newAccount(t, "buyer@example.com")
	bad, err := billing.New(billing.Config{
		SecretKey: "sk_test_wrong", WebhookSecret: webhookSecret, BaseURL: f.fake.URL,
		Prices: map[account.Plan]string{account.Pro: proPrice, account.Ultra: ultraPrice}, Minimum: coffeeMinimum,
	}, f.st, nil, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if url, err := bad.Checkout(context.Background(), acc, account.Pro, 0, successURL, cancelURL); err == nil {
		t.Errorf("Checkout with a key the fake refuses = %q, nil; want an error", url)
	}
}

// TestCheckoutPaidThroughFakePage is the journey's path without a browser:
// the session's page, its Pay form, the signed event to the webhook, the
// redirect to success_url, and the account on Ultra.
func TestCheckoutPaidThroughFakePage(t *testing.T) {
	f := newFixture(t)
	acc := f.newAccount(t, "buyer@example.com")
	url, err := f.bill.Checkout(context.Background(), acc, account.Ultra, 0, successURL, cancelURL)
	if err != nil {
		t.Fatalf("Checkout: %v", err)
	}
	page, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	buf.ReadFrom(page.Body)
	page.Body.Close()
	if page.StatusCode != http.StatusOK || !strings.Contains(buf.String(), `id="pay"`) {
		t.Fatalf("checkout page: %d\n%s", page.StatusCode, buf.String())
	}

	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	paidFrom := f.clock.Now().Truncate(time.Second)
	resp, err := noFollow.Post(url+"/pay", "application/x-www-form-urlencoded", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	s := f.fake.Sessions()[0]
	wantLoc := strings.ReplaceAll(successURL, "{CHECKOUT_SESSION_ID}", s.ID)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != wantLoc {
		t.Errorf("Pay answered %d to %q, want 303 to %q", resp.StatusCode, resp.Header.Get("Location"), wantLoc)
	}
	got := f.account(t, acc.ID)
	// The event's creation time, in whole seconds as Stripe gives it.
	if at := got.StripeSubscriptionAt; at.Before(paidFrom) || at.After(f.clock.Now()) || !at.Equal(at.Truncate(time.Second)) {
		t.Errorf("StripeSubscriptionAt = %v, want the event's time, in [%v, now]", at, paidFrom)
	}
	want := *acc
	want.Plan, want.StripeCustomerID, want.StripeSubscriptionID = account.Ultra, s.Customer, s.Subscription
	want.StripeSubscriptionAt = got.StripeSubscriptionAt
	if diff := cmp.Diff(&want, got); diff != "" {
		t.Errorf("account after paying (-want +got):\n%s", diff)
	}
	if !s.Paid {
		t.Error("the fake's session is not marked paid")
	}
	if logs := f.logs.String(); !strings.Contains(logs, "event_type=checkout.session.completed") ||
		!strings.Contains(logs, "account_id="+strconv.FormatInt(acc.ID, 10)) {
		t.Errorf("no INFO line for the event in the log:\n%s", logs)
	}

	// Then the subscription ends (cancelled in Stripe): back to Free.
	if err := f.fake.EndSubscription(context.Background(), s.ID); err != nil {
		t.Fatalf("EndSubscription: %v", err)
	}
	if got := f.account(t, acc.ID); got.Plan != account.Free {
		t.Errorf("plan after the subscription ended = %s, want free", got.Plan)
	}
}

// TestCoffeePaidThroughFakePage: a voluntary payment goes the same way as
// a plan of fixed price: the fake's page shows the amount chosen, its Pay
// button's signed event puts the account on Coffee, and the subscription's
// end puts it back on Free.
func TestCoffeePaidThroughFakePage(t *testing.T) {
	f := newFixture(t)
	acc := f.newAccount(t, "supporter@example.com")
	url, err := f.bill.Checkout(context.Background(), acc, account.Coffee, 450, successURL, cancelURL)
	if err != nil {
		t.Fatalf("Checkout: %v", err)
	}
	page, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	buf.ReadFrom(page.Body)
	page.Body.Close()
	if !strings.Contains(buf.String(), `<span id="amount">4.50 EUR a month</span>`) {
		t.Errorf("the checkout page does not show the amount chosen:\n%s", buf.String())
	}
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noFollow.Post(url+"/pay", "application/x-www-form-urlencoded", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	s := f.fake.Sessions()[0]
	if resp.StatusCode != http.StatusSeeOther || !s.Paid {
		t.Fatalf("Pay answered %d, session paid %v; want 303, paid", resp.StatusCode, s.Paid)
	}
	got := f.account(t, acc.ID)
	if got.Plan != account.Coffee || got.StripeCustomerID != s.Customer || got.StripeSubscriptionID != s.Subscription {
		t.Fatalf("after paying: plan %s, customer %q, subscription %q; want coffee, %q, %q",
			got.Plan, got.StripeCustomerID, got.StripeSubscriptionID, s.Customer, s.Subscription)
	}
	if err := f.fake.EndSubscription(context.Background(), s.ID); err != nil {
		t.Fatalf("EndSubscription: %v", err)
	}
	if got := f.account(t, acc.ID); got.Plan != account.Free {
		t.Errorf("plan after the subscription ended = %s, want free", got.Plan)
	}
}

func TestWebhookRefusesBadSignature(t *testing.T) {
	tests := []struct {
		name string
		sign func(f *fixture, body []byte) (sentBody []byte, header string)
	}{
		{"wrong secret", func(f *fixture, body []byte) ([]byte, string) {
			_, h := resign(t, "whsec_someone_else", body, f.clock.Now())
			return body, h
		}},
		{"tampered body", func(f *fixture, body []byte) ([]byte, string) {
			_, h := resign(t, webhookSecret, body, f.clock.Now())
			return bytes.Replace(body, []byte(`"plan":"ultra"`), []byte(`"plan":"pro"`), 1), h
		}},
		{"missing header", func(f *fixture, body []byte) ([]byte, string) { return body, "" }},
		{"garbage header", func(f *fixture, body []byte) ([]byte, string) { return body, "t=now,v1=zz" }},
		{"no v1 signature", func(f *fixture, body []byte) ([]byte, string) {
			return body, "t=" + strconv.FormatInt(f.clock.Now().Unix(), 10)
		}},
		{"stale timestamp", func(f *fixture, body []byte) ([]byte, string) {
			return resign(t, webhookSecret, body, f.clock.Now().Add(-6*time.Minute))
		}},
		// A delivery captured two hours ago, replayed with a fresh t= put
		// before its own: stripe-go verifies the last t=, the age was read
		// from the first.
		{"a fresh t= before the signed one", func(f *fixture, body []byte) ([]byte, string) {
			_, h := resign(t, webhookSecret, body, f.clock.Now().Add(-2*time.Hour))
			return body, "t=" + strconv.FormatInt(f.clock.Now().Unix(), 10) + "," + h
		}},
		{"a fresh t= after the signed one", func(f *fixture, body []byte) ([]byte, string) {
			_, h := resign(t, webhookSecret, body, f.clock.Now().Add(-2*time.Hour))
			return body, h + ",t=" + strconv.FormatInt(f.clock.Now().Unix(), 10)
		}},
		{"the signed t= twice", func(f *fixture, body []byte) ([]byte, string) {
			_, h := resign(t, webhookSecret, body, f.clock.Now())
			return body, strings.SplitN(h, ",", 2)[0] + "," + h
		}},
		{"timestamp in the future", func(f *fixture, body []byte) ([]byte, string) {
			return resign(t, webhookSecret, body, f.clock.Now().Add(6*time.Minute))
		}},
		{"timestamp a year ahead", func(f *fixture, body []byte) ([]byte, string) {
			return resign(t, webhookSecret, body, f.clock.Now().AddDate(1, 0, 0))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			acc := f.newAccount(t, "buyer@example.com")
			body, _ := stripetest.SignedEvent(t, webhookSecret, "checkout.session.completed",
				completedSession(acc, account.Ultra, "cus_1", "sub_1"))
			sent, header := tt.sign(f, body)
			status, resp := stripetest.SendEvent(t, f.hook, sent, header)
			if status != http.StatusBadRequest || strings.TrimSpace(resp) != `{"error":"invalid signature"}` {
				t.Errorf("%d %s, want 400 {\"error\":\"invalid signature\"}", status, resp)
			}
			if diff := cmp.Diff(acc, f.account(t, acc.ID)); diff != "" {
				t.Errorf("account changed (-before +after):\n%s", diff)
			}
		})
	}
}

// TestWebhookAcceptsClockSkew: a signature a little ahead of the server's
// clock (Stripe's clock and ours differ) or a little old is accepted.
func TestWebhookAcceptsClockSkew(t *testing.T) {
	for _, skew := range []time.Duration{-4 * time.Minute, 4 * time.Minute} {
		t.Run(skew.String(), func(t *testing.T) {
			f := newFixture(t)
			acc := f.newAccount(t, "buyer@example.com")
			body, sig := stripetest.SignedEventAt(t, webhookSecret, "checkout.session.completed",
				completedSession(acc, account.Ultra, "cus_1", "sub_1"), f.clock.Now().Add(skew))
			if status, resp := stripetest.SendEvent(t, f.hook, body, sig); status != http.StatusOK {
				t.Errorf("status = %d (%s), want 200", status, resp)
			}
			if got := f.account(t, acc.ID).Plan; got != account.Ultra {
				t.Errorf("plan = %s, want ultra", got)
			}
		})
	}
}

// TestWebhookMeasuresAgeOnItsClock: a signature fresh on the wall clock is
// stale for a server whose clock is ahead (the fake then signs on it too).
func TestWebhookMeasuresAgeOnItsClock(t *testing.T) {
	f := newFixture(t)
	acc := f.newAccount(t, "buyer@example.com")
	body, sig := stripetest.SignedEventAt(t, webhookSecret, "checkout.session.completed",
		completedSession(acc, account.Ultra, "cus_1", "sub_1"), time.Now())
	f.clock.Advance(7 * 24 * time.Hour)
	if status, resp := stripetest.SendEvent(t, f.hook, body, sig); status != http.StatusBadRequest {
		t.Errorf("status = %d (%s), want 400", status, resp)
	}
	if status, resp := f.send(t, "checkout.session.completed", completedSession(acc, account.Ultra, "cus_1", "sub_1")); status != http.StatusOK {
		t.Errorf("signed on the moved clock: status = %d (%s), want 200", status, resp)
	}
	if got := f.account(t, acc.ID).Plan; got != account.Ultra {
		t.Errorf("plan = %s, want ultra", got)
	}
}

// resign signs body as it is (stripetest.SignedEvent makes its own body).
func resign(t *testing.T, secret string, body []byte, at time.Time) ([]byte, string) {
	t.Helper()
	return body, stripetest.Signature(secret, body, at)
}

func TestWebhookEvents(t *testing.T) {
	type event struct {
		typ    string
		object func(acc *account.Account) any
		// retryOf, when not 0, makes the event Stripe's late retry of the
		// retryOf-th event of the case (counting from 1): the same body,
		// with its id and creation time, signed again now.
		retryOf int
	}
	retry := func(n int) event { return event{typ: "retry of event " + strconv.Itoa(n), retryOf: n} }
	completed := func(plan account.Plan, customer, sub string) event {
		return event{typ: "checkout.session.completed", object: func(acc *account.Account) any {
			return completedSession(acc, plan, customer, sub)
		}}
	}
	asyncPaid := func(plan account.Plan, customer, sub string) event {
		return event{typ: "checkout.session.async_payment_succeeded", object: func(acc *account.Account) any {
			return completedSession(acc, plan, customer, sub)
		}}
	}
	subEvent := func(typ, sub, customer, status string) event {
		return event{typ: typ, object: func(*account.Account) any { return stripetest.SubscriptionObject(sub, customer, status) }}
	}
	deleted := func(sub, customer string) event {
		return subEvent("customer.subscription.deleted", sub, customer, "canceled")
	}
	updated := func(sub, customer, status string) event {
		return subEvent("customer.subscription.updated", sub, customer, status)
	}
	edited := func(e event, edit func(m map[string]any)) event {
		return event{typ: e.typ, object: func(acc *account.Account) any {
			m := e.object(acc).(map[string]any)
			edit(m)
			return m
		}}
	}
	type state struct {
		plan          account.Plan
		customer, sub string
	}
	tests := []struct {
		name   string
		before state
		events []event
		want   state
	}{
		{"completed sets Ultra and the ids", state{account.Free, "", ""},
			[]event{completed(account.Ultra, "cus_1", "sub_1")}, state{account.Ultra, "cus_1", "sub_1"}},
		{"completed sets Pro", state{account.Free, "", ""},
			[]event{completed(account.Pro, "cus_1", "sub_1")}, state{account.Pro, "cus_1", "sub_1"}},
		{"completed twice is one change", state{account.Free, "", ""},
			[]event{completed(account.Ultra, "cus_1", "sub_1"), completed(account.Ultra, "cus_1", "sub_1")},
			state{account.Ultra, "cus_1", "sub_1"}},
		{"a new subscription replaces an old one", state{account.Pro, "cus_1", "sub_old"},
			[]event{completed(account.Ultra, "cus_1", "sub_new")}, state{account.Ultra, "cus_1", "sub_new"}},
		{"async payment success counts", state{account.Free, "", ""},
			[]event{asyncPaid(account.Ultra, "cus_1", "sub_1")}, state{account.Ultra, "cus_1", "sub_1"}},
		{"unpaid completion waits", state{account.Free, "", ""},
			[]event{edited(completed(account.Ultra, "cus_1", "sub_1"), func(m map[string]any) { m["payment_status"] = "unpaid" })},
			state{account.Free, "", ""}},
		{"a plan not sold in metadata is ignored", state{account.Free, "", ""},
			[]event{completed(account.Business, "cus_1", "sub_1")}, state{account.Free, "", ""}},
		{"metadata contradicting client_reference_id is ignored", state{account.Free, "", ""},
			[]event{edited(completed(account.Ultra, "cus_1", "sub_1"), func(m map[string]any) { m["client_reference_id"] = "999999" })},
			state{account.Free, "", ""}},
		{"a payment-mode session is not ours", state{account.Free, "", ""},
			[]event{edited(completed(account.Ultra, "cus_1", "sub_1"), func(m map[string]any) { m["mode"] = "payment" })},
			state{account.Free, "", ""}},
		{"expanded customer and subscription objects", state{account.Free, "", ""},
			[]event{edited(completed(account.Ultra, "", ""), func(m map[string]any) {
				m["customer"] = map[string]any{"id": "cus_x", "object": "customer"}
				m["subscription"] = map[string]any{"id": "sub_x", "object": "subscription"}
			})}, state{account.Ultra, "cus_x", "sub_x"}},

		{"deleted sets Free", state{account.Ultra, "cus_1", "sub_1"},
			[]event{deleted("sub_1", "cus_1")}, state{account.Free, "cus_1", "sub_1"}},
		{"updated to canceled sets Free", state{account.Pro, "cus_1", "sub_1"},
			[]event{updated("sub_1", "cus_1", "canceled")}, state{account.Free, "cus_1", "sub_1"}},
		{"updated to unpaid sets Free", state{account.Ultra, "cus_1", "sub_1"},
			[]event{updated("sub_1", "cus_1", "unpaid")}, state{account.Free, "cus_1", "sub_1"}},
		{"updated to incomplete_expired sets Free", state{account.Ultra, "cus_1", "sub_1"},
			[]event{updated("sub_1", "cus_1", "incomplete_expired")}, state{account.Free, "cus_1", "sub_1"}},
		{"updated to past_due keeps the plan", state{account.Ultra, "cus_1", "sub_1"},
			[]event{updated("sub_1", "cus_1", "past_due")}, state{account.Ultra, "cus_1", "sub_1"}},
		{"updated to active keeps the plan", state{account.Ultra, "cus_1", "sub_1"},
			[]event{updated("sub_1", "cus_1", "active")}, state{account.Ultra, "cus_1", "sub_1"}},
		{"an old subscription's end changes nothing", state{account.Ultra, "cus_1", "sub_new"},
			[]event{deleted("sub_old", "cus_1")}, state{account.Ultra, "cus_1", "sub_new"}},
		{"another customer's end changes nothing", state{account.Ultra, "cus_1", "sub_1"},
			[]event{deleted("sub_1", "cus_2")}, state{account.Ultra, "cus_1", "sub_1"}},
		{"a plan set by hand is kept at the end", state{account.Business, "cus_1", "sub_1"},
			[]event{deleted("sub_1", "cus_1")}, state{account.Business, "cus_1", "sub_1"}},
		{"a replayed completion after the end stays Free", state{account.Free, "", ""},
			[]event{completed(account.Ultra, "cus_1", "sub_1"), deleted("sub_1", "cus_1"), completed(account.Ultra, "cus_1", "sub_1")},
			state{account.Free, "cus_1", "sub_1"}},
		{"deleted twice", state{account.Ultra, "cus_1", "sub_1"},
			[]event{deleted("sub_1", "cus_1"), deleted("sub_1", "cus_1")}, state{account.Free, "cus_1", "sub_1"}},

		// Two subscriptions A (Pro) and B (Ultra), B bought after A, and
		// Stripe's retries arriving late (it does not keep events in order).
		{"a late retry of an older subscription's completion is ignored", state{account.Free, "", ""},
			[]event{completed(account.Pro, "cus_1", "sub_A"), completed(account.Ultra, "cus_1", "sub_B"), retry(1)},
			state{account.Ultra, "cus_1", "sub_B"}},
		{"the newer subscription's end after a late retry of the older one's completion sets Free", state{account.Free, "", ""},
			[]event{completed(account.Pro, "cus_1", "sub_A"), completed(account.Ultra, "cus_1", "sub_B"), retry(1), deleted("sub_B", "cus_1")},
			state{account.Free, "cus_1", "sub_B"}},
		{"the older subscription's end after a late retry of its completion keeps the newer plan", state{account.Free, "", ""},
			[]event{completed(account.Pro, "cus_1", "sub_A"), completed(account.Ultra, "cus_1", "sub_B"), retry(1), deleted("sub_A", "cus_1")},
			state{account.Ultra, "cus_1", "sub_B"}},
		{"a late retry of an ended subscription's completion after a new one is ignored", state{account.Free, "", ""},
			[]event{completed(account.Pro, "cus_1", "sub_A"), deleted("sub_A", "cus_1"), completed(account.Ultra, "cus_1", "sub_B"), retry(1)},
			state{account.Ultra, "cus_1", "sub_B"}},
		{"a late retry of an older async payment is ignored", state{account.Free, "", ""},
			[]event{asyncPaid(account.Pro, "cus_1", "sub_A"), completed(account.Ultra, "cus_1", "sub_B"), retry(1), deleted("sub_B", "cus_1")},
			state{account.Free, "cus_1", "sub_B"}},
		{"the newer subscription's end sets Free", state{account.Free, "", ""},
			[]event{completed(account.Pro, "cus_1", "sub_A"), completed(account.Ultra, "cus_1", "sub_B"), deleted("sub_B", "cus_1")},
			state{account.Free, "cus_1", "sub_B"}},
		{"the older subscription's end keeps the newer plan", state{account.Free, "", ""},
			[]event{completed(account.Pro, "cus_1", "sub_A"), completed(account.Ultra, "cus_1", "sub_B"), deleted("sub_A", "cus_1")},
			state{account.Ultra, "cus_1", "sub_B"}},
		{"a late retry of the current subscription's completion changes nothing", state{account.Free, "", ""},
			[]event{completed(account.Pro, "cus_1", "sub_A"), completed(account.Ultra, "cus_1", "sub_B"), retry(2)},
			state{account.Ultra, "cus_1", "sub_B"}},
		{"a new subscription after the old one ended", state{account.Free, "", ""},
			[]event{completed(account.Pro, "cus_1", "sub_A"), deleted("sub_A", "cus_1"), completed(account.Ultra, "cus_1", "sub_B")},
			state{account.Ultra, "cus_1", "sub_B"}},
		{"the same subscription ended then bought again", state{account.Free, "", ""},
			[]event{completed(account.Pro, "cus_1", "sub_A"), deleted("sub_A", "cus_1"), completed(account.Pro, "cus_1", "sub_B"),
				deleted("sub_B", "cus_1"), completed(account.Ultra, "cus_1", "sub_C")},
			state{account.Ultra, "cus_1", "sub_C"}},

		{"unknown types are ignored", state{account.Ultra, "cus_1", "sub_1"},
			[]event{
				{typ: "invoice.paid", object: func(*account.Account) any { return map[string]any{"id": "in_1", "customer": "cus_1"} }},
				{typ: "customer.created", object: func(*account.Account) any { return map[string]any{"id": "cus_1"} }},
			}, state{account.Ultra, "cus_1", "sub_1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			acc := f.newAccount(t, "buyer@example.com")
			acc.Plan, acc.StripeCustomerID, acc.StripeSubscriptionID = tt.before.plan, tt.before.customer, tt.before.sub
			f.update(t, acc)
			sent := make([][]byte, 0, len(tt.events))
			for _, e := range tt.events {
				// Stripe's events of one account are apart in time.
				f.clock.Advance(time.Minute)
				var body []byte
				if e.retryOf > 0 {
					body = sent[e.retryOf-1]
				} else {
					body, _ = stripetest.SignedEventAt(t, webhookSecret, e.typ, e.object(acc), f.clock.Now())
				}
				sent = append(sent, body)
				status, resp := stripetest.SendEvent(t, f.hook, body, stripetest.Signature(webhookSecret, body, f.clock.Now()))
				if status != http.StatusOK || strings.TrimSpace(resp) != `{"received":true}` {
					t.Fatalf("%s: %d %s, want 200 {\"received\":true}", e.typ, status, resp)
				}
			}
			want := *acc
			want.Plan, want.StripeCustomerID, want.StripeSubscriptionID = tt.want.plan, tt.want.customer, tt.want.sub
			// StripeSubscriptionAt is the events' creation time; the cases check what it decides.
			ignoreAt := cmpopts.IgnoreFields(account.Account{}, "StripeSubscriptionAt")
			if diff := cmp.Diff(&want, f.account(t, acc.ID), ignoreAt); diff != "" {
				t.Errorf("account (-want +got):\n%s", diff)
			}
		})
	}
}

// TestWebhookReplayOfTheSameEvent sends one signed body twice: the second
// delivery changes nothing (UpdateAccount is not even called).
func TestWebhookReplayOfTheSameEvent(t *testing.T) {
	var updates atomic.Int64
	f := newFixtureOn(t, func(st account.Store) account.Store { return &countingStore{Store: st, updates: &updates} })
	acc := f.newAccount(t, "buyer@example.com")
	body, sig := stripetest.SignedEventAt(t, webhookSecret, "checkout.session.completed",
		completedSession(acc, account.Ultra, "cus_1", "sub_1"), f.clock.Now())
	for i := range 2 {
		if status, resp := stripetest.SendEvent(t, f.hook, body, sig); status != http.StatusOK {
			t.Fatalf("delivery %d: %d %s", i+1, status, resp)
		}
	}
	if n := updates.Load(); n != 1 {
		t.Errorf("UpdateAccount called %d times for one event delivered twice, want 1", n)
	}
	if got := f.account(t, acc.ID).Plan; got != account.Ultra {
		t.Errorf("plan = %s, want ultra", got)
	}
}

type countingStore struct {
	account.Store
	updates *atomic.Int64
}

func (s *countingStore) UpdateAccount(ctx context.Context, a *account.Account) error {
	s.updates.Add(1)
	return s.Store.UpdateAccount(ctx, a)
}

// failingStore fails every account update, as a store that is down.
type failingStore struct{ account.Store }

func (failingStore) UpdateAccount(context.Context, *account.Account) error {
	return errors.New("disk on fire")
}

func TestWebhookStoreFailureAsksForRetry(t *testing.T) {
	f := newFixtureOn(t, func(st account.Store) account.Store { return failingStore{st} })
	acc := f.newAccount(t, "buyer@example.com")
	status, resp := f.send(t, "checkout.session.completed", completedSession(acc, account.Ultra, "cus_1", "sub_1"))
	if status != http.StatusInternalServerError {
		t.Errorf("status = %d (%s), want 500 so that Stripe retries", status, resp)
	}
	if strings.Contains(resp, "disk on fire") {
		t.Errorf("the internal error reached the client: %s", resp)
	}
}

func TestWebhookUnknownAccount(t *testing.T) {
	f := newFixture(t)
	acc := &account.Account{ID: 424242}
	for _, e := range []struct {
		typ string
		obj any
	}{
		{"checkout.session.completed", completedSession(acc, account.Ultra, "cus_1", "sub_1")},
		{"customer.subscription.deleted", stripetest.SubscriptionObject("sub_1", "cus_nobody", "canceled")},
	} {
		// Retrying cannot make the account appear: 200, not 500.
		if status, resp := f.send(t, e.typ, e.obj); status != http.StatusOK {
			t.Errorf("%s: %d %s, want 200", e.typ, status, resp)
		}
	}
}

func TestWebhookRequestShape(t *testing.T) {
	f := newFixture(t)
	resp, err := http.Get(f.hook)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET: %d, want 405", resp.StatusCode)
	}

	// Directly, not through the mux, which would answer GET itself.
	rec := httptest.NewRecorder()
	f.bill.Webhook().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/account/billing/stripe", nil))
	if rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("GET to the handler: %d, want 405", rec.Code)
	}

	big := bytes.Repeat([]byte("x"), 65<<10)
	if status, _ := stripetest.SendEvent(t, f.hook, big, stripetest.Signature(webhookSecret, big, f.clock.Now())); status != http.StatusRequestEntityTooLarge {
		t.Errorf("a 65 KiB body: %d, want 413", status)
	}
}
