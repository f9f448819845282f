package status

import "time"

// WindowDays is how many UTC days of uptime the page shows, today
// included; the checks are kept that long (Prune).
const WindowDays = 90

// Day is the uptime of one UTC day.
type Day struct {
	Date time.Time // 00:00 UTC
	// Minutes are the minutes of the day that count: from the first check
	// ever recorded (or the day's start, if later) to the day's end or the
	// current minute (not included), whichever is sooner.
	Minutes int
	Up      int // of Minutes, those whose check answered 200
	// NoCheck are the Minutes without a check: nobody probed (every
	// replica down, or the probe off); they count as down.
	NoCheck int
}

// Down is the day's minutes that count as down: failed checks and minutes
// without one.
func (d Day) Down() int { return d.Minutes - d.Up }

// Share is the share of the day's minutes up, from 0 to 1; ok is false
// for a day with no minute that counts (before the first check).
func (d Day) Share() (share float64, ok bool) {
	if d.Minutes == 0 {
		return 0, false
	}
	return float64(d.Up) / float64(d.Minutes), true
}

// Uptime is the uptime of the window: a Day per UTC day, oldest first,
// and their total.
type Uptime struct {
	Days    []Day
	Minutes int
	Up      int
}

// Share is the window's share of minutes up (ok false with no minute that
// counts).
func (u Uptime) Share() (share float64, ok bool) {
	return Day{Minutes: u.Minutes, Up: u.Up}.Share()
}

// WindowStart is the first minute of the window that ends with now's UTC
// day: WindowDays days, today included.
func WindowStart(now time.Time) time.Time {
	return dayOf(now).AddDate(0, 0, -(WindowDays - 1))
}

// UptimeEnd is the end (excluded) of the minutes that count at now: the
// current minute is not over, and its check may not be recorded yet.
func UptimeEnd(now time.Time) time.Time { return now.UTC().Truncate(time.Minute) }

// ComputeUptime is the uptime of the window ending with now's UTC day,
// from the checks counted per day (Store.CheckDays of WindowStart to
// UptimeEnd) and the minute of the first check ever recorded (zero when
// none: no minute counts). A minute counts from the first check on; before
// it, nothing was measured, and a minute without a check after it counts
// as down.
func ComputeUptime(counts []DayChecks, first, now time.Time) Uptime {
	end := UptimeEnd(now)
	byDay := map[time.Time]DayChecks{}
	for _, c := range counts {
		byDay[dayOf(c.Day)] = c
	}
	var u Uptime
	start := WindowStart(now)
	for i := range WindowDays {
		d := start.AddDate(0, 0, i)
		day := Day{Date: d}
		if !first.IsZero() {
			from, to := d, d.AddDate(0, 0, 1)
			if first.After(from) {
				from = first.UTC().Truncate(time.Minute)
			}
			if end.Before(to) {
				to = end
			}
			if to.After(from) {
				day.Minutes = int(to.Sub(from) / time.Minute)
			}
			c := byDay[d]
			day.Up = min(c.Up, day.Minutes)
			day.NoCheck = max(day.Minutes-c.Recorded, 0)
		}
		u.Days = append(u.Days, day)
		u.Minutes += day.Minutes
		u.Up += day.Up
	}
	return u
}

func dayOf(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}
