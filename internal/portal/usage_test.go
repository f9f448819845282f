package portal

import (
	"context"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/account"
)

// flushFunc is a Deps.Usage that runs a function on Flush.
type flushFunc func(ctx context.Context) error

func (f flushFunc) Flush(ctx context.Context) error { return f(ctx) }

var svgPattern = regexp.MustCompile(`(?s)<svg class="chart" id="(chart-[a-z]+)".*?</svg>`)

// charts maps each chart's id to its SVG.
func charts(body string) map[string]string {
	out := map[string]string{}
	for _, m := range svgPattern.FindAllStringSubmatch(body, -1) {
		out[m[1]] = m[0]
	}
	return out
}

func TestUsagePage(t *testing.T) {
	tp := newTestPortal(t)
	ctx := context.Background()
	acc := tp.createAccount("dev@example.com", true)
	other := tp.createAccount("other@example.com", true)
	at := func(s string) time.Time {
		v, err := time.Parse("2006-01-02 15:04", s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	// The clock is 2026-03-02 10:15 UTC: the hourly chart spans from
	// 2026-02-28 11:00, the daily one from 2026-02-01.
	if err := tp.store.AddUsage(ctx, []account.Usage{
		{AccountID: acc.ID, Hour: at("2026-03-01 09:00"), Requests: 7},
		{AccountID: acc.ID, Hour: at("2026-02-27 08:00"), Requests: 4, Refused: 1},      // days only
		{AccountID: acc.ID, Hour: at("2026-02-27 23:00"), Requests: 2},                  // days only, same day
		{AccountID: acc.ID, Hour: at("2026-01-20 12:00"), Requests: 100},                // neither
		{AccountID: other.ID, Hour: at("2026-03-02 10:00"), Requests: 1000, Refused: 9}, // another account
	}); err != nil {
		t.Fatal(err)
	}
	// This hour's traffic reaches the store by the flush the page asks for.
	flushed := 0
	tp.p.deps.Usage = flushFunc(func(ctx context.Context) error {
		flushed++
		return tp.store.AddUsage(ctx, []account.Usage{{AccountID: acc.ID, Hour: at("2026-03-02 10:00"), Requests: 5, Refused: 2}})
	})

	res := tp.session(acc).get("/account/usage")
	if flushed != 1 {
		t.Errorf("%d flushes, want 1", flushed)
	}
	body := res.body
	mustContain(t, "usage page", body,
		// The hourly table: hours with traffic, newest first, then the total.
		"<tr><td>2026-03-02 10:00–11:00 UTC</td><td class=\"num\">5</td><td class=\"num\">2</td></tr>\n"+
			"<tr><td>2026-03-01 09:00–10:00 UTC</td><td class=\"num\">7</td><td class=\"num\">0</td></tr>",
		`<tfoot><tr><th scope="row">Total</th><td class="num">12</td><td class="num">2</td></tr></tfoot>`,
		// The daily table sums the hours of each UTC day.
		"<tr><td>2026-03-02</td><td class=\"num\">5</td><td class=\"num\">2</td></tr>\n"+
			"<tr><td>2026-03-01</td><td class=\"num\">7</td><td class=\"num\">0</td></tr>\n"+
			"<tr><td>2026-02-27</td><td class=\"num\">6</td><td class=\"num\">1</td></tr>",
		`<tfoot><tr><th scope="row">Total</th><td class="num">18</td><td class="num">3</td></tr></tfoot>`)
	mustNotContain(t, "usage page", body, "1,000", "2026-01-20", "style=")

	cs := charts(body)
	tests := []struct {
		id       string
		bars     []string // the requests bars' titles
		refused  int
		labels   []string
		describe string
	}{
		{"chart-hours", []string{"2026-03-01 09:00–10:00 UTC: 7 requests, 0 refused (429)", "2026-03-02 10:00–11:00 UTC: 5 requests, 2 refused (429)"},
			1, []string{">Mar 1<", ">Mar 2<", ">12:00<", ">18:00<", ">06:00<"}, "12 requests in all, 2 refused"},
		{"chart-days", []string{"2026-02-27: 6 requests, 1 refused (429)", "2026-03-01: 7 requests, 0 refused (429)", "2026-03-02: 5 requests, 2 refused (429)"},
			2, []string{">Mar 2<", ">Feb 25<"}, "18 requests in all, 3 refused"},
	}
	for _, tt := range tests {
		svg, ok := cs[tt.id]
		if !ok {
			t.Errorf("no chart %s", tt.id)
			continue
		}
		mustContain(t, tt.id, svg, `role="img"`, `<title id="`+tt.id+`-title">`, `<desc id="`+tt.id+`-desc">`, tt.describe)
		mustContain(t, tt.id, svg, tt.labels...)
		// One bar per period with traffic, plus the legend's.
		if got := strings.Count(svg, `<rect class="bar"`); got != len(tt.bars)+1 {
			t.Errorf("%s: %d bars, want %d", tt.id, got-1, len(tt.bars))
		}
		if got := strings.Count(svg, `<rect class="refused"`); got != tt.refused+1 {
			t.Errorf("%s: %d refused bars, want %d", tt.id, got-1, tt.refused)
		}
		for _, b := range tt.bars {
			mustContain(t, tt.id, svg, "<title>"+b+"</title>")
		}
	}
}

// 7 requests on an axis of steps of 2 up to 8 fill 7/8 of the plot's
// height; the refused overlay of the same column is in proportion too.
func TestBarChartGeometry(t *testing.T) {
	svg := string(barChart("c", "t", "d", []bar{{Label: "a", Title: "x", Requests: 7, Refused: 2}, {Title: "y"}}))
	plotH := float64(chartH - chartTop - chartBottom)
	base := float64(chartTop) + plotH
	for _, want := range []string{
		`>0</text>`, `>2</text>`, `>8</text>`,
		`class="bar" x="`, `height="` + ftoa(7.0/8*plotH) + `"`, `y="` + ftoa(base-7.0/8*plotH) + `"`,
		`class="refused" x="`, `height="` + ftoa(2.0/8*plotH) + `"`,
	} {
		if !strings.Contains(svg, want) {
			t.Errorf("chart lacks %q:\n%s", want, svg)
		}
	}
	if strings.Contains(svg, "style") {
		t.Errorf("chart has a style: %s", svg)
	}
}

func ftoa(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }

func TestTickStep(t *testing.T) {
	for _, tt := range []struct{ max, want int64 }{
		{0, 1}, {1, 1}, {5, 1}, {6, 2}, {10, 2}, {11, 5}, {25, 5}, {26, 10}, {7000, 2000}, {100000, 20000},
	} {
		if got := tickStep(tt.max); got != tt.want {
			t.Errorf("tickStep(%d) = %d, want %d", tt.max, got, tt.want)
		}
	}
}

// A failed flush is logged and the page still shows what the store has.
func TestUsagePageFlushFails(t *testing.T) {
	tp := newTestPortal(t)
	acc := tp.createAccount("dev@example.com", true)
	tp.p.deps.Usage = flushFunc(func(context.Context) error { return errors.New("database away") })
	res := tp.session(acc).get("/account/usage")
	if res.status != 200 {
		t.Fatalf("status %d", res.status)
	}
	mustContain(t, "usage page", res.body, "may be missing", "No requests in this period")
	mustContain(t, "logs", tp.logs.String(), "database away")
}
