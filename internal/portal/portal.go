// Package portal is the developer portal under /account/: sign-up, email
// verification, login and sessions, API keys, usage, the trial and the
// upgrade to a paid plan. Its pages are server-rendered html/template that
// work without JavaScript; its forms POST, guarded against cross-site
// requests by net/http's CrossOriginProtection and SameSite cookies.
//
// It stands on internal/account (accounts, keys, plans, trials, usage) and
// never on the REST API's internals: httpapi only hands it every request
// under /account/ (Deps.Portal there), uncounted.
package portal

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"
	"unicode"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/alerts"
	"github.com/cardcat/cardcat/internal/portal/mail"
	"github.com/cardcat/cardcat/internal/ratelimit"
)

// Config holds the portal's tunables; zero values take the defaults.
type Config struct {
	// SessionIdle ends a session nobody used for this long. Default 24 h.
	SessionIdle time.Duration
	// SessionMax ends any session this long after login. Default 30 days.
	SessionMax time.Duration
	// VerifyTTL and ResetTTL are how long an emailed link works. Defaults
	// 24 h and 1 h.
	VerifyTTL, ResetTTL time.Duration
	// Contact is how visitors reach the operator (Business plans, and
	// every upgrade when no payment provider is configured): an email
	// address or an http(s) URL, as ParseContact reads it; "" for none, and
	// the pages then say that none is listed.
	Contact string
}

func (c Config) withDefaults() Config {
	if c.SessionIdle <= 0 {
		c.SessionIdle = 24 * time.Hour
	}
	if c.SessionMax <= 0 {
		c.SessionMax = 30 * 24 * time.Hour
	}
	if c.VerifyTTL <= 0 {
		c.VerifyTTL = 24 * time.Hour
	}
	if c.ResetTTL <= 0 {
		c.ResetTTL = time.Hour
	}
	return c
}

// Billing takes payments for paid plans (billing.Stripe is the one).
type Billing interface {
	// Checkout starts a monthly payment for plan and returns the page to
	// send the visitor to. amount is what the visitor chose to pay a month
	// for a plan of voluntary payment (account.Plan.Voluntary: Coffee),
	// already checked against Minimum; 0 for the others.
	Checkout(ctx context.Context, acc *account.Account, plan account.Plan, amount account.Cents, successURL, cancelURL string) (string, error)
	// Minimum is the least a month of a voluntary payment may be.
	Minimum() account.Cents
	// Webhook receives the payment provider's events
	// (POST /account/billing/stripe).
	Webhook() http.Handler
	// CheckoutOrigin is the origin of the pages Checkout returns, which the
	// Content-Security-Policy's form-action must allow (a form's redirect
	// counts).
	CheckoutOrigin() string
}

// Deps are what the portal needs from the rest of the program.
type Deps struct {
	Store account.Store
	// Limiter throttles login attempts per client address and per account,
	// and reports the pool's live use on the dashboard. Nil turns both off.
	Limiter ratelimit.Limiter
	// Mailer sends verification and reset emails (mail.LogMailer when no
	// SMTP is configured: the pages then say that the links are in the
	// server's log).
	Mailer mail.Mailer
	// Billing is nil when no payment provider is configured: the upgrade
	// page then tells visitors how to reach the operator.
	Billing Billing
	// Usage, when set, is flushed before the usage page reads the store, so
	// that this replica's last seconds of traffic show.
	Usage interface {
		Flush(ctx context.Context) error
	}
	// Keys, when set, is refreshed after a key or plan change, so that this
	// replica applies it at once (the others within their refresh interval).
	Keys interface {
		Refresh(ctx context.Context) error
	}
	// ClientAddr names the client of a request for the login throttle (the
	// API's trusted-proxy rule); the peer's address when nil.
	ClientAddr func(r *http.Request) string
	Logger     *slog.Logger
	Now        func() time.Time
	// PublicURL is the base URL visitors use (no trailing slash): emailed
	// links and the cookie's Secure flag derive from it.
	PublicURL string
	// Alerts, when set, serves the Alerts and Webhooks pages (alerts.go,
	// webhooks.go); nil for a store that keeps no alerts.
	Alerts *AlertsDeps
}

