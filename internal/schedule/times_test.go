package schedule

import (
	"testing"
	"time"
)

func TestParseTimes(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{"03:00", "03:00"},
		{"15:30,03:00", "03:00,15:30"},
		{" 03:00 , 03:00,23:59", "03:00,23:59"},
		{"00:00", "00:00"},
	} {
		got, err := ParseTimes(tc.in)
		if err != nil || got.String() != tc.want {
			t.Errorf("ParseTimes(%q) = %v, %v; want %s", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "3:00", "24:00", "12:60", "12", "12:00,", "noon", "12:00:00", "12:00Z"} {
		if got, err := ParseTimes(bad); err == nil {
			t.Errorf("ParseTimes(%q) = %v, want an error", bad, got)
		}
	}
}

func TestNextAndLast(t *testing.T) {
	times, err := ParseTimes("03:00,15:30")
	if err != nil {
		t.Fatal(err)
	}
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, tc := range []struct{ now, next, last string }{
		{"2026-11-25T02:59:59Z", "2026-11-25T03:00:00Z", "2026-11-24T15:30:00Z"},
		{"2026-11-25T03:00:00Z", "2026-11-25T15:30:00Z", "2026-11-25T03:00:00Z"}, // due now: Last, not Next
		{"2026-11-25T12:00:00Z", "2026-11-25T15:30:00Z", "2026-11-25T03:00:00Z"},
		{"2026-11-25T23:59:00Z", "2026-11-26T03:00:00Z", "2026-11-25T15:30:00Z"},
		{"2026-12-31T20:00:00Z", "2027-01-01T03:00:00Z", "2026-12-31T15:30:00Z"},
		{"2026-11-25T04:00:00+02:00", "2026-11-25T03:00:00Z", "2026-11-24T15:30:00Z"}, // 02:00 UTC
	} {
		now := at(tc.now)
		if got := times.Next(now); !got.Equal(at(tc.next)) {
			t.Errorf("Next(%s) = %s, want %s", tc.now, got, tc.next)
		}
		if got := times.Last(now); !got.Equal(at(tc.last)) {
			t.Errorf("Last(%s) = %s, want %s", tc.now, got, tc.last)
		}
	}
	if !Times(nil).Next(time.Now()).IsZero() || !Times(nil).Last(time.Now()).IsZero() {
		t.Error("no times: want zero times")
	}
}
