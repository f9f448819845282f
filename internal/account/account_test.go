package account

import (
	"strings"
	"testing"
	"time"
)

func TestWellFormed(t *testing.T) {
	good := "pk_live_" + strings.Repeat("aB3", 10) + "xY"
	tests := []struct {
		key  string
		want bool
	}{
		{good, true},
		{"pk_test_" + good[8:], true},
		{"pk_prod_" + good[8:], false},
		{good[:len(good)-1], false},
		{good + "a", false},
		{"pk_live_" + strings.Repeat("a", 31) + "-", false},
		{"pk_live_" + strings.Repeat("é", 16), false},
		{"", false},
		{"Bearer " + good, false},
	}
	for _, tt := range tests {
		if got := WellFormed(tt.key); got != tt.want {
			t.Errorf("WellFormed(%q) = %v, want %v", tt.key, got, tt.want)
		}
	}
}

func TestNewKey(t *testing.T) {
	seen := map[string]bool{}
	counts := map[rune]int{}
	for i := 0; i < 2000; i++ {
		k, err := NewKey(i%2 == 0)
		if err != nil {
			t.Fatal(err)
		}
		if !WellFormed(k) {
			t.Fatalf("NewKey gave malformed %q", k)
		}
		if (i%2 == 0) != strings.HasPrefix(k, "pk_test_") {
			t.Fatalf("key %q has the wrong kind", k)
		}
		if seen[k] {
			t.Fatalf("NewKey repeated %q", k)
		}
		seen[k] = true
		for _, r := range k[8:] {
			counts[r]++
		}
	}
	// 64,000 characters over 62 symbols: about 1,032 each. A skewed or
	// truncated alphabet shows up far outside this band.
	if len(counts) != 62 {
		t.Errorf("keys use %d distinct characters, want 62", len(counts))
	}
	for r, n := range counts {
		if n < 800 || n > 1300 {
			t.Errorf("character %q appears %d times; the draw is not uniform", r, n)
		}
	}
}

func TestHashKey(t *testing.T) {
	k := "pk_live_" + strings.Repeat("a", 32)
	if HashKey(k) == HashKey(k[:len(k)-1]+"b") || len(HashKey(k)) != 64 {
		t.Error("HashKey does not tell keys apart")
	}
	if DisplayPrefix(k) != "pk_live_aaaa" {
		t.Errorf("DisplayPrefix = %q", DisplayPrefix(k))
	}
}

func TestLimits(t *testing.T) {
	tests := []struct {
		a         Account
		hour, day int64
	}{
		{Account{Plan: Free}, 100, 1000},
		{Account{Plan: EarlyAccess}, 1000, 10000},
		{Account{Plan: Coffee}, 1000, 10000},
		{Account{Plan: Coffee, HourLimit: 2500, DayLimit: 20000}, 2500, 20000},
		{Account{Plan: Coffee, HourLimit: 10, DayLimit: 10}, 1000, 10000}, // never below the floor
		{Account{Plan: Pro}, 5000, 50000},
		{Account{Plan: Ultra}, 7000, 70000},
		{Account{Plan: Ultra, HourLimit: 1}, 7000, 70000}, // custom limits only for Coffee and Business
		{Account{Plan: Business}, 10000, 100000},
		{Account{Plan: Business, HourLimit: 50, DayLimit: 500}, 50, 500},
	}
	for _, tt := range tests {
		lim := tt.a.Limits()
		if lim.Hour != tt.hour || lim.Day != tt.day {
			t.Errorf("%+v: limits %d/%d, want %d/%d", tt.a, lim.Hour, lim.Day, tt.hour, tt.day)
		}
	}
}

func TestPaidAccess(t *testing.T) {
	start := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		plan  Plan
		trial time.Time
		now   time.Time
		want  Access
	}{
		{Ultra, time.Time{}, start, Allowed},
		{Business, time.Time{}, start, Allowed},
		{Free, time.Time{}, start, NeedsTrial},
		{Pro, time.Time{}, start, NeedsTrial},
		{Coffee, time.Time{}, start, NeedsTrial},
		{EarlyAccess, time.Time{}, start, NeedsTrial},
		{Free, start, start, Allowed},
		{Free, start, start.Add(TrialLength - time.Second), Allowed},
		{Free, start, start.Add(TrialLength), TrialExpired},
		{Pro, start, start.Add(30 * 24 * time.Hour), TrialExpired},
		{Ultra, start, start.Add(30 * 24 * time.Hour), Allowed},
	}
	for _, tt := range tests {
		a := Account{Plan: tt.plan, TrialStartedAt: tt.trial}
		if got := a.PaidAccess(tt.now); got != tt.want {
			t.Errorf("%s trial %v at %v: %v, want %v", tt.plan, tt.trial, tt.now, got, tt.want)
		}
	}
}

func TestParsePlan(t *testing.T) {
	for _, p := range Plans() {
		if got, err := ParsePlan(string(p)); err != nil || got != p {
			t.Errorf("ParsePlan(%q) = %q, %v", p, got, err)
		}
	}
	if _, err := ParsePlan("gold"); err == nil || !strings.Contains(err.Error(), "early-access") {
		t.Errorf("ParsePlan(gold) error = %v", err)
	}
}
