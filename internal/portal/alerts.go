package portal

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/alerts"
	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/webhooks"
)

// AlertsDeps are what the Alerts and Webhooks pages need (issue 25).
type AlertsDeps struct {
	// Store keeps the alerts, the endpoints and the delivery queue, and
	// the alert emails' unsubscribe tokens.
	Store interface {
		alerts.Store
		alerts.EmailStore
		webhooks.Store
	}
	// Catalog is the catalogue served now (nil before one is loaded): an
	// alert's card and finish are checked against it, and the pages show
	// each card's name and price.
	Catalog func() *catalog.Snapshot
	// BusinessMax is how many alerts a Business account keeps
	// (--alerts-business-max; 0: account.DefaultBusinessAlerts).
	BusinessMax int
	// AllowHTTP takes http:// endpoints (CARDCAT_WEBHOOK_ALLOW_HTTP): tests
	// and private deployments only.
	AllowHTTP bool
	// EmailsPerHour is the most alert emails an account gets in an hour
	// (CARDCAT_ALERT_EMAILS_PER_HOUR), which the form says; 0: no cap.
	EmailsPerHour int
}

// alertsOn reports whether the pages of alerts and webhooks are served.
func (p *Portal) alertsOn() bool { return p.deps.Alerts != nil }

func (p *Portal) snapshot() *catalog.Snapshot {
	if p.deps.Alerts.Catalog == nil {
		return nil
	}
	return p.deps.Alerts.Catalog()
}

// limits are acc's plan's alert and webhook limits.
func (p *Portal) limits(acc *account.Account) (maxAlerts, maxHooks int) {
	return acc.Plan.AlertLimits(p.deps.Alerts.BusinessMax)
}

// alertRow is one alert as the page lists it.
type alertRow struct {
	alerts.Alert
	Card     string // the card's name; "" when it is not in the catalogue
	Market   string // "TCGplayer", "Cardmarket"
	Price    string // the price now ("12.50 USD"); "none" when it has none
	State    string // "armed", "fired"
	Webhook  string // its endpoint's URL; "" for none
	RuleText string // "at or above 12.50 USD"
}

func newAlertRow(a alerts.Alert) alertRow {
	return alertRow{Alert: a, Market: a.Source.Market(), RuleText: a.Rule.Text(a.Source)}
}

// alertForm is the create and edit form, as the visitor filled it.
type alertForm struct {
	ID      int64 // 0: a new alert
	Card    string
	Source  string
	Finish  string
	Rule    string
	Value   string
	Webhook int64
	Email   bool // email each firing too
}

type alertsData struct {
	Alerts          []alertRow
	Plan            string
	Max, MaxHooks   int
	Endpoints       []webhooks.Endpoint
	Form            alertForm
	Full            bool // the plan's limit of alerts is reached
	CatalogueLoaded bool
	// Email is the account's address, where alert emails go; Verified
	// whether it is (alert emails need it).
	Email         string
	Verified      bool
	EmailsPerHour int
	MailLog       bool // this server logs its emails instead of sending them
}

// newAlertsData is the form's part of the alerts and edit pages.
func (p *Portal) newAlertsData(acc *account.Account, eps []webhooks.Endpoint, f alertForm) alertsData {
	ad := alertsData{Plan: acc.Plan.Name(), Endpoints: eps, Form: f, CatalogueLoaded: p.snapshot() != nil,
		Email: acc.Email, Verified: !acc.VerifiedAt.IsZero(), EmailsPerHour: p.deps.Alerts.EmailsPerHour, MailLog: p.mailLog != ""}
	ad.Max, ad.MaxHooks = p.limits(acc)
	return ad
}

// alertsNotices are the notices of a redirect's ?done=, by name: the URL
// picks one, never writes one.
var alertsNotices = map[string]string{
	"created": "Alert created. It is checked at each new catalogue version, from the next one on.",
	"updated": "Alert saved. It is armed again and checked anew at the next catalogue version.",
	"paused":  "Alert paused: it is not checked until you resume it.",
	"resumed": "Alert resumed: it is checked again from the next catalogue version.",
	"deleted": "Alert deleted. The events it fired are kept in your webhooks' delivery logs.",
}

