package portal

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/alerts"
	"github.com/cardcat/cardcat/internal/webhooks"
)

// logPage is how many deliveries the delivery log shows at once.
const logPage = 25

// endpointRow is one endpoint as the pages show it: never its secrets.
type endpointRow struct {
	ID        int64
	URL       string
	CreatedAt time.Time
	// SecretHint is the secret's first characters, to tell it from another.
	SecretHint string
	// OverlapUntil is when the secret a rotation replaced stops signing;
	// zero when none does.
	OverlapUntil time.Time
	Alerts       int // the alerts sending to it
}

type webhooksData struct {
	Endpoints []endpointRow
	Plan      string
	Max       int
	Full      bool
	AllowHTTP bool
	URL       string // the add form's value, kept after a refusal
	// NewSecret is the secret of the endpoint just added, shown this once.
	NewSecret string
	NewURL    string
}

// overlaps are the overlap periods a rotation offers, in the form's order.
var overlaps = []struct {
	Value string
	Text  string
	D     time.Duration
}{
	{"0", "none: the old secret stops signing at once", 0},
	{"1h", "1 hour", time.Hour},
	{"24h", "24 hours", 24 * time.Hour},
	{"168h", "7 days", 7 * 24 * time.Hour},
}

type webhookData struct {
	Endpoint   endpointRow
	Deliveries []webhooks.LoggedDelivery
	// Older is the ?before= of the next page; 0 when there is none.
	Older    int64
	Paged    bool // this is not the newest page
	Overlaps any
	// NewSecret is the secret a rotation just made, shown this once.
	NewSecret string
	// Subscriptions are the endpoint's card.changed subscriptions
	// (subscriptions.go); nil when the store keeps none.
	Subscriptions *subscriptionsSection
}

var webhooksNotices = map[string]string{
	"deleted":      "Webhook deleted, with its delivery log and its subscriptions. Its alerts are kept and send nowhere until you choose another webhook.",
	"test":         "Test event queued: it is sent within seconds, and shows in the log below (reload the page).",
	"resent":       "Delivery queued again: it is sent within seconds, and shows in the log below (reload the page).",
	"subscribed":   "Subscribed: from the next catalogue version on, its changed cards are sent to this webhook.",
	"unsubscribed": "Subscription deleted: its events already sent stay in the log.",
}

func secretHint(s string) string {
	if len(s) > 10 {
		return s[:10] + "…"
	}
	return s
}