// Portal serves every page under /account/.
type Portal struct {
	cfg     Config
	contact *Contact // nil: none given
	// mailLog is the message of the log lines that hold the emails' links
	// when no email is sent (mail.NotSent); "" when emails are sent.
	mailLog string
	deps    Deps
	log     *slog.Logger
	now     func() time.Time
	secure  bool // the public URL is https: Secure cookies with the __Host- prefix
	pages   *pages
	handler http.Handler
	mux     *http.ServeMux
	csp     string
}

// New returns the portal.
func New(cfg Config, deps Deps) (*Portal, error) {
	if deps.Store == nil || deps.Mailer == nil {
		return nil, errors.New("portal: Deps.Store and Deps.Mailer are required")
	}
	u, err := url.Parse(deps.PublicURL)
	if err != nil || u.Host == "" {
		return nil, errors.New("portal: Deps.PublicURL must be an absolute URL")
	}
	contact, err := ParseContact(cfg.Contact)
	if err != nil {
		return nil, fmt.Errorf("portal: Config.Contact: %w", err)
	}
	p := &Portal{cfg: cfg.withDefaults(), contact: contact, deps: deps, log: deps.Logger, now: deps.Now, secure: u.Scheme == "https"}
	if mail.LogOnly(deps.Mailer) {
		p.mailLog = mail.NotSent
	}
	if p.log == nil {
		p.log = slog.New(slog.DiscardHandler)
	}
	if p.now == nil {
		p.now = time.Now
	}
	if p.deps.ClientAddr == nil {
		p.deps.ClientAddr = peerAddr
	}
	if p.pages, err = parsePages(); err != nil {
		return nil, err
	}
	formAction := "'self'"
	if deps.Billing != nil {
		formAction += " " + deps.Billing.CheckoutOrigin()
	}
	// No inline script or style anywhere: everything is a vendored file
	// under /account/static/, charts are SVG attributes.
	p.csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
		"form-action " + formAction + "; frame-ancestors 'none'; base-uri 'none'"
	csrf := http.NewCrossOriginProtection()
	csrf.SetDenyHandler(http.HandlerFunc(p.crossOrigin))
	mux := p.routes()
	p.mux = mux
	// The Stripe webhook is a cross-site POST by design, verified by its
	// signature instead; so is an alert email's one-click unsubscribe, whose
	// token is its authority (unsubscribe.go).
	guarded := csrf.Handler(mux)
	p.handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.securityHeaders(w)
		if !cleanPath(r.URL.Path) {
			// The mux would redirect to the cleaned path: /account/static/../x
			// is no page of the portal's, and must not lead to one.
			p.notFound(w, r)
			return
		}
		if r.URL.Path == webhookPath || r.URL.Path == alerts.UnsubscribePath {
			mux.ServeHTTP(w, r)
			return
		}
		guarded.ServeHTTP(w, r)
	})
	return p, nil
}

// ServeHTTP serves a request under /account/.
func (p *Portal) ServeHTTP(w http.ResponseWriter, r *http.Request) { p.handler.ServeHTTP(w, r) }

const webhookPath = "/account/billing/stripe"

