package portal

import (
	"net/http"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/ratelimit"
)

// dashboardData is the dashboard's own part of the page.
type dashboardData struct {
	Email    string
	Plan     string
	Limits   ratelimit.Limits
	Verified bool
	// Live is false when the use could not be read (no limiter, or it
	// failed); Hour and Day are then zero.
	Live      bool
	LiveError bool // a limiter is configured but did not answer
	Hour, Day ratelimit.Window
	Trial     trialStatus
	// ActiveKeys counts the unrevoked keys.
	ActiveKeys, MaxKeys int
}

// dashboard is GET /account/: the plan, its limits and the use of them, the
// trial and the keys at a glance.
func (p *Portal) dashboard(w http.ResponseWriter, r *http.Request, acc *account.Account) {
	ctx := r.Context()
	now := p.now()
	d := dashboardData{
		Email:    acc.Email,
		Plan:     acc.Plan.Name(),
		Limits:   acc.Limits(),
		Verified: !acc.VerifiedAt.IsZero(),
		Trial:    trialOf(acc, now),
		MaxKeys:  account.MaxActiveKeys,
	}
	if p.deps.Limiter != nil {
		res, err := p.deps.Limiter.Peek(ctx, account.PoolName(acc.ID), d.Limits, now)
		if err != nil {
			// The page is still worth showing without the live figures.
			p.log.WarnContext(ctx, "portal: dashboard: limiter peek", "account", acc.ID, "error", err)
			d.LiveError = true
		} else {
			d.Live, d.Hour, d.Day = true, res.Hour, res.Day
		}
	}
	keys, err := p.deps.Store.Keys(ctx, acc.ID)
	if err != nil {
		p.fail(w, r, "dashboard: keys", err)
		return
	}
	for _, k := range keys {
		if k.RevokedAt.IsZero() {
			d.ActiveKeys++
		}
	}
	p.render(w, r, http.StatusOK, "dashboard", pageData{Title: "Your account", Nav: "dashboard", Data: d})
}
