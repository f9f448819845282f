package ratelimit_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cardcat/cardcat/internal/ratelimit"
)

func utc(y int, mo time.Month, d, h, mi, s, ns int) time.Time {
	return time.Date(y, mo, d, h, mi, s, ns, time.UTC)
}

func TestPeriodAt(t *testing.T) {
	kolkata := time.FixedZone("IST", 5*3600+1800) // a half-hour offset must not shift the windows
	tests := []struct {
		name             string
		at               time.Time
		hourEnd, dayEnd  time.Time
		sameHourAsBefore bool // whether at is in the same hour as one nanosecond earlier
	}{
		{"mid hour", utc(2025, 3, 14, 13, 20, 0, 0), utc(2025, 3, 14, 14, 0, 0, 0), utc(2025, 3, 15, 0, 0, 0, 0), true},
		{"last instant of an hour", utc(2025, 3, 14, 13, 59, 59, 999999999), utc(2025, 3, 14, 14, 0, 0, 0), utc(2025, 3, 15, 0, 0, 0, 0), true},
		{"first instant of an hour", utc(2025, 3, 14, 14, 0, 0, 0), utc(2025, 3, 14, 15, 0, 0, 0), utc(2025, 3, 15, 0, 0, 0, 0), false},
		{"last second of a day", utc(2025, 3, 14, 23, 59, 59, 0), utc(2025, 3, 15, 0, 0, 0, 0), utc(2025, 3, 15, 0, 0, 0, 0), true},
		{"midnight", utc(2025, 3, 15, 0, 0, 0, 0), utc(2025, 3, 15, 1, 0, 0, 0), utc(2025, 3, 16, 0, 0, 0, 0), false},
		{"end of a 30-day month", utc(2025, 4, 30, 23, 30, 0, 0), utc(2025, 5, 1, 0, 0, 0, 0), utc(2025, 5, 1, 0, 0, 0, 0), true},
		{"end of a 31-day month", utc(2025, 1, 31, 23, 59, 59, 999999999), utc(2025, 2, 1, 0, 0, 0, 0), utc(2025, 2, 1, 0, 0, 0, 0), true},
		{"end of February, common year", utc(2025, 2, 28, 23, 0, 0, 0), utc(2025, 3, 1, 0, 0, 0, 0), utc(2025, 3, 1, 0, 0, 0, 0), false},
		{"day before a leap day", utc(2024, 2, 28, 23, 59, 59, 0), utc(2024, 2, 29, 0, 0, 0, 0), utc(2024, 2, 29, 0, 0, 0, 0), true},
		{"leap day", utc(2024, 2, 29, 12, 0, 0, 0), utc(2024, 2, 29, 13, 0, 0, 0), utc(2024, 3, 1, 0, 0, 0, 0), false},
		{"end of a leap day", utc(2024, 2, 29, 23, 59, 59, 0), utc(2024, 3, 1, 0, 0, 0, 0), utc(2024, 3, 1, 0, 0, 0, 0), true},
		{"end of a year", utc(2025, 12, 31, 23, 59, 59, 999999999), utc(2026, 1, 1, 0, 0, 0, 0), utc(2026, 1, 1, 0, 0, 0, 0), true},
		{"new year", utc(2026, 1, 1, 0, 0, 0, 0), utc(2026, 1, 1, 1, 0, 0, 0), utc(2026, 1, 2, 0, 0, 0, 0), false},
		{"end of a leap year", utc(2024, 12, 31, 23, 0, 0, 0), utc(2025, 1, 1, 0, 0, 0, 0), utc(2025, 1, 1, 0, 0, 0, 0), false},
		{"Unix epoch", utc(1970, 1, 1, 0, 0, 0, 0), utc(1970, 1, 1, 1, 0, 0, 0), utc(1970, 1, 2, 0, 0, 0, 0), false},
		{"just before the epoch", utc(1969, 12, 31, 23, 59, 59, 500000000), utc(1970, 1, 1, 0, 0, 0, 0), utc(1970, 1, 1, 0, 0, 0, 0), true},
		{"other zone, UTC date differs", time.Date(2025, 3, 15, 2, 0, 0, 0, kolkata), utc(2025, 3, 14, 21, 0, 0, 0), utc(2025, 3, 15, 0, 0, 0, 0), true},
		{"other zone, UTC hour is half-way", time.Date(2025, 3, 15, 5, 0, 0, 0, kolkata), utc(2025, 3, 15, 0, 0, 0, 0), utc(2025, 3, 15, 0, 0, 0, 0), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := ratelimit.PeriodAt(tt.at)
			got := []time.Time{p.HourEnd(), p.DayEnd()}
			want := []time.Time{tt.hourEnd, tt.dayEnd}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("PeriodAt(%v) ends (-want +got):\n%s", tt.at, diff)
			}
			for _, end := range got {
				if end.Location() != time.UTC {
					t.Errorf("end %v is in %v, want UTC", end, end.Location())
				}
			}
			before := ratelimit.PeriodAt(tt.at.Add(-time.Nanosecond))
			if same := before.Hour == p.Hour; same != tt.sameHourAsBefore {
				t.Errorf("hour of %v equals hour of 1ns earlier: %v, want %v", tt.at, same, tt.sameHourAsBefore)
			}
			if p.Day != before.Day && p.Hour == before.Hour {
				t.Errorf("day changed within an hour at %v", tt.at)
			}
		})
	}
}

