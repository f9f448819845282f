// Package schedule runs a job at fixed UTC times of day, once among several
// replicas: the scheduled catalogue refresh of `cardcat serve --refresh-at`.
// A run takes a lock shared by the replicas, checks that the work is still
// due (another replica may have done it), and retries a failed attempt with
// a bounded, jittered backoff; its outcome is logged, counted and kept for
// Status.
package schedule

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Times are the UTC times of day a job is due, every day, in minutes after
// midnight, sorted, without repeats. Empty means never.
type Times []int

// ParseTimes reads a comma-separated list of UTC times of day, each HH:MM
// (24-hour, two digits each): "03:00" or "03:00,15:30".
func ParseTimes(s string) (Times, error) {
	var t Times
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		hm, err := time.Parse("15:04", f)
		if err != nil || len(f) != len("15:04") {
			return nil, fmt.Errorf("want UTC times of day as HH:MM (00:00 to 23:59), comma-separated, got %q", f)
		}
		t = append(t, hm.Hour()*60+hm.Minute())
	}
	slices.Sort(t)
	return slices.Compact(t), nil
}

// Add returns the times of t and u together.
func (t Times) Add(u Times) Times {
	all := slices.Concat(t, u)
	slices.Sort(all)
	return slices.Compact(all)
}

// String writes the times as ParseTimes reads them.
func (t Times) String() string {
	s := make([]string, len(t))
	for i, m := range t {
		s[i] = fmt.Sprintf("%02d:%02d", m/60, m%60)
	}
	return strings.Join(s, ",")
}

// Next is the first due time strictly after after (zero when t is empty).
func (t Times) Next(after time.Time) time.Time {
	if len(t) == 0 {
		return time.Time{}
	}
	day := midnight(after)
	for _, m := range t {
		if d := day.Add(time.Duration(m) * time.Minute); d.After(after) {
			return d
		}
	}
	return day.AddDate(0, 0, 1).Add(time.Duration(t[0]) * time.Minute)
}

// Last is the latest due time at or before at, within the last day (zero
// when t is empty).
func (t Times) Last(at time.Time) time.Time {
	if len(t) == 0 {
		return time.Time{}
	}
	day := midnight(at)
	for _, m := range slices.Backward(t) {
		if d := day.Add(time.Duration(m) * time.Minute); !d.After(at) {
			return d
		}
	}
	return day.AddDate(0, 0, -1).Add(time.Duration(t[len(t)-1]) * time.Minute)
}

func midnight(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}
