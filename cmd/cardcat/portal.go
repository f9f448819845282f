package main

import (
	"crypto/tls"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/alerts"
	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/config"
	"github.com/cardcat/cardcat/internal/portal"
	"github.com/cardcat/cardcat/internal/portal/billing"
	portalmail "github.com/cardcat/cardcat/internal/portal/mail"
	"github.com/cardcat/cardcat/internal/ratelimit"
	"github.com/cardcat/cardcat/internal/serving"
	"github.com/cardcat/cardcat/internal/webhooks"
)

// portalConfig is the account portal's configuration: where its emails go
// out and how it takes payments (config.Portal: secrets from the
// environment only, never from flags).
type portalConfig struct {
	contact string                 // as portal.ParseContact takes it
	smtp    *portalmail.SMTPConfig // nil: emails are logged, not sent
	stripe  *billing.Config        // nil: no payments; the upgrade page names the contact
	// smtpTLS replaces the system's roots for the SMTP server's certificate
	// (tests, with their own server's).
	smtpTLS *tls.Config
	// alerts are the limits and checks of the Alerts and Webhooks pages.
	alerts config.AlertsConfig
}

// portalSettings is the portal's configuration of c's settings, refusing
// an incomplete one at start-up rather than at the first sign-up or payment.
func portalSettings(c *config.Config) (*portalConfig, error) {
	p := c.Portal
	if _, err := portal.ParseContact(p.Contact); err != nil {
		return nil, c.Invalid("contact", err)
	}
	pc := &portalConfig{contact: p.Contact, alerts: c.Alerts}
	if p.SMTPURL != "" {
		sc, err := portalmail.ParseSMTPURL(p.SMTPURL)
		if err != nil {
			return nil, c.Invalid("smtp-url", err)
		}
		if p.SMTPPassword != "" {
			sc.Password = p.SMTPPassword
		}
		pc.smtp = &sc
	} else if p.SMTPPassword != "" {
		return nil, config.Errorf("CARDCAT_SMTP_PASSWORD is set but CARDCAT_SMTP_URL is not")
	}
	if p.StripeSecretKey != "" || p.StripeWebhookSecret != "" || p.StripePricePro != "" || p.StripePriceUltra != "" || p.StripeAPIURL != "" {
		if p.StripeSecretKey == "" || p.StripeWebhookSecret == "" || p.StripePricePro == "" || p.StripePriceUltra == "" {
			return nil, config.Errorf("Stripe needs all of CARDCAT_STRIPE_SECRET_KEY, CARDCAT_STRIPE_WEBHOOK_SECRET, CARDCAT_STRIPE_PRICE_PRO and CARDCAT_STRIPE_PRICE_ULTRA (some are set, some are not)")
		}
		minimum, err := coffeeMinimum(p.CoffeeMinimum)
		if err != nil {
			return nil, c.Invalid("coffee-minimum", err)
		}
		pc.stripe = &billing.Config{SecretKey: p.StripeSecretKey, WebhookSecret: p.StripeWebhookSecret, BaseURL: p.StripeAPIURL,
			Prices:  map[account.Plan]string{account.Pro: p.StripePricePro, account.Ultra: p.StripePriceUltra},
			Minimum: minimum}
	}
	return pc, nil
}

// coffeeMinimum is the least a month of Coffee costs, from Stripe's
// smallest charge to the most a voluntary payment takes.
func coffeeMinimum(s string) (account.Cents, error) {
	minimum, err := account.ParseEUR(s)
	if err != nil {
		return 0, err
	}
	if minimum < billing.MinimumCharge || minimum > account.MaxVoluntary {
		return 0, fmt.Errorf("%s is not from %s (Stripe's smallest charge) to %s", minimum, billing.MinimumCharge, account.MaxVoluntary)
	}
	return minimum, nil
}

// servedSnapshot is the catalogue holder serves now; nil before one is
// loaded.
func servedSnapshot(holder *serving.Holder) func() *catalog.Snapshot {
	return func() *catalog.Snapshot {
		if v := holder.Current(); v != nil {
			return v.Snapshot
		}
		return nil
	}
}

// mailer is how the portal's emails, and the alerts', go out: through the
// SMTP server configured, or to log.
func (c *portalConfig) mailer(log *slog.Logger) portalmail.Mailer {
	if c.smtp == nil {
		return portalmail.LogMailer{Logger: log}
	}
	sc := *c.smtp
	if c.smtpTLS != nil {
		sc.TLSConfig = c.smtpTLS
	}
	return portalmail.NewSMTP(sc)
}

// openPortal builds the account portal on the account store, the API's
// limiter and key directory, and the usage meter; its Alerts and Webhooks
// pages when the store keeps alerts, checking cards against the catalogue
// served (catalogue).
func openPortal(c *portalConfig, st account.Store, lim ratelimit.Limiter, dir *account.Directory,
	usage *account.Meter, publicURL string, clientAddr func(*http.Request) string, now func() time.Time, log *slog.Logger,
	catalogue func() *catalog.Snapshot) (*portal.Portal, error) {
	mailer := c.mailer(log)
	if c.smtp != nil {
		log.Info("portal email", "smtp", *c.smtp)
	} else {
		log.Info("portal email: no CARDCAT_SMTP_URL set, so emails are not sent: each is logged with its link instead (fine on a laptop, not in production)")
	}
	deps := portal.Deps{
		Store:      st,
		Limiter:    lim,
		Mailer:     mailer,
		Usage:      usage,
		Keys:       dir,
		ClientAddr: clientAddr,
		Logger:     log,
		Now:        now,
		PublicURL:  publicURL,
	}
	if as, ok := st.(interface {
		alerts.Store
		alerts.EmailStore
		webhooks.Store
	}); ok {
		deps.Alerts = &portal.AlertsDeps{Store: as, Catalog: catalogue, BusinessMax: c.alerts.BusinessMax, AllowHTTP: c.alerts.AllowHTTP,
			EmailsPerHour: c.alerts.EmailsPerHour}
	}
	if c.stripe != nil {
		b, err := billing.New(*c.stripe, st, now, log)
		if err != nil {
			return nil, usageError{err.Error()}
		}
		deps.Billing = b
		log.Info("portal payments: Stripe Checkout for Coffee, Pro and Ultra", "webhook", publicURL+"/account/billing/stripe",
			"coffee_minimum", c.stripe.Minimum.String())
	} else {
		log.Info("portal payments: none configured; the upgrade page asks visitors to contact the operator", "contact", c.contact)
	}
	if c.contact == "" {
		log.Info("portal contact: none set (CARDCAT_CONTACT); the portal tells visitors that no contact is listed")
	}
	return portal.New(portal.Config{Contact: c.contact}, deps)
}
