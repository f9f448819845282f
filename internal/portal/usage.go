package portal

import (
	"html/template"
	"net/http"
	"time"

	"github.com/cardcat/cardcat/internal/account"
)

// The usage page's spans.
const (
	usageHours = 48
	usageDays  = 30
)

// usageTable is the periods with traffic and their total.
type usageTable struct {
	Rows  []usageRow
	Total usageRow
}

// usageRow is one line of a usage table.
type usageRow struct {
	Period   string
	Requests int64
	Refused  int64
}

type usageData struct {
	HourChart, DayChart template.HTML
	// Hours and Days list the periods with traffic only, newest first; the
	// charts show every one.
	Hours, Days       usageTable
	HourSpan, DaySpan int
	// Stale: this replica's last seconds could not be written first.
	Stale bool
}

// usagePage is GET /account/usage: requests per hour over 48 hours and per
// UTC day over 30 days, the 429s among them, as charts and tables.
func (p *Portal) usagePage(w http.ResponseWriter, r *http.Request, acc *account.Account) {
	ctx := r.Context()
	d := usageData{HourSpan: usageHours, DaySpan: usageDays}
	if p.deps.Usage != nil {
		if err := p.deps.Usage.Flush(ctx); err != nil {
			p.log.WarnContext(ctx, "portal: usage: flush", "error", err)
			d.Stale = true
		}
	}
	periods := account.NewUsagePeriods(p.now(), usageHours, usageDays)
	rows, err := p.deps.Store.UsageBetween(ctx, acc.ID, periods.From, periods.To)
	if err != nil {
		p.fail(w, r, "usage: read", err)
		return
	}
	periods.Add(rows)

	hours := make([]bar, usageHours)
	for i, h := range periods.Hours {
		t := h.Start
		hours[i].Requests, hours[i].Refused = h.Requests, h.Refused
		hours[i].Title = t.Format("2006-01-02 15:00") + "–" + t.Add(time.Hour).Format("15:00 UTC")
		switch {
		case t.Hour() == 0:
			hours[i].Label = t.Format("Jan 2")
		case t.Hour()%6 == 0:
			hours[i].Label = t.Format("15:00")
		}
	}
	days := make([]bar, usageDays)
	for i, day := range periods.Days {
		t := day.Start
		days[i].Requests, days[i].Refused = day.Requests, day.Refused
		days[i].Title = t.Format("2006-01-02")
		if (usageDays-1-i)%5 == 0 {
			days[i].Label = t.Format("Jan 2")
		}
	}
	d.Hours, d.Days = tableOf(hours), tableOf(days)
	d.HourChart = barChart("chart-hours", "Requests per hour, last 48 hours",
		chartDesc(d.Hours.Total, "hour", hours[0].Title, hours[usageHours-1].Title), hours)
	d.DayChart = barChart("chart-days", "Requests per day, last 30 days",
		chartDesc(d.Days.Total, "UTC day", days[0].Title, days[usageDays-1].Title), days)
	p.render(w, r, http.StatusOK, "usage", pageData{Title: "Usage", Nav: "usage", Data: d})
}

// tableOf is the rows of the periods with traffic, newest first, and their
// total.
func tableOf(bars []bar) usageTable {
	t := usageTable{Total: usageRow{Period: "Total"}}
	for i := len(bars) - 1; i >= 0; i-- {
		b := bars[i]
		t.Total.Requests += b.Requests
		t.Total.Refused += b.Refused
		if b.Requests > 0 || b.Refused > 0 {
			t.Rows = append(t.Rows, usageRow{Period: b.Title, Requests: b.Requests, Refused: b.Refused})
		}
	}
	return t
}

// chartDesc is the text alternative of a chart: what it spans and its
// totals; the table below has every figure.
func chartDesc(total usageRow, per, first, last string) string {
	return "Bars of requests per " + per + " from " + first + " to " + last + ", with the refused (429) ones overlaid: " +
		formatInt(total.Requests) + " requests in all, " + formatInt(total.Refused) + " refused. The table below lists every " + per + " with traffic."
}
