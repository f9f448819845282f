package main

import (
	"crypto/tls"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"net/mail"
	"strings"
	"time"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/portal"
	"github.com/cardcat/cardcat/internal/portal/billing"
	portalmail "github.com/cardcat/cardcat/internal/portal/mail"
	"github.com/cardcat/cardcat/internal/ratelimit"
)

// portalConfig is the account portal's configuration: where its emails go
// out and how it takes payments. Secrets come from the environment only
// (NAME or NAME_FILE), never from flags, which other users of the machine
// can read in the process list.
type portalConfig struct {
	contactEmail string
	smtp         *portalmail.SMTPConfig // nil: emails are logged, not sent
	stripe       *billing.Config        // nil: no payments; the upgrade page names the contact
	// smtpTLS replaces the system's roots for the SMTP server's certificate
	// (tests, with their own server's).
	smtpTLS *tls.Config
}

// The portal's settings.
const (
	envContactEmail   = "CARDCAT_CONTACT_EMAIL"
	envSMTPURL        = "CARDCAT_SMTP_URL"
	envSMTPPassword   = "CARDCAT_SMTP_PASSWORD"
	envStripeKey      = "CARDCAT_STRIPE_SECRET_KEY"
	envStripeWebhook  = "CARDCAT_STRIPE_WEBHOOK_SECRET"
	envStripePricePro = "CARDCAT_STRIPE_PRICE_PRO"
	envStripePriceUlt = "CARDCAT_STRIPE_PRICE_ULTRA"
	envStripeAPIURL   = "CARDCAT_STRIPE_API_URL"
)

// addPortalFlags registers --contact-email and reads the portal's secrets
// and payment settings from the environment, refusing an incomplete
// configuration at start-up rather than at the first sign-up or payment.
func addPortalFlags(fs *flag.FlagSet, env *Env) (*portalConfig, error) {
	c := &portalConfig{}
	fs.StringVar(&c.contactEmail, "contact-email", envOr(env.Getenv, envContactEmail, ""),
		"address the portal gives for Business plans and, without Stripe, for every upgrade (env "+envContactEmail+")")

	smtpURL, err := envSecret(env.Getenv, envSMTPURL)
	if err != nil {
		return nil, err
	}
	smtpPassword, err := envSecret(env.Getenv, envSMTPPassword)
	if err != nil {
		return nil, err
	}
	if smtpURL != "" {
		sc, err := portalmail.ParseSMTPURL(smtpURL)
		if err != nil {
			return nil, usageError{envSMTPURL + ": " + err.Error()}
		}
		if smtpPassword != "" {
			sc.Password = smtpPassword
		}
		c.smtp = &sc
	} else if smtpPassword != "" {
		return nil, usageError{envSMTPPassword + " is set but " + envSMTPURL + " is not"}
	}

	key, err := envSecret(env.Getenv, envStripeKey)
	if err != nil {
		return nil, err
	}
	hook, err := envSecret(env.Getenv, envStripeWebhook)
	if err != nil {
		return nil, err
	}
	pro, ultra := strings.TrimSpace(env.Getenv(envStripePricePro)), strings.TrimSpace(env.Getenv(envStripePriceUlt))
	apiURL := strings.TrimSpace(env.Getenv(envStripeAPIURL))
	switch {
	case key != "" || hook != "" || pro != "" || ultra != "" || apiURL != "":
		if key == "" || hook == "" || pro == "" || ultra == "" {
			return nil, usageError{fmt.Sprintf("Stripe needs all of %s, %s, %s and %s (some are set, some are not)",
				envStripeKey, envStripeWebhook, envStripePricePro, envStripePriceUlt)}
		}
		c.stripe = &billing.Config{SecretKey: key, WebhookSecret: hook, BaseURL: apiURL,
			Prices: map[account.Plan]string{account.Pro: pro, account.Ultra: ultra}}
	}
	return c, nil
}

// validate checks what only parsing all flags can tell.
func (c *portalConfig) validate() error {
	if c.contactEmail != "" {
		if _, err := mail.ParseAddress(c.contactEmail); err != nil {
			return usageError{fmt.Sprintf("--contact-email %q is not an email address", c.contactEmail)}
		}
	}
	return nil
}

// openPortal builds the account portal on the account store, the API's
// limiter and key directory, and the usage meter.
func openPortal(c *portalConfig, st account.Store, lim ratelimit.Limiter, dir *account.Directory,
	usage *account.Meter, publicURL string, clientAddr func(*http.Request) string, now func() time.Time, log *slog.Logger) (*portal.Portal, error) {
	var mailer portalmail.Mailer
	if c.smtp != nil {
		sc := *c.smtp
		if c.smtpTLS != nil {
			sc.TLSConfig = c.smtpTLS
		}
		mailer = portalmail.NewSMTP(sc)
		log.Info("portal email", "smtp", sc)
	} else {
		mailer = portalmail.LogMailer{Logger: log}
		log.Info("portal email: no " + envSMTPURL + " set, so emails are not sent: each is logged with its link instead (fine on a laptop, not in production)")
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
	if c.stripe != nil {
		b, err := billing.New(*c.stripe, st, now, log)
		if err != nil {
			return nil, usageError{err.Error()}
		}
		deps.Billing = b
		log.Info("portal payments: Stripe Checkout for Pro and Ultra", "webhook", publicURL+"/account/billing/stripe")
	} else {
		log.Info("portal payments: none configured; the upgrade page asks visitors to contact the operator", "contact", c.contactEmail)
	}
	return portal.New(portal.Config{ContactEmail: c.contactEmail}, deps)
}
