package portal

import (
	"fmt"
	"html/template"
	"strings"
)

// bar is one column of a usage chart: a period's requests and the 429s
// among them.
type bar struct {
	Label    string // under the axis; "" for none
	Title    string // the period in full, for the bar's tooltip
	Requests int64
	Refused  int64
}

// The chart's box, in SVG user units; it scales with the page (portal.css).
const (
	chartW, chartH                               = 720, 240
	chartLeft, chartRight, chartTop, chartBottom = 56, 8, 28, 36
)

// barChart draws bars as an SVG bar chart: requests as bars, the 429s among
// them overlaid from the base in class "refused". No style attributes (the
// portal's CSP forbids inline styles): classes of portal.css and SVG
// presentation attributes only. Every text is escaped; the figures are also
// in the page's table, for screen readers and copying.
func barChart(id, title, desc string, bars []bar) template.HTML {
	esc := template.HTMLEscapeString
	var max int64
	for _, b := range bars {
		max = maxInt(max, b.Requests)
	}
	step := tickStep(max)
	top := step * ((max + step - 1) / step)
	if top == 0 {
		top = step
	}
	plotW := float64(chartW - chartLeft - chartRight)
	plotH := float64(chartH - chartTop - chartBottom)
	base := float64(chartTop) + plotH
	y := func(v int64) float64 { return base - float64(v)/float64(top)*plotH }

	var s strings.Builder
	fmt.Fprintf(&s, `<svg class="chart" id="%s" viewBox="0 0 %d %d" role="img" aria-labelledby="%s-title %s-desc" xmlns="http://www.w3.org/2000/svg">`,
		esc(id), chartW, chartH, esc(id), esc(id))
	fmt.Fprintf(&s, `<title id="%s-title">%s</title><desc id="%s-desc">%s</desc>`, esc(id), esc(title), esc(id), esc(desc))

	// The value axis: a grid line and a label per step.
	for v := int64(0); v <= top; v += step {
		fmt.Fprintf(&s, `<line class="grid" x1="%d" x2="%d" y1="%.1f" y2="%.1f"/>`, chartLeft, chartW-chartRight, y(v), y(v))
		fmt.Fprintf(&s, `<text class="axis" x="%d" y="%.1f" text-anchor="end" dominant-baseline="middle">%s</text>`,
			chartLeft-6, y(v), formatInt(v))
	}
	if len(bars) > 0 {
		slot := plotW / float64(len(bars))
		width := slot * 0.8
		for i, b := range bars {
			x := float64(chartLeft) + float64(i)*slot + (slot-width)/2
			if b.Requests > 0 {
				fmt.Fprintf(&s, `<rect class="bar" x="%.1f" y="%.1f" width="%.1f" height="%.1f"><title>%s: %s requests, %s refused (429)</title></rect>`,
					x, y(b.Requests), width, base-y(b.Requests), esc(b.Title), formatInt(b.Requests), formatInt(b.Refused))
			}
			if b.Refused > 0 {
				fmt.Fprintf(&s, `<rect class="refused" x="%.1f" y="%.1f" width="%.1f" height="%.1f"/>`,
					x, y(b.Refused), width, base-y(b.Refused))
			}
			if b.Label != "" {
				fmt.Fprintf(&s, `<text class="axis" x="%.1f" y="%d" text-anchor="middle">%s</text>`,
					x+width/2, chartH-chartBottom+16, esc(b.Label))
			}
		}
	}
	fmt.Fprintf(&s, `<line class="baseline" x1="%d" x2="%d" y1="%.1f" y2="%.1f"/>`, chartLeft, chartW-chartRight, base, base)

	// The legend, top right.
	lx := chartW - chartRight - 190
	fmt.Fprintf(&s, `<rect class="bar" x="%d" y="8" width="12" height="12"/><text class="axis" x="%d" y="18">requests</text>`, lx, lx+16)
	fmt.Fprintf(&s, `<rect class="refused" x="%d" y="8" width="12" height="12"/><text class="axis" x="%d" y="18">refused (429)</text>`, lx+90, lx+106)
	s.WriteString(`</svg>`)
	return template.HTML(s.String()) // built from escaped text and numbers only
}

// tickStep is a round step (1, 2 or 5 times a power of ten) that divides
// 0..max into at most 5 intervals.
func tickStep(max int64) int64 {
	for p := int64(1); ; p *= 10 {
		for _, m := range []int64{1, 2, 5} {
			if s := m * p; s*5 >= max {
				return s
			}
		}
	}
}

func maxInt(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}