// alertsPage is GET /account/alerts.
func (p *Portal) alertsPage(w http.ResponseWriter, r *http.Request, acc *account.Account) {
	p.renderAlerts(w, r, http.StatusOK, acc, pageData{Notice: alertsNotices[r.URL.Query().Get("done")]},
		alertForm{Source: string(alerts.TCG), Rule: string(alerts.Above)})
}

// renderAlerts shows the alerts page with the account's alerts and form f.
func (p *Portal) renderAlerts(w http.ResponseWriter, r *http.Request, status int, acc *account.Account, d pageData, f alertForm) {
	ctx := r.Context()
	st := p.deps.Alerts.Store
	as, err := st.Alerts(ctx, acc.ID)
	if err != nil {
		p.fail(w, r, "alerts: list", err)
		return
	}
	eps, err := st.Endpoints(ctx, acc.ID)
	if err != nil {
		p.fail(w, r, "alerts: endpoints", err)
		return
	}
	snap := p.snapshot()
	ad := p.newAlertsData(acc, eps, f)
	ad.Full = len(as) >= ad.Max
	urls := map[int64]string{}
	for _, e := range eps {
		urls[e.ID] = e.URL
	}
	for _, a := range as {
		row := newAlertRow(a)
		row.State, row.Webhook, row.Price = "armed", urls[a.WebhookID], "none"
		if !a.Armed {
			row.State = "fired"
		}
		name, price, found := alerts.Watched(snap, &a)
		if found {
			row.Card = name
		}
		if price.OK {
			row.Price = alerts.FormatAmount(price.Cents) + " " + a.Source.Currency()
		}
		ad.Alerts = append(ad.Alerts, row)
	}
	d.Title, d.Nav, d.Data = "Price alerts", "alerts", ad
	p.render(w, r, status, "alerts", d)
}

// readAlertForm reads the posted form into f and the alert it asks for;
// msg says what is wrong with it ("" when nothing is). The rules are
// internal/alerts', the CLI's too.
func (p *Portal) readAlertForm(r *http.Request, acc *account.Account, eps []webhooks.Endpoint) (f alertForm, a *alerts.Alert, msg string) {
	f = alertForm{
		Card:   strings.TrimSpace(r.PostFormValue("card")),
		Source: strings.TrimSpace(r.PostFormValue("source")),
		Finish: strings.TrimSpace(r.PostFormValue("finish")),
		Rule:   strings.TrimSpace(r.PostFormValue("rule")),
		Value:  strings.TrimSpace(r.PostFormValue("value")),
		Email:  r.PostFormValue("email") == "1",
	}
	hook := strings.TrimSpace(r.PostFormValue("webhook"))
	for _, v := range []string{f.Card, f.Finish, f.Value, hook} {
		if len(v) > 200 || !utf8.ValidString(v) || strings.ContainsFunc(v, unicode.IsControl) {
			return f, nil, "The form holds a value that is too long or has control characters; check each field."
		}
	}
	if f.Card == "" {
		return f, nil, "Give the card's id: its game's prefix and 16 hex digits, like pkm_0123456789abcdef (the card's id in the API), or a Cardmarket id of 64 hex digits."
	}
	src, err := alerts.ParseSource(f.Source)
	if err != nil {
		return f, nil, "Choose the marketplace: TCGplayer or Cardmarket."
	}
	if f.Finish == "" {
		return f, nil, "Give the finish to watch: TCGplayer's (Normal, Foil, Holofoil, ...) or Cardmarket's (normal, foil)."
	}
	rule, err := alerts.ParseRule(f.Rule, f.Value)
	if err != nil {
		return f, nil, sentence(err.Error())
	}
	a = &alerts.Alert{AccountID: acc.ID, CardID: f.Card, Source: src, Finish: f.Finish, Rule: rule, Email: f.Email, CreatedAt: p.now()}
	if a.Email && acc.VerifiedAt.IsZero() {
		return f, nil, "Alert emails go to verified addresses only: verify " + acc.Email +
			" first (the link we emailed you at sign-up, or ask for a new one), or leave “Email me” unticked."
	}
	if hook != "" && hook != "0" {
		id, err := strconv.ParseInt(hook, 10, 64)
		for _, e := range eps {
			if err == nil && e.ID == id {
				a.WebhookID = id
			}
		}
		if a.WebhookID == 0 {
			return f, nil, "Choose one of your webhooks, or none."
		}
		f.Webhook = a.WebhookID
	}
	if err := alerts.Check(a, p.snapshot()); err != nil {
		return f, nil, sentence(err.Error())
	}
	f.Card = a.CardID
	return f, a, ""
}

