package testkit

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// ChromiumVar names the variable that holds the browser's path (Debian's
// chromium: /usr/bin/chromium); browser tests skip without it.
const ChromiumVar = "CARDCAT_TEST_CHROMIUM"

// ChromiumPath returns the browser's path from CARDCAT_TEST_CHROMIUM, or
// skips t, saying that what (a test, "the portal's browser journey") needs
// Chromium and how to get it. Called first, so that a test skips before it
// starts its servers.
func ChromiumPath(t testing.TB, what string) string {
	t.Helper()
	browser := os.Getenv(ChromiumVar)
	if browser == "" {
		t.Skip(ChromiumVar + " is not set: " + what + " needs Chromium (apt-get install chromium; " + ChromiumVar + "=/usr/bin/chromium)")
	}
	return browser
}

// ChromiumOptions are what browser tests choose of the browser.
type ChromiumOptions struct {
	Width, Height int // the window, the size of screenshots
	// Timeout bounds the rest of the test once the browser runs.
	Timeout time.Duration
	// HideScrollbars keeps scrollbars out of screenshots meant for docs.
	HideScrollbars bool
}

// Chromium starts the browser at path headless, with a fresh profile and
// nothing that phones home (no request may leave the test's hosts), and
// returns a tab's context, bounded by o.Timeout. The browser ends with t.
func Chromium(t testing.TB, browser string, o ChromiumOptions) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(browser),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.WindowSize(o.Width, o.Height),
	}
	if o.HideScrollbars {
		opts = append(opts, chromedp.Flag("hide-scrollbars", true))
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelTab(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting %s: %v", browser, err)
	}
	// Set after the browser started: a deadline on the first run's context
	// would bound the browser's life instead.
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	t.Cleanup(cancel)
	return ctx
}