// TestPeriodAtMatchesCalendar checks the integer arithmetic against the
// calendar, hour by hour, across a leap year and two year ends.
func TestPeriodAtMatchesCalendar(t *testing.T) {
	start := utc(2023, 12, 31, 0, 0, 0, 0)
	end := utc(2025, 1, 2, 0, 0, 0, 0)
	prev := ratelimit.PeriodAt(start.Add(-time.Hour))
	for at := start; at.Before(end); at = at.Add(time.Hour) {
		for _, offset := range []time.Duration{0, 59*time.Minute + 59*time.Second} {
			in := at.Add(offset)
			p := ratelimit.PeriodAt(in)
			y, m, d := in.Date()
			wantHourEnd := time.Date(y, m, d, in.Hour()+1, 0, 0, 0, time.UTC)
			wantDayEnd := time.Date(y, m, d+1, 0, 0, 0, 0, time.UTC)
			if !p.HourEnd().Equal(wantHourEnd) || !p.DayEnd().Equal(wantDayEnd) {
				t.Fatalf("PeriodAt(%v) ends = %v, %v; want %v, %v", in, p.HourEnd(), p.DayEnd(), wantHourEnd, wantDayEnd)
			}
		}
		p := ratelimit.PeriodAt(at)
		if p.Hour != prev.Hour+1 {
			t.Fatalf("hour number at %v = %d, want %d", at, p.Hour, prev.Hour+1)
		}
		wantNewDay := at.Hour() == 0
		if gotNewDay := p.Day == prev.Day+1; gotNewDay != wantNewDay || (!wantNewDay && p.Day != prev.Day) {
			t.Fatalf("day number at %v = %d after %d", at, p.Day, prev.Day)
		}
		prev = p
	}
}

func TestNewResult(t *testing.T) {
	now := utc(2025, 3, 14, 13, 20, 0, 500000000)
	p := ratelimit.PeriodAt(now)
	hourEnd, dayEnd := utc(2025, 3, 14, 14, 0, 0, 0), utc(2025, 3, 15, 0, 0, 0, 0)
	tests := []struct {
		name              string
		lim               ratelimit.Limits
		hourUsed, dayUsed int64
		allowed           bool
		want              ratelimit.Result
	}{
		{
			name: "allowed, last unit taken", lim: ratelimit.Limits{Hour: 100, Day: 1000}, hourUsed: 100, dayUsed: 100, allowed: true,
			want: ratelimit.Result{
				Allowed: true,
				Hour:    ratelimit.Window{Limit: 100, Used: 100, Remaining: 0, Reset: hourEnd},
				Day:     ratelimit.Window{Limit: 1000, Used: 100, Remaining: 900, Reset: dayEnd},
			},
		},
		{
			name: "hour exhausted", lim: ratelimit.Limits{Hour: 100, Day: 1000}, hourUsed: 100, dayUsed: 400,
			want: ratelimit.Result{
				Hour:       ratelimit.Window{Limit: 100, Used: 100, Remaining: 0, Reset: hourEnd},
				Day:        ratelimit.Window{Limit: 1000, Used: 400, Remaining: 600, Reset: dayEnd},
				RetryAfter: 39*time.Minute + 59*time.Second + 500*time.Millisecond,
			},
		},
		{
			name: "day exhausted", lim: ratelimit.Limits{Hour: 100, Day: 1000}, hourUsed: 10, dayUsed: 1000,
			want: ratelimit.Result{
				Hour:       ratelimit.Window{Limit: 100, Used: 10, Remaining: 90, Reset: hourEnd},
				Day:        ratelimit.Window{Limit: 1000, Used: 1000, Remaining: 0, Reset: dayEnd},
				RetryAfter: 10*time.Hour + 39*time.Minute + 59*time.Second + 500*time.Millisecond,
			},
		},
		{
			name: "both exhausted waits for the later", lim: ratelimit.Limits{Hour: 10, Day: 10}, hourUsed: 10, dayUsed: 10,
			want: ratelimit.Result{
				Hour:       ratelimit.Window{Limit: 10, Used: 10, Remaining: 0, Reset: hourEnd},
				Day:        ratelimit.Window{Limit: 10, Used: 10, Remaining: 0, Reset: dayEnd},
				RetryAfter: 10*time.Hour + 39*time.Minute + 59*time.Second + 500*time.Millisecond,
			},
		},
		{
			name: "used beyond a lowered limit", lim: ratelimit.Limits{Hour: 100, Day: 1000}, hourUsed: 150, dayUsed: 150,
			want: ratelimit.Result{
				Hour:       ratelimit.Window{Limit: 100, Used: 150, Remaining: 0, Reset: hourEnd},
				Day:        ratelimit.Window{Limit: 1000, Used: 150, Remaining: 850, Reset: dayEnd},
				RetryAfter: 39*time.Minute + 59*time.Second + 500*time.Millisecond,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ratelimit.NewResult(tt.lim, p, tt.hourUsed, tt.dayUsed, tt.allowed, now)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("NewResult (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLimitsAdmits(t *testing.T) {
	tests := []struct {
		lim               ratelimit.Limits
		hourUsed, dayUsed int64
		want              bool
	}{
		{ratelimit.Limits{Hour: 1, Day: 1}, 0, 0, true},
		{ratelimit.Limits{Hour: 1, Day: 2}, 1, 1, false},
		{ratelimit.Limits{Hour: 2, Day: 1}, 1, 1, false},
		{ratelimit.Limits{Hour: 0, Day: 10}, 0, 0, false},
		{ratelimit.Limits{Hour: -1, Day: 10}, 0, 0, false},
	}
	for _, tt := range tests {
		if got := tt.lim.Admits(tt.hourUsed, tt.dayUsed); got != tt.want {
			t.Errorf("%+v.Admits(%d, %d) = %v, want %v", tt.lim, tt.hourUsed, tt.dayUsed, got, tt.want)
		}
	}
}
