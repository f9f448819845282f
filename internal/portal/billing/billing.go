// Package billing sells the Coffee, Pro and Ultra plans through Stripe
// (issues 14 and 27): Checkout sessions to pay, monthly, and the webhook that
// changes an account's plan when a checkout completes and sets it back to
// Free when its subscription ends. Pro and Ultra have the operator's Stripe
// prices; Coffee is a voluntary payment, its monthly amount chosen by the
// buyer (at least the operator's minimum) and sent as the session's
// price_data. Stripe is reached with stripe-go; tests point it at the fake
// of package stripetest.
package billing

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/stripe/stripe-go/v82"

	"github.com/cardcat/cardcat/internal/account"
)

// WebhookRoute is where Stripe is told to send its events.
const WebhookRoute = "POST /account/billing/stripe"

// ErrNotSold is returned by Checkout for a plan not bought by card
// (account.Plan.Checkout: Coffee, Pro and Ultra are; Business is on contact,
// Early Access closed, Free free).
var ErrNotSold = errors.New("billing: plan not sold by checkout")

// ErrAmount is returned by Checkout for an amount the plan does not take:
// one outside account.CheckVoluntary's bounds for Coffee (then it also
// wraps account.ErrBelowMinimum when too low), any for a plan of fixed
// price.
var ErrAmount = errors.New("billing: amount not taken")

// MinimumCharge is the smallest amount Stripe charges in EUR; a lower
// minimum for Coffee could not be paid.
const MinimumCharge account.Cents = 50

// currency is what every plan is priced in.
const currency = stripe.CurrencyEUR

// Metadata keys put on a Checkout Session (and its subscription), read back
// by the webhook.
const (
	metaAccountID = "account_id"
	metaPlan      = "plan"
)

// Config is the operator's Stripe set-up.
type Config struct {
	SecretKey     string                  // the API key (sk_...)
	WebhookSecret string                  // the webhook endpoint's signing secret (whsec_...)
	Prices        map[account.Plan]string // a recurring Stripe price id per plan of fixed price bought by card (Pro, Ultra)
	// Minimum is the least a month of a voluntary payment (Coffee) may be,
	// from MinimumCharge to account.MaxVoluntary.
	Minimum account.Cents
	BaseURL string // API base; "" = Stripe's (tests point it at stripetest)
}

// Stripe creates Checkout Sessions and applies Stripe's webhook events to the
// accounts of a store.
type Stripe struct {
	client        *stripe.Client
	webhookSecret string
	prices        map[account.Plan]string // the plans of fixed price
	voluntary     map[account.Plan]bool   // the plans of an amount the buyer chooses
	minimum       account.Cents           // of those
	origin        string                  // of the Checkout pages: Stripe's, or the fake's in tests
	store         account.Store
	now           func() time.Time
	log           *slog.Logger

	// mu serialises the webhook's read-modify-write of an account, since
	// Stripe may deliver a completion and a cancellation at once.
	mu sync.Mutex
}

// New checks cfg and returns a Stripe on the store. now is the clock the
// webhook's signature age is measured with.
func New(cfg Config, st account.Store, now func() time.Time, log *slog.Logger) (*Stripe, error) {
	switch {
	case cfg.SecretKey == "":
		return nil, errors.New("billing: no Stripe secret key")
	case cfg.WebhookSecret == "":
		return nil, errors.New("billing: no Stripe webhook secret")
	case st == nil:
		return nil, errors.New("billing: no account store")
	}
	prices := make(map[account.Plan]string)
	voluntary := make(map[account.Plan]bool)
	for _, p := range account.Plans() {
		switch {
		case !p.Checkout():
			continue
		case p.Voluntary():
			voluntary[p] = true
			continue
		}
		if cfg.Prices[p] == "" {
			return nil, fmt.Errorf("billing: no Stripe price for plan %s", p)
		}
		prices[p] = cfg.Prices[p]
	}
	for p := range cfg.Prices {
		if _, ok := prices[p]; !ok {
			return nil, fmt.Errorf("billing: a Stripe price for plan %s, which is not sold by checkout at a fixed price", p)
		}
	}
	if len(voluntary) > 0 && (cfg.Minimum < MinimumCharge || cfg.Minimum > account.MaxVoluntary) {
		return nil, fmt.Errorf("billing: the minimum of a voluntary payment is %s; it must be from %s (Stripe's smallest charge) to %s",
			cfg.Minimum, MinimumCharge, account.MaxVoluntary)
	}
	if now == nil {
		now = time.Now
	}
	if log == nil {
		log = slog.Default()
	}
	bc := &stripe.BackendConfig{
		HTTPClient:    &http.Client{Timeout: 30 * time.Second},
		LeveledLogger: stripeLogger{log},
	}
	if cfg.BaseURL != "" {
		bc.URL = stripe.String(cfg.BaseURL)
	}
	client := stripe.NewClient(cfg.SecretKey, stripe.WithBackends(stripe.NewBackendsWithConfig(bc)))
	origin := stripeCheckoutOrigin
	if cfg.BaseURL != "" {
		u, err := url.Parse(cfg.BaseURL)
		if err != nil || u.Host == "" {
			return nil, fmt.Errorf("billing: Stripe API URL %q is not an absolute URL", cfg.BaseURL)
		}
		origin = u.Scheme + "://" + u.Host
	}
	return &Stripe{
		origin:        origin,
		client:        client,
		webhookSecret: cfg.WebhookSecret,
		prices:        prices,
		voluntary:     voluntary,
		minimum:       cfg.Minimum,
		store:         st,
		now:           now,
		log:           log,
	}, nil
}

