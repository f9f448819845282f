package account

import (
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
// have custom ones, and whether it opens the paid endpoints without a trial.
type planTerms struct {
	plan   Plan
	limits ratelimit.Limits
	// custom: the account's own limits apply. For Coffee they are a floor
	// raised, never lowered; for Business they replace the default.
	custom bool
	paid   bool
}

// plans is the one plan table (SPEC.md, "Limits"), in the spec's order.
var plans = [...]planTerms{
	{Free, ratelimit.Limits{Hour: 100, Day: 1000}, false, false},
	{EarlyAccess, ratelimit.Limits{Hour: 1000, Day: 10000}, false, false},
	{Coffee, ratelimit.Limits{Hour: 1000, Day: 10000}, true, false},
	{Pro, ratelimit.Limits{Hour: 5000, Day: 50000}, false, false},
	{Ultra, ratelimit.Limits{Hour: 7000, Day: 70000}, false, true},
	{Business, ratelimit.Limits{Hour: 10000, Day: 100000}, true, true},
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
func (p Plan) IncludesPaid() bool { return p.terms().paid }

// FreeLimits are the Free plan's quotas: what public routes report to a
// caller without a key.
func FreeLimits() ratelimit.Limits { return Free.DefaultLimits() }