// routes is every page of the portal, in one place.
func (p *Portal) routes() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /account/static/{file}", p.static)
	mux.HandleFunc("GET /account", p.redirectToDashboard)

	// Accounts and sessions (auth.go).
	mux.HandleFunc("GET /account/signup", p.signupPage)
	mux.HandleFunc("POST /account/signup", p.signup)
	mux.HandleFunc("GET /account/verify", p.verifyPage)
	mux.HandleFunc("POST /account/verify", p.verify)
	mux.HandleFunc("GET /account/verify/resend", p.resendPage)
	mux.HandleFunc("POST /account/verify/resend", p.resendVerification)
	mux.HandleFunc("GET /account/login", p.loginPage)
	mux.HandleFunc("POST /account/login", p.login)
	mux.HandleFunc("POST /account/logout", p.logout)
	mux.HandleFunc("GET /account/reset", p.resetPage)
	mux.HandleFunc("POST /account/reset", p.reset)
	mux.HandleFunc("GET /account/reset/confirm", p.resetConfirmPage)
	mux.HandleFunc("POST /account/reset/confirm", p.resetConfirm)
	mux.HandleFunc("GET /account/settings", p.requireLogin(p.settingsPage))
	mux.HandleFunc("POST /account/settings/password", p.requireLogin(p.changePassword))
	mux.HandleFunc("POST /account/settings/delete", p.requireLogin(p.deleteAccount))

	// What a logged-in developer sees (pages.go and beside it).
	mux.HandleFunc("GET /account/{$}", p.requireLogin(p.dashboard))
	mux.HandleFunc("GET /account/keys", p.requireLogin(p.keysPage))
	mux.HandleFunc("POST /account/keys", p.requireLogin(p.createKey))
	mux.HandleFunc("POST /account/keys/{id}/revoke", p.requireLogin(p.revokeKey))
	mux.HandleFunc("GET /account/usage", p.requireLogin(p.usagePage))
	mux.HandleFunc("GET /account/trial", p.requireLogin(p.trialPage))
	mux.HandleFunc("POST /account/trial", p.requireLogin(p.startTrial))
	// The plan table is public: a visitor compares plans before signing up.
	mux.HandleFunc("GET /account/upgrade", p.withOptionalLogin(p.upgradePage))
	mux.HandleFunc("POST /account/upgrade", p.requireLogin(p.checkout))
	mux.HandleFunc("POST "+webhookPath, p.webhook)

	// Price alerts and their webhooks (alerts.go, webhooks.go).
	if p.alertsOn() {
		mux.HandleFunc("GET /account/alerts", p.requireLogin(p.alertsPage))
		mux.HandleFunc("POST /account/alerts", p.requireLogin(p.createAlert))
		mux.HandleFunc("GET /account/alerts/{id}", p.requireLogin(p.editAlertPage))
		mux.HandleFunc("POST /account/alerts/{id}", p.requireLogin(p.updateAlert))
		mux.HandleFunc("POST /account/alerts/{id}/pause", p.requireLogin(p.pauseAlert(true)))
		mux.HandleFunc("POST /account/alerts/{id}/resume", p.requireLogin(p.pauseAlert(false)))
		mux.HandleFunc("POST /account/alerts/{id}/delete", p.requireLogin(p.deleteAlert))
		// The alert emails' unsubscribe link: no login, the token is the
		// authority (unsubscribe.go).
		mux.HandleFunc("GET "+alerts.UnsubscribePath, p.withOptionalLogin(p.unsubscribePage))
		mux.HandleFunc("POST "+alerts.UnsubscribePath, p.withOptionalLogin(p.unsubscribe))
		mux.HandleFunc("GET /account/webhooks", p.requireLogin(p.webhooksPage))
		mux.HandleFunc("POST /account/webhooks", p.requireLogin(p.createWebhook))
		mux.HandleFunc("GET /account/webhooks/{id}", p.requireLogin(p.webhookPage))
		mux.HandleFunc("POST /account/webhooks/{id}/rotate", p.requireLogin(p.rotateSecret))
		mux.HandleFunc("POST /account/webhooks/{id}/test", p.requireLogin(p.testWebhook))
		mux.HandleFunc("POST /account/webhooks/{id}/delete", p.requireLogin(p.deleteWebhook))
		mux.HandleFunc("POST /account/webhooks/{id}/deliveries/{delivery}/resend", p.requireLogin(p.resendDelivery))
		mux.HandleFunc("POST /account/webhooks/{id}/subscriptions", p.requireLogin(p.createSubscription))
		mux.HandleFunc("POST /account/webhooks/{id}/subscriptions/{sub}/delete", p.requireLogin(p.deleteSubscription))
	}

	mux.HandleFunc("/account", p.noRoute)
	mux.HandleFunc("/account/", p.noRoute)
	return mux
}

