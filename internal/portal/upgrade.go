package portal

import (
	"net/http"
	"strings"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/game"
)

// planRow is one plan of the upgrade page's table.
type planRow struct {
	Plan      account.Plan
	Name      string
	Hour, Day string // "5,000", "at least 1,000", "custom"
	Price     string
	Unlocks   string
	Current   bool
	// Action is what the visitor can do about the plan: "subscribe" (a
	// checkout button), "login" (log in to subscribe), "contact" (write to
	// the operator), "closed", or "" (nothing to do: Free).
	Action string
}

type upgradeData struct {
	Plans    []planRow
	Billing  bool   // a payment provider is configured
	Contact  string // the operator's address, "" when unknown
	LoggedIn bool
}

// unlocks are the paid-access texts by scope, from the game registry:
// which games' paid endpoints Pro opens (game.Game.ProPaid), and which it
// leaves to the trial, Ultra and Business.
var unlocks = func() map[account.PaidScope]string {
	var pro, rest []string
	for _, g := range game.Default().All() {
		if g.ProPaid {
			pro = append(pro, gameName(g))
		} else {
			rest = append(rest, gameName(g))
		}
	}
	proText := "The free endpoints of every game, with higher limits, and the paid endpoints of " + strings.Join(pro, " and ") + "."
	if len(rest) > 0 {
		proText += " Those of " + strings.Join(rest, " and ") + " need the 7-day trial, Ultra or Business."
	}
	return map[account.PaidScope]string{
		account.PaidNone:          "The free endpoints of every game; the paid ones with the 7-day trial.",
		account.PaidOriginalGames: proText,
		account.PaidAll:           "The free endpoints and every paid endpoint of every game.",
	}
}()

// gameName is a game's short name for the plan table.
func gameName(g game.Game) string {
	return strings.TrimSuffix(strings.TrimSuffix(g.Name, " Trading Card Game"), " Card Game")
}

// upgradeRows is the plan table of account, in the spec's order, with what
// this visitor can do about each plan.
func (p *Portal) upgradeRows(acc *account.Account) []planRow {
	var rows []planRow
	for _, pl := range account.Plans() {
		lim := pl.DefaultLimits()
		row := planRow{Plan: pl, Name: pl.Name(), Hour: formatInt(lim.Hour), Day: formatInt(lim.Day),
			Price: pl.Price(), Unlocks: unlocks[pl.Paid()], Current: acc != nil && acc.Plan == pl}
		switch pl.Quota() {
		case account.QuotaFloor:
			row.Hour, row.Day = "at least "+row.Hour, "at least "+row.Day
		case account.QuotaCustom:
			row.Hour, row.Day = "custom", "custom"
		}
		switch {
		case !pl.Open():
			row.Action = "closed"
		case row.Current || pl == account.Free:
		case pl.Checkout() && p.deps.Billing != nil && acc == nil:
			row.Action = "login"
		case pl.Checkout() && p.deps.Billing != nil:
			row.Action = "subscribe"
		default:
			// Business, Coffee, and every paid plan without a payment
			// provider: the operator sets the plan.
			row.Action = "contact"
		}
		rows = append(rows, row)
	}
	return rows
}

// upgradePage is GET /account/upgrade, the upgrade_url of a 403. It is
// public: visitors compare plans before signing up.
func (p *Portal) upgradePage(w http.ResponseWriter, r *http.Request, acc *account.Account) {
	d := pageData{}
	switch r.URL.Query().Get("checkout") {
	case "done":
		d.Notice = "Payment received; your plan changes as soon as the payment provider confirms it, usually within a minute."
	case "cancelled":
		d.Notice = "Checkout cancelled; nothing was charged and your plan is unchanged."
	}
	p.renderUpgrade(w, r, http.StatusOK, acc, d)
}

func (p *Portal) renderUpgrade(w http.ResponseWriter, r *http.Request, status int, acc *account.Account, d pageData) {
	d.Title, d.Nav = "Plans and upgrade", "upgrade"
	d.Data = upgradeData{Plans: p.upgradeRows(acc), Billing: p.deps.Billing != nil, Contact: p.cfg.ContactEmail, LoggedIn: acc != nil}
	p.render(w, r, status, "upgrade", d)
}

// checkout is POST /account/upgrade: a checkout for plan=pro|ultra, and
// the visitor sent to the payment provider's page. The plan changes when
// the provider's webhook says the payment completed, not here.
func (p *Portal) checkout(w http.ResponseWriter, r *http.Request, acc *account.Account) {
	if !p.parseForm(w, r) {
		return
	}
	ctx := r.Context()
	plan, err := account.ParsePlan(r.PostFormValue("plan"))
	switch {
	case p.deps.Billing == nil:
		p.renderUpgrade(w, r, http.StatusBadRequest, acc, pageData{Error: "Payments are not taken on this server; " + p.contactText()})
		return
	case err != nil || !plan.Checkout():
		p.renderUpgrade(w, r, http.StatusBadRequest, acc, pageData{Error: "That plan cannot be bought here: choose Pro or Ultra."})
		return
	case acc.Plan == plan:
		p.renderUpgrade(w, r, http.StatusBadRequest, acc, pageData{Error: "You are already on the " + plan.Name() + " plan."})
		return
	}
	dest, err := p.deps.Billing.Checkout(ctx, acc, plan,
		p.absURL("/account/upgrade?checkout=done"), p.absURL("/account/upgrade?checkout=cancelled"))
	if err != nil {
		p.log.ErrorContext(ctx, "portal: checkout", "account", acc.ID, "plan", plan, "error", err)
		p.renderUpgrade(w, r, http.StatusBadGateway, acc, pageData{
			Error: "The payment provider could not be reached; nothing was charged. Please try again in a moment."})
		return
	}
	p.log.InfoContext(ctx, "portal: checkout started", "account", acc.ID, "plan", plan)
	http.Redirect(w, r, dest, http.StatusSeeOther)
}

// contactText says how to reach the operator to change plans.
func (p *Portal) contactText() string {
	if p.cfg.ContactEmail != "" {
		return "write to " + p.cfg.ContactEmail + " and the operator will set your plan."
	}
	return "ask the operator of this server, who sets plans by hand."
}
