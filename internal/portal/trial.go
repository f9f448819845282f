package portal

import (
	"net/http"
	"time"

	"github.com/cardcat/cardcat/internal/account"
)

// Trial states, as the pages name them.
const (
	trialNever    = "never"    // never started: it can be started
	trialActive   = "active"   // running until Ends
	trialEnded    = "ended"    // ended at Ends; it cannot be started again
	trialIncluded = "included" // the plan opens the paid endpoints anyway
)

// trialStatus is an account's trial as the dashboard and the trial page
// show it.
type trialStatus struct {
	State string
	Ends  time.Time // when an active trial ends or a past one ended
	// Length is the trial's length in days, for "7 days".
	Days int
}

// trialOf reads the trial state off account.PaidAccess, the rule the API
// applies, so that the page and the 403 never disagree.
func trialOf(acc *account.Account, now time.Time) trialStatus {
	s := trialStatus{Days: int(account.TrialLength / (24 * time.Hour)), Ends: acc.TrialEnd()}
	switch {
	case acc.Plan.IncludesPaid():
		s.State = trialIncluded
	case acc.PaidAccess(now) == account.Allowed:
		s.State = trialActive
	case acc.PaidAccess(now) == account.TrialExpired:
		s.State = trialEnded
	default:
		s.State = trialNever
	}
	return s
}

// paidEndpoints are what the trial (and Ultra and Business) open, per game,
// as SPEC.md's "Paid game endpoints" lists them.
var paidEndpoints = []struct{ Name, Path string }{
	{"Prices by set", "/{game}/prices/{set}"},
	{"Set statistics", "/{game}/sets/{set}/statistics"},
	{"Completion value", "/{game}/sets/{set}/completion-value"},
	{"Trending sets", "/{game}/sets/trending"},
	{"Top cards", "/{game}/analytics/top-cards"},
}

type trialData struct {
	Trial     trialStatus
	Endpoints []struct{ Name, Path string }
	Plan      string
}

// trialPage is GET /account/trial, the redeem_url of a 403: what the trial
// gives and where the account stands with it.
func (p *Portal) trialPage(w http.ResponseWriter, r *http.Request, acc *account.Account) {
	d := pageData{Title: "Free trial of the paid endpoints", Nav: "trial"}
	t := trialOf(acc, p.now())
	if r.URL.Query().Get("started") == "1" && t.State == trialActive {
		d.Notice = "Your trial has started: the paid endpoints answer your keys now."
	}
	p.renderTrial(w, r, http.StatusOK, acc, d)
}

func (p *Portal) renderTrial(w http.ResponseWriter, r *http.Request, status int, acc *account.Account, d pageData) {
	d.Title, d.Nav = "Free trial of the paid endpoints", "trial"
	d.Data = trialData{Trial: trialOf(acc, p.now()), Endpoints: paidEndpoints, Plan: acc.Plan.Name()}
	p.render(w, r, status, "trial", d)
}

// startTrial is POST /account/trial: the trial starts now, once per account
// ever.
func (p *Portal) startTrial(w http.ResponseWriter, r *http.Request, acc *account.Account) {
	ctx := r.Context()
	now := p.now()
	switch trialOf(acc, now).State {
	case trialIncluded:
		p.renderTrial(w, r, http.StatusConflict, acc, pageData{
			Error: "Your plan already includes the paid endpoints, so there is no trial to start; nothing was changed."})
		return
	case trialActive, trialEnded:
		p.renderTrial(w, r, http.StatusConflict, acc, pageData{
			Error: "This account has already used its trial (one per account); nothing was changed."})
		return
	}
	started := false
	var fresh account.Account
	err := p.updateAccount(ctx, acc.ID, func(a *account.Account) {
		// Checked again on the fresh copy: a trial started meanwhile (another
		// tab) is not restarted.
		if a.TrialStartedAt.IsZero() {
			a.TrialStartedAt, started = now, true
		}
		fresh = *a
	})
	if err != nil {
		p.fail(w, r, "start trial", err)
		return
	}
	if !started {
		p.renderTrial(w, r, http.StatusConflict, &fresh, pageData{
			Error: "This account has already used its trial (one per account); nothing was changed."})
		return
	}
	p.log.InfoContext(ctx, "portal: trial started", "account", acc.ID)
	p.refreshKeys(r)
	http.Redirect(w, r, "/account/trial?started=1", http.StatusSeeOther)
}

// refreshKeys makes this replica's key directory see a key or plan change
// at once; a failure only delays it to the next refresh interval.
func (p *Portal) refreshKeys(r *http.Request) {
	if p.deps.Keys == nil {
		return
	}
	if err := p.deps.Keys.Refresh(r.Context()); err != nil {
		p.log.WarnContext(r.Context(), "portal: key directory refresh", "error", err)
	}
}
