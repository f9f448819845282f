package account

import "time"

// UsagePeriods is an account's usage as the portal's usage page and
// `cardcat accounts usage` show it, so that the two never disagree on a
// figure: per UTC hour over the hours up to now's, and per UTC day over
// the days up to today, every period listed, those without traffic too,
// oldest first.
type UsagePeriods struct {
	From, To    time.Time // the hours to read (Store.UsageBetween)
	Hours, Days []UsagePeriod
}

// UsagePeriod is one hour's or one day's traffic: every keyed request,
// 429s included, and the 429s among them.
type UsagePeriod struct {
	Start             time.Time
	Requests, Refused int64
}

// NewUsagePeriods returns the periods of the hours hours up to now's and
// of the days days up to today (UTC), all zero.
func NewUsagePeriods(now time.Time, hours, days int) *UsagePeriods {
	hour := now.UTC().Truncate(time.Hour)
	y, m, d := now.UTC().Date()
	today := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	p := &UsagePeriods{From: hour.Add(time.Hour), To: hour.Add(time.Hour)}
	for i := hours - 1; i >= 0; i-- {
		p.Hours = append(p.Hours, UsagePeriod{Start: hour.Add(-time.Duration(i) * time.Hour)})
	}
	for i := days - 1; i >= 0; i-- {
		p.Days = append(p.Days, UsagePeriod{Start: today.AddDate(0, 0, -i)})
	}
	if hours > 0 {
		p.From = p.Hours[0].Start
	}
	if days > 0 {
		if p.Days[0].Start.Before(p.From) {
			p.From = p.Days[0].Start
		}
		// Today's row is the whole UTC day, as far as any replica counted.
		p.To = today.AddDate(0, 0, 1)
	}
	return p
}

// Add counts each hour of us in its hour's and its day's period, where p
// has them.
func (p *UsagePeriods) Add(us []Usage) {
	for _, u := range us {
		h := u.Hour.UTC()
		addTo(p.Hours, h, time.Hour, u)
		addTo(p.Days, h, 24*time.Hour, u) // a UTC day is always 24 hours
	}
}

// addTo adds u to the period of periods, each of length, that holds h.
func addTo(periods []UsagePeriod, h time.Time, length time.Duration, u Usage) {
	if len(periods) == 0 || h.Before(periods[0].Start) {
		return
	}
	if i := int(h.Sub(periods[0].Start) / length); i < len(periods) {
		periods[i].Requests += u.Requests
		periods[i].Refused += u.Refused
	}
}
