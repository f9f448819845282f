package account

import (
	"errors"
	"fmt"
	"strings"

	"github.com/cardcat/cardcat/internal/ratelimit"
)

// Plan is an account's subscription.
type Plan string

// The plans of SPEC.md's Limits table.
const (
	Free        Plan = "free"
	EarlyAccess Plan = "early-access"
	Coffee      Plan = "coffee"
	Pro         Plan = "pro"
	Ultra       Plan = "ultra"
	Business    Plan = "business"
)

// planTerms is what a plan gives: its default quotas, whether an account may
// have custom ones, what of the paid endpoints it opens without a trial, and
// how it is offered (SPEC.md's Limits table; DECISIONS.md for Pro).
type planTerms struct {
	plan   Plan
	name   string // as the spec's table names it
	limits ratelimit.Limits
	// custom: the account's own limits apply. For Coffee they are a floor
	// raised, never lowered; for Business they replace the default.
	custom bool
	paid   PaidScope
	// price is the spec's price column in EUR throughout (the spec writes
	// Free's as "$0"; every price the portal names is in EUR).
	price string
	// open: a new account may move to the plan (Early Access is closed).
	open bool
	// checkout: bought by card, per month, on the upgrade page when a
	// payment provider is configured (Business is on contact).
	checkout bool
	// voluntary: the buyer chooses the monthly amount, at least the
	// operator's minimum (Coffee, the spec's "voluntary payment").
	voluntary bool
	// alerts and webhooks: how many price alerts and webhook endpoints an
	// account on the plan may keep (issue 25); Business's are the
	// operator's, by contract (AlertLimits).
	alerts, webhooks int
}

// PaidScope is what of the paid endpoints a plan opens without a trial.
type PaidScope uint8

const (
	// PaidNone: the free endpoints only; the paid ones need a trial.
	PaidNone PaidScope = iota
	// PaidOriginalGames: the paid endpoints of the base game and the second
	// game only (Pro): the games whose registry entry says ProPaid (Pokémon
	// and One Piece).
	PaidOriginalGames
	// PaidAll: every paid endpoint of every game (Ultra, Business).
	PaidAll
)

// plans is the one plan table (SPEC.md, "Limits"), in the spec's order.
var plans = [...]planTerms{
	{Free, "Free", ratelimit.Limits{Hour: 100, Day: 1000}, false, PaidNone, "0 EUR per month", true, false, false, 3, 0},
	{EarlyAccess, "Early Access", ratelimit.Limits{Hour: 1000, Day: 10000}, false, PaidNone, "closed", false, false, false, 3, 0},
	{Coffee, "Coffee", ratelimit.Limits{Hour: 1000, Day: 10000}, true, PaidNone, "voluntary payment", true, true, true, 100, 3},
	{Pro, "Pro", ratelimit.Limits{Hour: 5000, Day: 50000}, false, PaidOriginalGames, "20 EUR per month", true, true, false, 100, 3},
	{Ultra, "Ultra", ratelimit.Limits{Hour: 7000, Day: 70000}, false, PaidAll, "29 EUR per month", true, true, false, 1000, 10},
	{Business, "Business", ratelimit.Limits{Hour: 10000, Day: 100000}, true, PaidAll, "on contact", true, false, false, DefaultBusinessAlerts, 50},
}

// Plans lists every plan in the order of the spec's table.
func Plans() []Plan {
	out := make([]Plan, len(plans))
	for i := range plans {
		out[i] = plans[i].plan
	}
	return out
}

// terms returns the plan's row; an unknown plan gets Free's.
func (p Plan) terms() *planTerms {
	for i := range plans {
		if plans[i].plan == p {
			return &plans[i]
		}
	}
	return &plans[0]
}

// ParsePlan validates a plan name.
func ParsePlan(s string) (Plan, error) {
	for i := range plans {
		if string(plans[i].plan) == s {
			return plans[i].plan, nil
		}
	}
	names := make([]string, len(plans))
	for i := range plans {
		names[i] = string(plans[i].plan)
	}
	return "", fmt.Errorf("unknown plan %q (want one of %s)", s, strings.Join(names, ", "))
}

// DefaultLimits are a plan's hourly and daily quotas: what an account on it
// gets without custom limits.
func (p Plan) DefaultLimits() ratelimit.Limits { return p.terms().limits }

