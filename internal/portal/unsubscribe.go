package portal

import (
	"errors"
	"net/http"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/alerts"
)

// The unsubscribe link of alert emails (alerts.UnsubscribePath?token=):
// the token, random and bound to one alert (alerts.NewEmailToken), is the
// authority, so neither the page nor its POST needs a session, and the
// POST is exempt from the cross-origin check (a mail provider's one-click
// POST, RFC 8058, comes from its servers, and a webmail's from its own
// origin). A GET only shows the page: a mail scanner that follows links
// stops nothing. One click stops the emails of the link's alert; the page
// offers all of the account's alerts too.

// unsubscribeData is the unsubscribe page's.
type unsubscribeData struct {
	Token string
	Alert alertRow
	// Done is set after a POST: "one" or "all"; Stopped is how many alerts
	// it turned off.
	Done    string
	Stopped int
}

// unsubscribePage is GET /account/alerts/unsubscribe?token=.
func (p *Portal) unsubscribePage(w http.ResponseWriter, r *http.Request, _ *account.Account) {
	token := r.URL.Query().Get("token")
	if !alerts.ValidEmailToken(token) {
		p.badUnsubscribeLink(w, r)
		return
	}
	a, err := p.deps.Alerts.Store.AlertByEmailToken(r.Context(), token)
	if errors.Is(err, alerts.ErrNotFound) {
		p.badUnsubscribeLink(w, r)
		return
	}
	if err != nil {
		p.fail(w, r, "alerts: unsubscribe page", err)
		return
	}
	p.renderUnsubscribe(w, r, unsubscribeData{Token: token, Alert: p.unsubscribeRow(a)})
}

// unsubscribe is POST /account/alerts/unsubscribe?token=: the one click of
// the email's List-Unsubscribe-Post (its body, List-Unsubscribe=One-Click,
// says nothing more), or the page's buttons, scope=all for every alert of
// the account. It answers 200 with the page that says what it did, also
// when the emails were off already (a provider may post twice).
func (p *Portal) unsubscribe(w http.ResponseWriter, r *http.Request, _ *account.Account) {
	if !p.parseForm(w, r) {
		return
	}
	token := r.URL.Query().Get("token")
	if token == "" {
		token = r.PostForm.Get("token")
	}
	if !alerts.ValidEmailToken(token) {
		p.badUnsubscribeLink(w, r)
		return
	}
	all := r.PostForm.Get("scope") == "all"
	a, stopped, err := p.deps.Alerts.Store.StopAlertEmails(r.Context(), token, all)
	if errors.Is(err, alerts.ErrNotFound) {
		p.badUnsubscribeLink(w, r)
		return
	}
	if err != nil {
		p.fail(w, r, "alerts: unsubscribe", err)
		return
	}
	p.log.InfoContext(r.Context(), "portal: alert emails stopped", "account", a.AccountID, "alert", a.ID, "all", all, "stopped", stopped)
	d := unsubscribeData{Token: token, Alert: p.unsubscribeRow(a), Done: "one", Stopped: stopped}
	if all {
		d.Done = "all"
	}
	p.renderUnsubscribe(w, r, d)
}

func (p *Portal) unsubscribeRow(a alerts.Alert) alertRow {
	row := newAlertRow(a)
	if name, _, found := alerts.Watched(p.snapshot(), &a); found {
		row.Card = name
	}
	return row
}

func (p *Portal) renderUnsubscribe(w http.ResponseWriter, r *http.Request, d unsubscribeData) {
	title := "Stop alert emails"
	if d.Done != "" {
		title = "Alert emails stopped"
	}
	p.render(w, r, http.StatusOK, "unsubscribe", pageData{Title: title, Data: d})
}

// badUnsubscribeLink answers a token no alert has (a deleted alert's, a
// link cut short) with a page that says what to do instead.
func (p *Portal) badUnsubscribeLink(w http.ResponseWriter, r *http.Request) {
	p.render(w, r, http.StatusNotFound, "error", pageData{Title: "This unsubscribe link does not work",
		Error: "No alert has this link: the alert was deleted (its emails stopped with it), or the link was cut short when it was copied. " +
			"To choose which alerts email you, log in and edit them on your alerts page (/account/alerts)."})
}
