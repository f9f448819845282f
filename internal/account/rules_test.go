package account

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestCheckLimits: only Coffee and Business take custom limits, never
// negative, and Coffee's never below its default (the floor).
func TestCheckLimits(t *testing.T) {
	for _, tt := range []struct {
		plan      Plan
		hour, day int64
		want      string // in the error; "" for none
	}{
		{Coffee, 0, 0, ""},
		{Coffee, 1000, 10000, ""},
		{Coffee, 1500, 0, ""},
		{Coffee, 999, 0, "coffee limits are at least 1000/hour and 10000/day"},
		{Coffee, 0, 9999, "coffee limits are at least 1000/hour and 10000/day"},
		{Business, 2, 100, ""},
		{Business, -1, 0, "limits must be positive"},
		{Pro, 0, 0, ""},
		{Pro, 6000, 0, "plan pro has fixed limits; only coffee and business take custom ones"},
		{Free, 0, 1, "plan free has fixed limits"},
	} {
		err := CheckLimits(tt.plan, tt.hour, tt.day)
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("CheckLimits(%s, %d, %d) = %v, want %q", tt.plan, tt.hour, tt.day, err, tt.want)
		}
	}
}

func TestCheckKeyName(t *testing.T) {
	for _, tt := range []struct {
		name string
		ok   bool
	}{
		{"", true},
		{"laptop", true},
		{strings.Repeat("é", MaxKeyName), true},
		{strings.Repeat("x", MaxKeyName+1), false},
		{"bad \xff utf-8", false},
	} {
		if err := CheckKeyName(tt.name); (err == nil) != tt.ok {
			t.Errorf("CheckKeyName(%q) = %v, want ok %v", tt.name, err, tt.ok)
		}
	}
}

func TestTrialEnd(t *testing.T) {
	start := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	if end := (&Account{}).TrialEnd(); !end.IsZero() {
		t.Errorf("never started: %v, want zero", end)
	}
	if end := (&Account{TrialStartedAt: start}).TrialEnd(); !end.Equal(start.AddDate(0, 0, 7)) {
		t.Errorf("started %v: ends %v, want 7 days on", start, end)
	}
}

// TestUsagePeriods: the hourly and daily periods cover the last n hours
// and d days up to now's, UTC (today whole), and each stored hour counts
// in its own hour and day only.
func TestUsagePeriods(t *testing.T) {
	now := time.Date(2026, 3, 4, 1, 30, 0, 0, time.UTC).In(time.FixedZone("EST", -5*3600))
	p := NewUsagePeriods(now, 3, 2)
	h := func(day, hour int) time.Time { return time.Date(2026, 3, day, hour, 0, 0, 0, time.UTC) }
	if !p.From.Equal(h(3, 0)) || !p.To.Equal(h(5, 0)) {
		t.Errorf("reads [%v, %v), want [%v, %v)", p.From, p.To, h(3, 0), h(5, 0))
	}
	p.Add([]Usage{
		{Hour: h(2, 23), Requests: 100}, // before both spans
		{Hour: h(3, 0), Requests: 1},
		{Hour: h(3, 23), Requests: 2, Refused: 1},
		{Hour: h(4, 0), Requests: 4},
		{Hour: h(4, 1), Requests: 8, Refused: 8},
		{Hour: h(4, 5), Requests: 16}, // later today (a replica's clock ahead): the day only
	})
	wantHours := []UsagePeriod{{h(3, 23), 2, 1}, {h(4, 0), 4, 0}, {h(4, 1), 8, 8}}
	wantDays := []UsagePeriod{{h(3, 0), 3, 1}, {h(4, 0), 28, 8}}
	if diff := cmp.Diff(wantHours, p.Hours); diff != "" {
		t.Errorf("hours (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantDays, p.Days); diff != "" {
		t.Errorf("days (-want +got):\n%s", diff)
	}
	if p := NewUsagePeriods(now, 0, 0); !p.From.Equal(p.To) || len(p.Hours)+len(p.Days) != 0 {
		t.Errorf("no periods: %+v, want an empty read", p)
	}
	if p := NewUsagePeriods(now, 48, 0); !p.From.Equal(h(2, 2)) || !p.To.Equal(h(4, 2)) {
		t.Errorf("hours only: reads [%v, %v), want [%v, %v)", p.From, p.To, h(2, 2), h(4, 2))
	}
}