// CustomLimits reports whether the plan takes per-account limits (Coffee,
// Business).
func (p Plan) CustomLimits() bool { return p.terms().custom }

// IncludesPaid reports whether the plan opens the paid endpoints without a
// trial (Ultra, Business).
func (p Plan) IncludesPaid() bool { return p.terms().paid == PaidAll }

// Name is the plan's name as the spec's table writes it ("Early Access").
func (p Plan) Name() string { return p.terms().name }

// Price is the plan's price as the spec's table gives it, in EUR ("20 EUR
// per month", "voluntary payment", "on contact", "closed").
func (p Plan) Price() string { return p.terms().price }

// Open reports whether an account may move to the plan today; Early Access
// is closed to new users.
func (p Plan) Open() bool { return p.terms().open }

// Checkout reports whether the plan is bought by card on the upgrade page
// (Coffee, Pro and Ultra) when a payment provider is configured.
func (p Plan) Checkout() bool { return p.terms().checkout }

// Voluntary reports whether the buyer chooses what the plan costs a month,
// at least the operator's minimum (Coffee; CheckVoluntary says what
// amounts are taken). Its Price names no amount.
func (p Plan) Voluntary() bool { return p.terms().voluntary }

// Paid is what of the paid endpoints the plan opens without a trial.
// IncludesPaid is the answer for the games cardcat serves.
func (p Plan) Paid() PaidScope { return p.terms().paid }

// Quota says how a plan's limits are set.
type Quota uint8

const (
	QuotaFixed  Quota = iota // the plan's limits, the same for everyone
	QuotaFloor               // at least the plan's limits, raised per account (Coffee)
	QuotaCustom              // set per account (Business)
)

// Quota says how the plan's limits are set; Account.Limits applies it.
func (p Plan) Quota() Quota {
	switch {
	case !p.CustomLimits():
		return QuotaFixed
	case p == Business:
		return QuotaCustom
	default:
		return QuotaFloor
	}
}

// FreeLimits are the Free plan's quotas: what public routes report to a
// caller without a key.
func FreeLimits() ratelimit.Limits { return Free.DefaultLimits() }

// CheckLimits says what is wrong with custom limits (0: the plan's default)
// for an account on p: a plan of fixed limits takes none, a limit is not
// negative, and Coffee's are at least its default (the floor
// Account.Limits would apply anyway, refused here so that an operator
// never sets a limit that does nothing).
func CheckLimits(p Plan, hour, day int64) error {
	if (hour != 0 || day != 0) && !p.CustomLimits() {
		var custom []string
		for i := range plans {
			if plans[i].custom {
				custom = append(custom, string(plans[i].plan))
			}
		}
		return fmt.Errorf("plan %s has fixed limits; only %s take custom ones", p, strings.Join(custom, " and "))
	}
	if hour < 0 || day < 0 {
		return errors.New("limits must be positive")
	}
	if floor := p.DefaultLimits(); p.Quota() == QuotaFloor && (hour != 0 && hour < floor.Hour || day != 0 && day < floor.Day) {
		return fmt.Errorf("%s limits are at least %d/hour and %d/day", p, floor.Hour, floor.Day)
	}
	return nil
}

// DefaultBusinessAlerts is how many alerts a Business account keeps unless
// the operator's contract says otherwise (--alerts-business-max).
const DefaultBusinessAlerts = 10_000

// AlertLimits are how many price alerts and webhook endpoints an account on
// the plan may keep: Free (and the closed Early Access) 3 alerts and no
// webhook, the paid plans more; Business's alerts are businessAlerts (the
// operator's setting, by contract), or DefaultBusinessAlerts when it is 0.
func (p Plan) AlertLimits(businessAlerts int) (alerts, webhooks int) {
	t := p.terms()
	if p == Business && businessAlerts > 0 {
		return businessAlerts, t.webhooks
	}
	return t.alerts, t.webhooks
}

// SubscriptionLimit is how many card.changed subscriptions an account on
// the plan may keep: ten for each webhook endpoint the plan allows (Free
// none, as it has no webhook; Pro 30, Ultra 100, Business 500).
func (p Plan) SubscriptionLimit() int {
	return 10 * p.terms().webhooks
}
