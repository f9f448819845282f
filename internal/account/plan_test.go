package account

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cardcat/cardcat/internal/ratelimit"
)

// The plan table as the upgrade page shows it: SPEC.md's Limits table row
// by row with every price in EUR, Early Access closed, Coffee bought at an
// amount its buyer chooses, and Pro's paid access limited to its games
// (DECISIONS.md).
func TestPlanTable(t *testing.T) {
	type row struct {
		Plan     Plan
		Name     string
		Limits   ratelimit.Limits
		Quota    Quota
		Price    string
		Open     bool
		Checkout bool
		Chosen   bool
		Paid     PaidScope
		Includes bool
	}
	want := []row{
		{Free, "Free", ratelimit.Limits{Hour: 100, Day: 1000}, QuotaFixed, "0 EUR per month", true, false, false, PaidNone, false},
		{EarlyAccess, "Early Access", ratelimit.Limits{Hour: 1000, Day: 10000}, QuotaFixed, "closed", false, false, false, PaidNone, false},
		{Coffee, "Coffee", ratelimit.Limits{Hour: 1000, Day: 10000}, QuotaFloor, "voluntary payment", true, true, true, PaidNone, false},
		{Pro, "Pro", ratelimit.Limits{Hour: 5000, Day: 50000}, QuotaFixed, "20 EUR per month", true, true, false, PaidOriginalGames, false},
		{Ultra, "Ultra", ratelimit.Limits{Hour: 7000, Day: 70000}, QuotaFixed, "29 EUR per month", true, true, false, PaidAll, true},
		{Business, "Business", ratelimit.Limits{Hour: 10000, Day: 100000}, QuotaCustom, "on contact", true, false, false, PaidAll, true},
	}
	var got []row
	for _, p := range Plans() {
		got = append(got, row{p, p.Name(), p.DefaultLimits(), p.Quota(), p.Price(), p.Open(), p.Checkout(), p.Voluntary(), p.Paid(), p.IncludesPaid()})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("plan table (-want +got):\n%s", diff)
	}
}

// Quota agrees with what Account.Limits does with an account's own limits:
// a floor only raises, custom replaces, fixed ignores them.
func TestQuotaMatchesLimits(t *testing.T) {
	for _, p := range Plans() {
		def := p.DefaultLimits()
		lower := Account{Plan: p, HourLimit: def.Hour - 1, DayLimit: def.Day - 1}
		higher := Account{Plan: p, HourLimit: def.Hour + 1, DayLimit: def.Day + 1}
		var wantLower, wantHigher ratelimit.Limits
		switch p.Quota() {
		case QuotaFixed:
			wantLower, wantHigher = def, def
		case QuotaFloor:
			wantLower, wantHigher = def, ratelimit.Limits{Hour: def.Hour + 1, Day: def.Day + 1}
		case QuotaCustom:
			wantLower, wantHigher = ratelimit.Limits{Hour: def.Hour - 1, Day: def.Day - 1}, ratelimit.Limits{Hour: def.Hour + 1, Day: def.Day + 1}
		}
		if got := lower.Limits(); got != wantLower {
			t.Errorf("%s with lower own limits: %+v, want %+v", p, got, wantLower)
		}
		if got := higher.Limits(); got != wantHigher {
			t.Errorf("%s with higher own limits: %+v, want %+v", p, got, wantHigher)
		}
	}
}