// endpointRows are the account's endpoints as shown, with the alerts
// sending to each.
func (p *Portal) endpointRows(r *http.Request, acc *account.Account) ([]endpointRow, error) {
	ctx := r.Context()
	st := p.deps.Alerts.Store
	eps, err := st.Endpoints(ctx, acc.ID)
	if err != nil {
		return nil, err
	}
	as, err := st.Alerts(ctx, acc.ID)
	if err != nil {
		return nil, err
	}
	uses := map[int64]int{}
	for _, a := range as {
		uses[a.WebhookID]++
	}
	now := p.now()
	rows := make([]endpointRow, 0, len(eps))
	for _, e := range eps {
		row := endpointRow{ID: e.ID, URL: e.URL, CreatedAt: e.CreatedAt, SecretHint: secretHint(e.Secret), Alerts: uses[e.ID]}
		if e.PreviousSecret != "" && e.PreviousUntil.After(now) {
			row.OverlapUntil = e.PreviousUntil
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// webhooksPage is GET /account/webhooks.
func (p *Portal) webhooksPage(w http.ResponseWriter, r *http.Request, acc *account.Account) {
	p.renderWebhooks(w, r, http.StatusOK, acc, pageData{Notice: webhooksNotices[r.URL.Query().Get("done")]}, webhooksData{})
}

func (p *Portal) renderWebhooks(w http.ResponseWriter, r *http.Request, status int, acc *account.Account, d pageData, wd webhooksData) {
	rows, err := p.endpointRows(r, acc)
	if err != nil {
		p.fail(w, r, "webhooks: list", err)
		return
	}
	wd.Endpoints, wd.Plan, wd.AllowHTTP = rows, acc.Plan.Name(), p.deps.Alerts.AllowHTTP
	_, wd.Max = p.limits(acc)
	wd.Full = len(rows) >= wd.Max
	d.Title, d.Nav, d.Data = "Webhooks", "webhooks", wd
	p.render(w, r, status, "webhooks", d)
}

// createWebhook is POST /account/webhooks. The secret is in the answer
// itself, not behind a redirect, so that it is shown once (as a new key is).
func (p *Portal) createWebhook(w http.ResponseWriter, r *http.Request, acc *account.Account) {
	if !p.parseForm(w, r) {
		return
	}
	ctx := r.Context()
	raw := strings.TrimSpace(r.PostFormValue("url"))
	refuse := func(msg string) {
		p.renderWebhooks(w, r, http.StatusBadRequest, acc, pageData{Error: msg}, webhooksData{URL: raw})
	}
	_, max := p.limits(acc)
	if max == 0 {
		refuse("The " + acc.Plan.Name() + " plan has no webhooks; see the plans' limits on the Upgrade page.")
		return
	}
	if raw == "" {
		refuse("Give the URL the events are sent to, like https://example.com/hooks/cardcat.")
		return
	}
	if err := webhooks.CheckURL(raw, p.deps.Alerts.AllowHTTP); err != nil {
		refuse(sentence(err.Error()))
		return
	}
	e := &webhooks.Endpoint{AccountID: acc.ID, URL: raw, Secret: webhooks.NewSecret(), CreatedAt: p.now()}
	err := p.deps.Alerts.Store.CreateEndpoint(ctx, e, max)
	if errors.Is(err, webhooks.ErrLimit) {
		refuse("You have " + strconv.Itoa(max) + " webhooks, the most the " + acc.Plan.Name() + " plan keeps: delete one first.")
		return
	}
	if err != nil {
		p.fail(w, r, "webhooks: create", err)
		return
	}
	p.log.InfoContext(ctx, "portal: webhook created", "account", acc.ID, "webhook", e.ID)
	p.renderWebhooks(w, r, http.StatusOK, acc, pageData{}, webhooksData{NewSecret: e.Secret, NewURL: e.URL})
}

// ownEndpoint is the endpoint {id} of acc; false (and a 404 answered) when
// acc has none.
func (p *Portal) ownEndpoint(w http.ResponseWriter, r *http.Request, acc *account.Account) (*endpointRow, bool) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		p.notFound(w, r)
		return nil, false
	}
	rows, err := p.endpointRows(r, acc)
	if err != nil {
		p.fail(w, r, "webhooks: read", err)
		return nil, false
	}
	for i := range rows {
		if rows[i].ID == id {
			return &rows[i], true
		}
	}
	p.notFound(w, r)
	return nil, false
}

// webhookPage is GET /account/webhooks/{id}: the endpoint, its delivery
// log (?before= pages to older deliveries), its test, rotation and delete.
func (p *Portal) webhookPage(w http.ResponseWriter, r *http.Request, acc *account.Account) {
	e, ok := p.ownEndpoint(w, r, acc)
	if !ok {
		return
	}
	var before int64
	if b := r.URL.Query().Get("before"); b != "" {
		var err error
		if before, err = strconv.ParseInt(b, 10, 64); err != nil || before <= 0 {
			p.render(w, r, http.StatusBadRequest, "error", pageData{Title: "Page not understood",
				Error: "The page of the delivery log is not a number; go back to the webhook's page."})
			return
		}
	}
	p.renderWebhook(w, r, http.StatusOK, acc, e, before, pageData{Notice: webhooksNotices[r.URL.Query().Get("done")]}, "")
}

func (p *Portal) renderWebhook(w http.ResponseWriter, r *http.Request, status int, acc *account.Account, e *endpointRow, before int64, d pageData, newSecret string) {
	p.renderWebhookWith(w, r, status, acc, e, before, d, newSecret, subscriptionForm{})
}

// renderWebhookWith is renderWebhook with the subscription form as the
// visitor filled it (kept after a refusal).
func (p *Portal) renderWebhookWith(w http.ResponseWriter, r *http.Request, status int, acc *account.Account, e *endpointRow, before int64, d pageData, newSecret string, form subscriptionForm) {
	subs, err := p.subscriptionsOf(r, acc, e.ID, form)
	if err != nil {
		p.fail(w, r, "webhooks: subscriptions", err)
		return
	}
	log, err := p.deps.Alerts.Store.DeliveryLog(r.Context(), acc.ID, e.ID, before, logPage+1)
	if errors.Is(err, webhooks.ErrNotFound) {
		p.notFound(w, r)
		return
	}
	if err != nil {
		p.fail(w, r, "webhooks: delivery log", err)
		return
	}
	wd := webhookData{Endpoint: *e, Paged: before > 0, Overlaps: overlaps, NewSecret: newSecret, Subscriptions: subs}
	if len(log) > logPage {
		log = log[:logPage]
		wd.Older = log[logPage-1].ID
	}
	wd.Deliveries = log
	d.Title, d.Nav, d.Data = "Webhook "+e.URL, "webhooks", wd
	p.render(w, r, status, "webhook", d)
}

// rotateSecret is POST /account/webhooks/{id}/rotate: a new secret, shown
// once; the old one keeps signing beside it for the overlap chosen.
func (p *Portal) rotateSecret(w http.ResponseWriter, r *http.Request, acc *account.Account) {
	if !p.parseForm(w, r) {
		return
	}
	e, ok := p.ownEndpoint(w, r, acc)
	if !ok {
		return
	}
	overlap, found := time.Duration(0), false
	for _, o := range overlaps {
		if o.Value == r.PostFormValue("overlap") {
			overlap, found = o.D, true
		}
	}
	if !found || webhooks.CheckOverlap(overlap) != nil {
		p.renderWebhook(w, r, http.StatusBadRequest, acc, e, 0, pageData{Error: "Choose how long the old secret keeps signing: none, 1 hour, 24 hours or 7 days."}, "")
		return
	}
	ctx := r.Context()
	secret := webhooks.NewSecret()
	var until time.Time
	if overlap > 0 {
		until = p.now().Add(overlap)
	}
	err := p.deps.Alerts.Store.RotateSecret(ctx, acc.ID, e.ID, secret, until)
	if errors.Is(err, webhooks.ErrNotFound) {
		p.notFound(w, r)
		return
	}
	if err != nil {
		p.fail(w, r, "webhooks: rotate", err)
		return
	}
	p.log.InfoContext(ctx, "portal: webhook secret rotated", "account", acc.ID, "webhook", e.ID, "overlap", overlap)
	e.SecretHint, e.OverlapUntil = secretHint(secret), until
	p.renderWebhook(w, r, http.StatusOK, acc, e, 0, pageData{}, secret)
}

// testWebhook is POST /account/webhooks/{id}/test: a price.alert-shaped
// event flagged as a test, like the firing of one of the account's alerts
// that send to this endpoint (or of any of its alerts, or a sample),
// queued through the same queue as every event; throttled per endpoint and
// per account (testEventByEndpoint), a refusal a 429 on the webhook's page.
func (p *Portal) testWebhook(w http.ResponseWriter, r *http.Request, acc *account.Account) {
	e, ok := p.ownEndpoint(w, r, acc)
	if !ok {
		return
	}
	ctx := r.Context()
	now := p.now()
	pools := []limited{{testEventByEndpoint, strconv.FormatInt(e.ID, 10)}, {testEventByAccount, strconv.FormatInt(acc.ID, 10)}}
	if ref := p.take(ctx, now, pools...); ref != nil {
		p.log.InfoContext(ctx, "portal: webhook test event throttled", "account", acc.ID, "webhook", e.ID)
		w.Header().Set("Retry-After", strconv.Itoa(int((ref.wait+time.Second-1)/time.Second)))
		p.renderWebhook(w, r, http.StatusTooManyRequests, acc, e, 0, pageData{Error: ref.text()}, "")
		return
	}
	st := p.deps.Alerts.Store
	as, err := st.Alerts(ctx, acc.ID)
	if err != nil {
		p.refund(ctx, now, pools...)
		p.fail(w, r, "webhooks: test: alerts", err)
		return
	}
	var like *alerts.Alert
	for i := range as {
		if like == nil || as[i].WebhookID == e.ID && like.WebhookID != e.ID {
			like = &as[i]
		}
	}
	var version int64
	if snap := p.snapshot(); snap != nil {
		version = snap.Version
	}
	ev := alerts.NewTestEvent(acc.ID, e.ID, like, version, now)
	err = st.QueueTestEvent(ctx, ev)
	if err != nil {
		p.refund(ctx, now, pools...)
	}
	if errors.Is(err, alerts.ErrNotFound) {
		p.notFound(w, r)
		return
	}
	if err != nil {
		p.fail(w, r, "webhooks: test", err)
		return
	}
	p.log.InfoContext(ctx, "portal: webhook test event queued", "account", acc.ID, "webhook", e.ID, "event", ev.ID)
	http.Redirect(w, r, "/account/webhooks/"+strconv.FormatInt(e.ID, 10)+"?done=test", http.StatusSeeOther)
}

// resendDelivery is POST /account/webhooks/{id}/deliveries/{delivery}/resend.
func (p *Portal) resendDelivery(w http.ResponseWriter, r *http.Request, acc *account.Account) {
	e, ok := p.ownEndpoint(w, r, acc)
	if !ok {
		return
	}
	id, err := strconv.ParseInt(r.PathValue("delivery"), 10, 64)
	if err != nil {
		p.notFound(w, r)
		return
	}
	err = p.deps.Alerts.Store.ResendDelivery(r.Context(), acc.ID, e.ID, id, p.now())
	switch {
	case errors.Is(err, webhooks.ErrNotFound):
		p.notFound(w, r)
		return
	case errors.Is(err, webhooks.ErrInFlight):
		p.renderWebhook(w, r, http.StatusConflict, acc, e, 0, pageData{Error: "That delivery is being sent right now; wait for its attempt to show, then resend it if you still need to."}, "")
		return
	case err != nil:
		p.fail(w, r, "webhooks: resend", err)
		return
	}
	p.log.InfoContext(r.Context(), "portal: webhook delivery resent", "account", acc.ID, "webhook", e.ID, "delivery", id)
	http.Redirect(w, r, "/account/webhooks/"+strconv.FormatInt(e.ID, 10)+"?done=resent", http.StatusSeeOther)
}

// deleteWebhook is POST /account/webhooks/{id}/delete.
func (p *Portal) deleteWebhook(w http.ResponseWriter, r *http.Request, acc *account.Account) {
	e, ok := p.ownEndpoint(w, r, acc)
	if !ok {
		return
	}
	err := p.deps.Alerts.Store.DeleteEndpoint(r.Context(), acc.ID, e.ID)
	if errors.Is(err, webhooks.ErrNotFound) {
		p.notFound(w, r)
		return
	}
	if err != nil {
		p.fail(w, r, "webhooks: delete", err)
		return
	}
	p.log.InfoContext(r.Context(), "portal: webhook deleted", "account", acc.ID, "webhook", e.ID)
	http.Redirect(w, r, "/account/webhooks?done=deleted", http.StatusSeeOther)
}