// probedMethods are the methods an Allow header can list, in its order.
var probedMethods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

// noRoute answers a request no route took: 405 with Allow when a route has
// its path for other methods, 404 otherwise.
func (p *Portal) noRoute(w http.ResponseWriter, r *http.Request) {
	var allow []string
	for _, m := range probedMethods {
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := p.mux.Handler(probe); pattern != "/account" && pattern != "/account/" {
			allow = append(allow, m)
		}
	}
	if len(allow) == 0 {
		p.notFound(w, r)
		return
	}
	w.Header().Set("Allow", strings.Join(allow, ", "))
	p.render(w, r, http.StatusMethodNotAllowed, "error", pageData{Title: "Method not allowed",
		Error: "This page of the account portal does not take " + r.Method + " requests."})
}

// cleanPath reports whether path is in the form the mux routes without a
// redirect: no "." or ".." element, no empty one.
func cleanPath(p string) bool {
	c := path.Clean(p)
	if strings.HasSuffix(p, "/") && c != "/" {
		c += "/"
	}
	return c == p
}

// securityHeaders are sent with every portal answer.
func (p *Portal) securityHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Security-Policy", p.csp)
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
}

// crossOrigin answers a form posted from another site.
func (p *Portal) crossOrigin(w http.ResponseWriter, r *http.Request) {
	p.render(w, r, http.StatusForbidden, "error", pageData{Title: "Request refused",
		Error: "This form was sent from another site, so it was refused. Open the page on this site and send it again."})
}

func (p *Portal) notFound(w http.ResponseWriter, r *http.Request) {
	p.render(w, r, http.StatusNotFound, "error", pageData{Title: "Page not found",
		Error: "There is no such page in the account portal."})
}

func (p *Portal) redirectToDashboard(w http.ResponseWriter, r *http.Request) {
	http.Redirect(w, r, "/account/", http.StatusSeeOther)
}

// fail logs an internal error and shows a page that says nothing of it.
func (p *Portal) fail(w http.ResponseWriter, r *http.Request, what string, err error) {
	p.log.ErrorContext(r.Context(), "portal: "+what, "error", err, "path", r.URL.Path)
	p.render(w, r, http.StatusInternalServerError, "error", pageData{Title: "Something went wrong",
		Error: "Something went wrong on our side; nothing was changed. Please try again in a moment."})
}

// absURL is path on the public URL, for emailed links and redirects.
func (p *Portal) absURL(path string) string { return p.deps.PublicURL + path }

// localPath reports whether next is a path on this site, so that a
// redirect after login cannot send the visitor elsewhere. Browsers drop tabs
// and line breaks from a URL and read a backslash as a slash ("/<TAB>/evil.example/"
// is "//evil.example/" to them), so next may hold no control character and
// no backslash, neither as typed nor with its percent-encodings decoded.
func localPath(next string) bool {
	decoded, err := url.PathUnescape(next)
	if err != nil || !strings.HasPrefix(next, "/") {
		return false
	}
	for _, s := range []string{next, decoded} {
		if strings.HasPrefix(s, "//") || strings.ContainsFunc(s, func(r rune) bool { return r == '\\' || unicode.IsControl(r) }) {
			return false
		}
	}
	return true
}

func peerAddr(r *http.Request) string {
	host := r.RemoteAddr
	if i := strings.LastIndexByte(host, ':'); i >= 0 {
		host = host[:i]
	}
	return strings.Trim(host, "[]")
}

// webhook hands the payment provider's events to Billing; without one
// there is nothing to receive.
func (p *Portal) webhook(w http.ResponseWriter, r *http.Request) {
	if p.deps.Billing == nil {
		p.notFound(w, r)
		return
	}
	sw := &statusWriter{ResponseWriter: w}
	p.deps.Billing.Webhook().ServeHTTP(sw, r)
	// A handled event may have changed a plan: this replica applies it to
	// the next request, the others within their key refresh interval.
	if sw.status < 300 {
		p.refreshKeys(r)
	}
}

// statusWriter remembers the status a handler answered.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}
