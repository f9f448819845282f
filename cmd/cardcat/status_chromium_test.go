package main

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/cardcat/cardcat/internal/testkit"
)

// TestStatusInChromium opens /status of a sample server in a real
// Chromium: the 90-day bar renders (90 days, each drawn with its colour
// from the site's stylesheet, which the page's CSP lets load) under the
// site's header.
func TestStatusInChromium(t *testing.T) {
	browser := testkit.ChromiumPath(t, "the status page's browser test")
	s := startServe(t, t.TempDir(), nil)
	ctx := testkit.Chromium(t, browser, testkit.ChromiumOptions{Width: 1100, Height: 900, Timeout: 60 * time.Second})
	if err := chromedp.Do(ctx, chromedp.Navigate(s.url+"/status")); err != nil {
		t.Fatal(err)
	}
	drawn, err := chromedp.Run(ctx, chromedp.Poll[int](`[...document.querySelectorAll(".uptime-bar li")].filter(li => {
  const r = li.getBoundingClientRect(); return r.width > 0 && r.height > 20; }).length`, chromedp.WithPollingTimeout(20*time.Second)))
	if err != nil {
		t.Fatal(err)
	}
	colour, err := chromedp.Run(ctx, chromedp.Evaluate[string](`getComputedStyle(document.querySelector(".uptime-bar li")).backgroundColor`))
	if err != nil {
		t.Fatal(err)
	}
	nav, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('.site-header a[aria-current="page"]').textContent`))
	if err != nil {
		t.Fatal(err)
	}
	if drawn != 90 {
		t.Errorf("%d days drawn in the bar, want 90", drawn)
	}
	// The oldest day is before the first check: no data, grey.
	if colour != "rgb(200, 200, 200)" {
		t.Errorf("the oldest day's colour %q, want the stylesheet's grey", colour)
	}
	if nav != "Status" {
		t.Errorf("the header's current link %q, want Status", nav)
	}
}