// sentence is a message of internal/alerts as a sentence of the page.
func sentence(msg string) string {
	if msg == "" {
		return msg
	}
	r, n := utf8.DecodeRuneInString(msg)
	msg = string(unicode.ToUpper(r)) + msg[n:]
	if !strings.HasSuffix(msg, ".") {
		msg += "."
	}
	return msg
}

// createAlert is POST /account/alerts.
func (p *Portal) createAlert(w http.ResponseWriter, r *http.Request, acc *account.Account) {
	if !p.parseForm(w, r) {
		return
	}
	ctx := r.Context()
	st := p.deps.Alerts.Store
	eps, err := st.Endpoints(ctx, acc.ID)
	if err != nil {
		p.fail(w, r, "alerts: create: endpoints", err)
		return
	}
	f, a, msg := p.readAlertForm(r, acc, eps)
	refuse := func(msg string) { p.renderAlerts(w, r, http.StatusBadRequest, acc, pageData{Error: msg}, f) }
	if msg != "" {
		refuse(msg)
		return
	}
	maxAlerts, _ := p.limits(acc)
	err = st.CreateAlert(ctx, a, maxAlerts)
	switch {
	case errors.Is(err, alerts.ErrLimit):
		refuse("You have " + formatInt(int64(maxAlerts)) + " alerts, the most the " + acc.Plan.Name() +
			" plan keeps: delete one, or see the plans' limits on the Upgrade page.")
		return
	case errors.Is(err, alerts.ErrNotFound):
		refuse("Choose one of your webhooks, or none.")
		return
	case err != nil:
		p.fail(w, r, "alerts: create", err)
		return
	}
	p.log.InfoContext(ctx, "portal: alert created", "account", acc.ID, "alert", a.ID, "email", a.Email)
	http.Redirect(w, r, "/account/alerts?done=created", http.StatusSeeOther)
}

// ownAlert is the alert {id} of acc; false (and a 404 answered) when acc
// has none: another account's alert is as absent as one that never was.
func (p *Portal) ownAlert(w http.ResponseWriter, r *http.Request, acc *account.Account) (*alerts.Alert, bool) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		p.notFound(w, r)
		return nil, false
	}
	as, err := p.deps.Alerts.Store.Alerts(r.Context(), acc.ID)
	if err != nil {
		p.fail(w, r, "alerts: read", err)
		return nil, false
	}
	for i := range as {
		if as[i].ID == id {
			return &as[i], true
		}
	}
	p.notFound(w, r)
	return nil, false
}

type alertEditData struct {
	List  alertsData // the form's part
	Alert alertRow
}

// editAlertPage is GET /account/alerts/{id}.
func (p *Portal) editAlertPage(w http.ResponseWriter, r *http.Request, acc *account.Account) {
	a, ok := p.ownAlert(w, r, acc)
	if !ok {
		return
	}
	f := alertForm{ID: a.ID, Card: a.CardID, Source: string(a.Source), Finish: a.Finish, Rule: string(a.Rule.Kind),
		Value: a.Rule.Value(), Webhook: a.WebhookID, Email: a.Email}
	p.renderEditAlert(w, r, http.StatusOK, acc, a, pageData{}, f)
}

