package ratelimit

import "time"

const (
	secondsPerHour = 60 * 60
	secondsPerDay  = 24 * secondsPerHour
)

// Period names the calendar hour and the calendar day (UTC) an instant falls
// in, as the number of whole hours and days since the Unix epoch.
//
// Unix time has no leap seconds and its epoch is a UTC midnight, so plain
// integer division gives exactly the UTC calendar windows, in any zone the
// caller's time.Time carries, without the cost of calendar arithmetic on the
// hot path. The numbers also make stable keys for counters (Redis key names).
type Period struct {
	Hour int64
	Day  int64
}

// PeriodAt returns the windows t falls in.
func PeriodAt(t time.Time) Period {
	s := t.Unix() // whole seconds, rounded down also before 1970
	return Period{Hour: floorDiv(s, secondsPerHour), Day: floorDiv(s, secondsPerDay)}
}

// HourEnd is the first instant of the next hour, in UTC.
func (p Period) HourEnd() time.Time {
	return time.Unix((p.Hour+1)*secondsPerHour, 0).UTC()
}

// DayEnd is the next 00:00 UTC.
func (p Period) DayEnd() time.Time {
	return time.Unix((p.Day+1)*secondsPerDay, 0).UTC()
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b < 0 {
		q--
	}
	return q
}
