package main

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/cardcat/cardcat/internal/testkit"
)

// journeyBrowser is a headless Chromium driven through the portal as a
// person would: it types, clicks and waits for the next page. It records
// what the pages must never do: a console error, a failed request, a
// request to a host the journey did not allow.
type journeyBrowser struct {
	t       *testing.T
	ctx     context.Context
	allowed map[string]bool // host:port the pages may ask
	shots   string          // where every page's screenshot goes
	docs    string          // where the chosen few go; "" but with -update-screenshots
	// tolerated are URLs whose failure is no fault of the portal (the fake
	// Stripe's missing favicon, which Chromium asks for on its page).
	tolerated map[string]bool

	mu       sync.Mutex
	console  []string
	failed   []string
	offsite  []string
	requests int
	step     int
}

// The desktop size of the journey's screenshots, and the phone width.
const (
	desktopWidth, desktopHeight = 1280, 860
	phoneWidth, phoneHeight     = 390, 844
)

func newJourneyBrowser(t *testing.T, exe, shots, docs string, tolerated []string, allowedHosts ...string) *journeyBrowser {
	t.Helper()
	ctx := testkit.Chromium(t, exe, testkit.ChromiumOptions{
		Width: desktopWidth, Height: desktopHeight, Timeout: 2 * time.Minute, HideScrollbars: true})
	b := &journeyBrowser{t: t, ctx: ctx, allowed: map[string]bool{}, shots: shots, docs: docs, tolerated: map[string]bool{}}
	for _, u := range tolerated {
		b.tolerated[u] = true
	}
	for _, h := range allowedHosts {
		b.allowed[h] = true
	}
	asked := map[network.RequestID]string{}
	err := chromedp.Listen(ctx, func(ev any) {
		b.mu.Lock()
		defer b.mu.Unlock()
		switch ev := ev.(type) {
		case *network.EventRequestWillBeSent:
			b.requests++
			asked[ev.RequestID] = ev.Request.URL
			u, err := url.Parse(ev.Request.URL)
			if err != nil || (u.Scheme != "data" && !b.allowed[u.Host]) {
				b.offsite = append(b.offsite, ev.Request.URL)
			}
		case *network.EventResponseReceived:
			if ev.Response.Status >= 400 && !b.tolerated[ev.Response.URL] {
				b.failed = append(b.failed, fmt.Sprintf("%d %s", ev.Response.Status, ev.Response.URL))
			}
		case *network.EventLoadingFailed:
			if b.tolerated[asked[ev.RequestID]] {
				return
			}
			b.failed = append(b.failed, fmt.Sprintf("%s %s (%s)", ev.ErrorText, asked[ev.RequestID], ev.BlockedReason))
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for m, err := range chromedp.Console(ctx) {
			if err != nil {
				return
			}
			if m.Type == "log" || m.Type == "info" || m.Type == "debug" || b.tolerated[m.URL] {
				continue
			}
			b.mu.Lock()
			b.console = append(b.console, fmt.Sprintf("%s: %s (%s:%d)", m.Type, m.Text, m.URL, m.Line))
			b.mu.Unlock()
		}
	}()
	b.do(chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Call(ctx, network.Enable, network.EnableParams{})
		return err
	}))
	return b
}

// do runs steps, failing the test with a screenshot of where it stopped.
func (b *journeyBrowser) do(steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, steps...); err != nil {
		b.fatalf("%v", err)
	}
}

func (b *journeyBrowser) fatalf(format string, args ...any) {
	b.t.Helper()
	if shot, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100)); err == nil {
		os.WriteFile(filepath.Join(b.shots, "failed.png"), shot, 0o644)
	}
	page, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](`location.href + "\n" + (document.body ? document.body.innerText : "")`))
	b.mu.Lock()
	console := b.console
	b.mu.Unlock()
	b.t.Fatalf(format+"\nthe page: %s\nconsole: %q", append(args, page, console)...)
}

// open loads u and waits for its page.
func (b *journeyBrowser) open(u string) {
	b.t.Helper()
	b.do(chromedp.Navigate(u))
}

// typeInto types text into the input sel, key by key.
func (b *journeyBrowser) typeInto(sel, text string) {
	b.t.Helper()
	b.do(chromedp.SendKeys(chromedp.CSS(sel), text))
}

