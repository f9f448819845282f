package portal

import (
	"errors"
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
	// Alerts and Webhooks are how many price alerts and webhook endpoints
	// the plan keeps: "3", "none", "by contract".
	Alerts, Webhooks string
	Current          bool
	// Action is what the visitor can do about the plan: "subscribe" (a
	// checkout button), "choose" (choose an amount in the Coffee form below
	// the table), "login" (log in to subscribe), "contact" (reach the
	// operator), "closed", or "" (nothing to do: Free, the current plan).
	Action string
}

type upgradeData struct {
	Plans    []planRow
	Billing  bool // a payment provider is configured
	LoggedIn bool
	// Coffee is the form of a voluntary payment: nil unless the visitor
	// can buy Coffee here (a payment provider, logged in, another plan).
	Coffee *amountForm
}

// amountForm is the form where a visitor chooses what to pay a month for a
// plan of voluntary payment.
type amountForm struct {
	Plan       account.Plan
	Name       string
	Minimum    string // "3", for the input's min
	MinimumEUR string // "3 EUR"
	Maximum    string // "1000", for the input's max
	Hour, Day  string // the plan's least limits: "1,000"
	Amount     string // as the visitor typed it; the minimum at first
	Error      string // what is wrong with Amount; "" when nothing
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
		var businessAlerts int
		if p.deps.Alerts != nil {
			businessAlerts = p.deps.Alerts.BusinessMax
		}
		alertsMax, hooksMax := pl.AlertLimits(businessAlerts)
		row.Alerts, row.Webhooks = formatInt(int64(alertsMax)), formatInt(int64(hooksMax))
		if hooksMax == 0 {
			row.Webhooks = "none"
		}
		if pl == account.Business {
			row.Alerts = "by contract (" + row.Alerts + " unless agreed otherwise)"
		}
		switch pl.Quota() {
		case account.QuotaFloor:
			row.Hour, row.Day = "at least "+row.Hour, "at least "+row.Day
		case account.QuotaCustom:
			row.Hour, row.Day = "custom", "custom"
		}
		billing := pl.Checkout() && p.deps.Billing != nil
		if billing && pl.Voluntary() {
			row.Price = "voluntary payment: you choose, at least " + p.deps.Billing.Minimum().String() + " per month"
		}
		switch {
		case !pl.Open():
			row.Action = "closed"
		case row.Current || pl == account.Free:
		case billing && acc == nil:
			row.Action = "login"
		case billing && pl.Voluntary():
			row.Action = "choose"
		case billing:
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
	p.renderUpgradeWith(w, r, status, acc, d, nil)
}

// renderUpgradeWith shows the upgrade page with the voluntary payment's
// form as the visitor sent it (nil: as new).
func (p *Portal) renderUpgradeWith(w http.ResponseWriter, r *http.Request, status int, acc *account.Account, d pageData, form *amountForm) {
	d.Title, d.Nav = "Plans and upgrade", "upgrade"
	data := upgradeData{Plans: p.upgradeRows(acc), Billing: p.deps.Billing != nil, LoggedIn: acc != nil}
	if form == nil {
		for _, pl := range account.Plans() {
			if pl.Voluntary() && pl.Checkout() && pl.Open() {
				form = p.newAmountForm(pl)
			}
		}
	}
	if form != nil && p.deps.Billing != nil && acc != nil && acc.Plan != form.Plan {
		data.Coffee = form
	}
	d.Data = data
	p.render(w, r, status, "upgrade", d)
}

func (p *Portal) newAmountForm(pl account.Plan) *amountForm {
	var minimum account.Cents
	if p.deps.Billing != nil {
		minimum = p.deps.Billing.Minimum()
	}
	lim := pl.DefaultLimits()
	return &amountForm{Plan: pl, Name: pl.Name(), Minimum: minimum.Number(), MinimumEUR: minimum.String(),
		Maximum: account.MaxVoluntary.Number(), Hour: formatInt(lim.Hour), Day: formatInt(lim.Day), Amount: minimum.Number()}
}

// checkout is POST /account/upgrade: a checkout for plan=pro|ultra, or
// plan=coffee with the amount the visitor chose (at least the operator's
// minimum), and the visitor sent to the payment provider's page. The plan
// changes when the provider's webhook says the payment completed, not
// here.
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
	case err != nil || !plan.Checkout() || !plan.Open():
		p.renderUpgrade(w, r, http.StatusBadRequest, acc, pageData{Error: "That plan cannot be bought here: choose " + p.soldPlans() + "."})
		return
	case acc.Plan == plan:
		p.renderUpgrade(w, r, http.StatusBadRequest, acc, pageData{Error: "You are already on the " + plan.Name() + " plan."})
		return
	}
	var amount account.Cents
	if plan.Voluntary() {
		form := p.newAmountForm(plan)
		form.Amount = r.PostFormValue("amount")
		if amount, form.Error = p.voluntaryAmount(form.Amount); form.Error != "" {
			p.renderUpgradeWith(w, r, http.StatusBadRequest, acc,
				pageData{Error: "Nothing was charged: check the amount you chose for " + plan.Name() + ", below."}, form)
			return
		}
	}
	dest, err := p.deps.Billing.Checkout(ctx, acc, plan, amount,
		p.absURL("/account/upgrade?checkout=done"), p.absURL("/account/upgrade?checkout=cancelled"))
	if err != nil {
		p.log.ErrorContext(ctx, "portal: checkout", "account", acc.ID, "plan", plan, "error", err)
		p.renderUpgrade(w, r, http.StatusBadGateway, acc, pageData{
			Error: "The payment provider could not be reached; nothing was charged. Please try again in a moment."})
		return
	}
	p.log.InfoContext(ctx, "portal: checkout started", "account", acc.ID, "plan", plan, "amount_cents", int64(amount))
	http.Redirect(w, r, dest, http.StatusSeeOther)
}

// voluntaryAmount reads the monthly amount a visitor typed for a plan of
// voluntary payment; the message says what is wrong with it ("" when
// nothing is).
func (p *Portal) voluntaryAmount(typed string) (account.Cents, string) {
	minimum := p.deps.Billing.Minimum()
	if strings.TrimSpace(typed) == "" {
		return 0, "Enter what you want to pay each month, in EUR: at least " + minimum.String() + "."
	}
	amount, err := account.ParseEUR(typed)
	if err != nil {
		return 0, "Write the amount in EUR with digits, like " + minimum.Number() + " or 4.50, without the currency sign."
	}
	if err := account.CheckVoluntary(amount, minimum); err != nil {
		if errors.Is(err, account.ErrBelowMinimum) {
			return 0, "The least you can pay is " + minimum.String() + " a month; you entered " + amount.String() + "."
		}
		return 0, "The most this plan takes is " + account.MaxVoluntary.String() + " a month; for more, see Business."
	}
	return amount, ""
}

// soldPlans names the plans bought on this page: "Coffee, Pro or Ultra".
func (p *Portal) soldPlans() string {
	var names []string
	for _, pl := range account.Plans() {
		if pl.Checkout() && pl.Open() {
			names = append(names, pl.Name())
		}
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// contactText says how to reach the operator to change plans, for an error
// message (the page itself shows the contact as a link).
func (p *Portal) contactText() string {
	if p.contact != nil {
		return "the operator sets plans: contact them at " + p.contact.Text + "."
	}
	return "the operator sets plans, and has not listed a way to contact them here."
}