// stripeCheckoutOrigin serves Stripe's hosted Checkout pages.
const stripeCheckoutOrigin = "https://checkout.stripe.com"

// CheckoutOrigin is the origin of the pages Checkout sends visitors to, which
// the portal's form-action policy must allow (the checkout form redirects
// there). With a BaseURL (a fake Stripe) it is that server's.
func (s *Stripe) CheckoutOrigin() string { return s.origin }

// Sells reports whether Checkout sells plan p (the plans bought by card).
func (s *Stripe) Sells(p account.Plan) bool {
	_, ok := s.prices[p]
	return ok || s.voluntary[p]
}

// Minimum is the least a month of a voluntary payment (Coffee) may be.
func (s *Stripe) Minimum() account.Cents { return s.minimum }

// Checkout creates a subscription-mode Checkout Session for acc to buy plan
// and returns the URL to send the browser to. amount is what the buyer
// chose to pay a month for a plan of voluntary payment (Coffee), checked
// with account.CheckVoluntary against the minimum; it is 0 for a plan of
// fixed price. Stripe sends the browser back to successURL or cancelURL;
// the plan changes only when the webhook hears the checkout completed.
func (s *Stripe) Checkout(ctx context.Context, acc *account.Account, plan account.Plan, amount account.Cents, successURL, cancelURL string) (string, error) {
	if !s.Sells(plan) {
		return "", fmt.Errorf("%w: %s", ErrNotSold, plan)
	}
	if acc == nil || acc.ID == 0 {
		return "", errors.New("billing: checkout: no account")
	}
	item, err := s.lineItem(plan, amount)
	if err != nil {
		return "", err
	}
	id := strconv.FormatInt(acc.ID, 10)
	meta := map[string]string{metaAccountID: id, metaPlan: string(plan)}
	params := &stripe.CheckoutSessionCreateParams{
		Mode:              stripe.String(string(stripe.CheckoutSessionModeSubscription)),
		LineItems:         []*stripe.CheckoutSessionCreateLineItemParams{item},
		ClientReferenceID: stripe.String(id),
		Metadata:          meta,
		// The subscription carries them too, so the operator sees in
		// Stripe's dashboard which account a subscription pays for.
		SubscriptionData: &stripe.CheckoutSessionCreateSubscriptionDataParams{Metadata: meta},
		SuccessURL:       stripe.String(successURL),
		CancelURL:        stripe.String(cancelURL),
	}
	if acc.StripeCustomerID != "" {
		// A returning customer keeps one Stripe customer (and its cards).
		params.Customer = stripe.String(acc.StripeCustomerID)
	} else {
		params.CustomerEmail = stripe.String(acc.Email)
	}
	sess, err := s.client.V1CheckoutSessions.Create(ctx, params)
	if err != nil {
		return "", fmt.Errorf("billing: checkout for account %d: %w", acc.ID, err)
	}
	if sess.URL == "" {
		return "", fmt.Errorf("billing: checkout for account %d: Stripe gave no session URL", acc.ID)
	}
	return sess.URL, nil
}

// lineItem is what plan's checkout buys: the operator's price of a plan of
// fixed price, or for a voluntary payment a monthly price of amount made
// with the session (price_data: Stripe keeps it as a price of its own).
func (s *Stripe) lineItem(plan account.Plan, amount account.Cents) (*stripe.CheckoutSessionCreateLineItemParams, error) {
	if price, ok := s.prices[plan]; ok {
		if amount != 0 {
			return nil, fmt.Errorf("%w: %s for plan %s, whose price is fixed", ErrAmount, amount, plan)
		}
		return &stripe.CheckoutSessionCreateLineItemParams{Price: stripe.String(price), Quantity: stripe.Int64(1)}, nil
	}
	if err := account.CheckVoluntary(amount, s.minimum); err != nil {
		return nil, fmt.Errorf("%w: %s for plan %s: %w", ErrAmount, amount, plan, err)
	}
	return &stripe.CheckoutSessionCreateLineItemParams{
		PriceData: &stripe.CheckoutSessionCreateLineItemPriceDataParams{
			Currency:   stripe.String(string(currency)),
			UnitAmount: stripe.Int64(int64(amount)),
			Recurring: &stripe.CheckoutSessionCreateLineItemPriceDataRecurringParams{
				Interval: stripe.String(string(stripe.PriceRecurringIntervalMonth)),
			},
			ProductData: &stripe.CheckoutSessionCreateLineItemPriceDataProductDataParams{
				Name: stripe.String(plan.Name() + " plan (voluntary payment)"),
			},
		},
		Quantity: stripe.Int64(1),
	}, nil
}

// stripeLogger passes stripe-go's warnings and errors to slog. Its info and
// debug lines are dropped: the debug ones carry whole response bodies.
type stripeLogger struct{ log *slog.Logger }

func (l stripeLogger) Debugf(string, ...any) {}
func (l stripeLogger) Infof(string, ...any)  {}
func (l stripeLogger) Warnf(format string, v ...any) {
	l.log.Warn("stripe-go", "msg", fmt.Sprintf(format, v...))
}
func (l stripeLogger) Errorf(format string, v ...any) {
	l.log.Warn("stripe-go", "msg", fmt.Sprintf(format, v...))
}