// clickTo clicks sel (with the mouse, at its centre) and waits until a new
// page whose path is wantPath has loaded.
func (b *journeyBrowser) clickTo(sel, wantPath string) {
	b.t.Helper()
	b.do(
		chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := chromedp.Evaluate[bool](`window.journeyLeaving = true`)(ctx, tg)
			return err
		}),
		chromedp.Click(chromedp.CSS(sel)),
		b.waitFor(fmt.Sprintf(`!window.journeyLeaving && document.readyState === 'complete' && location.pathname === %q`, wantPath)),
	)
}

// waitFor waits until the expression is true, through navigations (while
// a page is replaced, evaluating fails, and so does the browser's own poll).
func (b *journeyBrowser) waitFor(expression string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		deadline := time.Now().Add(20 * time.Second)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			ok, err := chromedp.Evaluate[bool](expression)(ctx, tg)
			if err == nil && ok {
				return nil
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("waiting for %s: %v", expression, err)
			}
			select {
			case <-tick.C:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	})
}

// eval evaluates a JavaScript expression in the page.
func eval[T any](b *journeyBrowser, expression string) T {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](expression))
	if err != nil {
		b.fatalf("evaluating %s: %v", expression, err)
	}
	return v
}

// location is the page's URL.
func (b *journeyBrowser) location() *url.URL {
	b.t.Helper()
	u, err := url.Parse(eval[string](b, `location.href`))
	if err != nil {
		b.t.Fatal(err)
	}
	return u
}

// text is the visible text of the first element matching sel ("" if none).
func (b *journeyBrowser) text(sel string) string {
	b.t.Helper()
	return eval[string](b, fmt.Sprintf(`(() => { const e = document.querySelector(%q); return e ? e.innerText.trim() : ''; })()`, sel))
}

// shot saves a screenshot of the whole page as the journey's next step;
// with a docName and -update-screenshots, into docs/screenshots/ too.
func (b *journeyBrowser) shot(name, docName string) {
	b.t.Helper()
	png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.fatalf("screenshot of %s: %v", name, err)
	}
	b.step++
	if err := os.WriteFile(filepath.Join(b.shots, fmt.Sprintf("%02d-%s.png", b.step, name)), png, 0o644); err != nil {
		b.t.Fatal(err)
	}
	if b.docs != "" && docName != "" {
		if err := os.WriteFile(filepath.Join(b.docs, docName+".png"), png, 0o644); err != nil {
			b.t.Fatal(err)
		}
	}
}

// phoneShot shows the page at a phone's width: nothing may make the page
// itself scroll sideways (a wide table scrolls in its own box). The
// screenshot goes with the others, and into docs as docName when updating.
func (b *journeyBrowser) phoneShot(name, docName string) {
	b.t.Helper()
	b.do(chromedp.EmulateViewport(phoneWidth, phoneHeight, chromedp.EmulateScale(2)))
	if w := eval[[2]int](b, `[document.documentElement.scrollWidth, window.innerWidth]`); w[0] > w[1] {
		b.t.Errorf("%s at %d px wide: the page is %d px wide, it scrolls sideways", b.location().Path, w[1], w[0])
	}
	png, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		b.fatalf("phone screenshot: %v", err)
	}
	b.do(chromedp.EmulateViewport(desktopWidth, desktopHeight))
	b.step++
	if err := os.WriteFile(filepath.Join(b.shots, fmt.Sprintf("%02d-%s.png", b.step, name)), png, 0o644); err != nil {
		b.t.Fatal(err)
	}
	if b.docs != "" && docName != "" {
		if err := os.WriteFile(filepath.Join(b.docs, docName+".png"), png, 0o644); err != nil {
			b.t.Fatal(err)
		}
	}
}

// cookie is the value of the cookie name the browser holds for u ("" if
// none).
func (b *journeyBrowser) cookie(u, name string) string {
	b.t.Helper()
	var value string
	b.do(chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		r, err := chromedp.Call(ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{u}})
		for _, c := range r.Cookies {
			if c.Name == name {
				value = c.Value
			}
		}
		return err
	}))
	return value
}

// checkClean fails the test for every console error, failed request and
// request off the allowed hosts the pages made so far.
func (b *journeyBrowser) checkClean() {
	b.t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, c := range b.console {
		if !strings.HasPrefix(c, "warning:") {
			b.t.Errorf("console: %s", c)
		}
	}
	if len(b.failed) > 0 {
		b.t.Errorf("failed requests: %q", b.failed)
	}
	if len(b.offsite) > 0 {
		b.t.Errorf("requests to hosts other than %v: %q", b.allowed, b.offsite)
	}
	b.t.Logf("the browser made %d requests; console warnings: %q", b.requests, b.console)
}