func (p *Portal) renderEditAlert(w http.ResponseWriter, r *http.Request, status int, acc *account.Account, a *alerts.Alert, d pageData, f alertForm) {
	eps, err := p.deps.Alerts.Store.Endpoints(r.Context(), acc.ID)
	if err != nil {
		p.fail(w, r, "alerts: endpoints", err)
		return
	}
	ed := alertEditData{List: p.newAlertsData(acc, eps, f), Alert: newAlertRow(*a)}
	if name, _, found := alerts.Watched(p.snapshot(), a); found {
		ed.Alert.Card = name
	}
	d.Title, d.Nav, d.Data = "Edit alert "+strconv.FormatInt(a.ID, 10), "alerts", ed
	p.render(w, r, status, "alert_edit", d)
}

// updateAlert is POST /account/alerts/{id}.
func (p *Portal) updateAlert(w http.ResponseWriter, r *http.Request, acc *account.Account) {
	if !p.parseForm(w, r) {
		return
	}
	old, ok := p.ownAlert(w, r, acc)
	if !ok {
		return
	}
	ctx := r.Context()
	st := p.deps.Alerts.Store
	eps, err := st.Endpoints(ctx, acc.ID)
	if err != nil {
		p.fail(w, r, "alerts: update: endpoints", err)
		return
	}
	f, a, msg := p.readAlertForm(r, acc, eps)
	f.ID = old.ID
	if msg != "" {
		p.renderEditAlert(w, r, http.StatusBadRequest, acc, old, pageData{Error: msg}, f)
		return
	}
	a.ID = old.ID
	err = st.UpdateAlert(ctx, a)
	if errors.Is(err, alerts.ErrNotFound) {
		// Deleted meanwhile, or its webhook was.
		p.renderEditAlert(w, r, http.StatusBadRequest, acc, old, pageData{Error: "The alert or its webhook was deleted meanwhile; reload the page."}, f)
		return
	}
	if err != nil {
		p.fail(w, r, "alerts: update", err)
		return
	}
	p.log.InfoContext(ctx, "portal: alert updated", "account", acc.ID, "alert", a.ID, "email", a.Email)
	http.Redirect(w, r, "/account/alerts?done=updated", http.StatusSeeOther)
}

// pauseAlert is POST /account/alerts/{id}/pause and .../resume.
func (p *Portal) pauseAlert(paused bool) func(http.ResponseWriter, *http.Request, *account.Account) {
	return func(w http.ResponseWriter, r *http.Request, acc *account.Account) {
		a, ok := p.ownAlert(w, r, acc)
		if !ok {
			return
		}
		err := p.deps.Alerts.Store.SetAlertPaused(r.Context(), acc.ID, a.ID, paused)
		if errors.Is(err, alerts.ErrNotFound) {
			p.notFound(w, r)
			return
		}
		if err != nil {
			p.fail(w, r, "alerts: pause", err)
			return
		}
		done := "resumed"
		if paused {
			done = "paused"
		}
		http.Redirect(w, r, "/account/alerts?done="+done, http.StatusSeeOther)
	}
}

// deleteAlert is POST /account/alerts/{id}/delete.
func (p *Portal) deleteAlert(w http.ResponseWriter, r *http.Request, acc *account.Account) {
	a, ok := p.ownAlert(w, r, acc)
	if !ok {
		return
	}
	err := p.deps.Alerts.Store.DeleteAlert(r.Context(), acc.ID, a.ID)
	if errors.Is(err, alerts.ErrNotFound) {
		p.notFound(w, r)
		return
	}
	if err != nil {
		p.fail(w, r, "alerts: delete", err)
		return
	}
	p.log.InfoContext(r.Context(), "portal: alert deleted", "account", acc.ID, "alert", a.ID)
	http.Redirect(w, r, "/account/alerts?done=deleted", http.StatusSeeOther)
}
