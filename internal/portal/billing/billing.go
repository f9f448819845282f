// Package billing sells the Pro and Ultra plans through Stripe (issue 14):
// Checkout sessions to pay, and the webhook that changes an account's plan
// when a checkout completes and sets it back to Free when its subscription
// ends. Stripe is reached with stripe-go; tests point it at the fake of
// package stripetest.
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
// (account.Plan.Checkout: Pro and Ultra are; Business is on contact, Coffee
// a voluntary payment, Early Access closed, Free free).
var ErrNotSold = errors.New("billing: plan not sold by checkout")

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
	Prices        map[account.Plan]string // a recurring Stripe price id per plan bought by card (Pro, Ultra)
	BaseURL       string                  // API base; "" = Stripe's (tests point it at stripetest)
}

// Stripe creates Checkout Sessions and applies Stripe's webhook events to the
// accounts of a store.
type Stripe struct {
	client        *stripe.Client
	webhookSecret string
	prices        map[account.Plan]string
	origin        string // of the Checkout pages: Stripe's, or the fake's in tests
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
	for _, p := range account.Plans() {
		if !p.Checkout() {
			continue
		}
		if cfg.Prices[p] == "" {
			return nil, fmt.Errorf("billing: no Stripe price for plan %s", p)
		}
		prices[p] = cfg.Prices[p]
	}
	for p := range cfg.Prices {
		if _, ok := prices[p]; !ok {
			return nil, fmt.Errorf("billing: a Stripe price for plan %s, which is not sold by checkout", p)
		}
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
	return ok
}

// Checkout creates a subscription-mode Checkout Session for acc to buy plan
// and returns the URL to send the browser to. Stripe sends it back to
// successURL or cancelURL; the plan changes only when the webhook hears the
// checkout completed.
func (s *Stripe) Checkout(ctx context.Context, acc *account.Account, plan account.Plan, successURL, cancelURL string) (string, error) {
	price, ok := s.prices[plan]
	if !ok {
		return "", fmt.Errorf("%w: %s", ErrNotSold, plan)
	}
	if acc == nil || acc.ID == 0 {
		return "", errors.New("billing: checkout: no account")
	}
	id := strconv.FormatInt(acc.ID, 10)
	meta := map[string]string{metaAccountID: id, metaPlan: string(plan)}
	params := &stripe.CheckoutSessionCreateParams{
		Mode: stripe.String(string(stripe.CheckoutSessionModeSubscription)),
		LineItems: []*stripe.CheckoutSessionCreateLineItemParams{
			{Price: stripe.String(price), Quantity: stripe.Int64(1)},
		},
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
