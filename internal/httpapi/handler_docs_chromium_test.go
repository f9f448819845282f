package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/cardcat/cardcat"
	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/ratelimit/memory"
	"github.com/cardcat/cardcat/internal/site"
	"github.com/cardcat/cardcat/internal/store/sqlite"
	"github.com/cardcat/cardcat/internal/testkit"
	"github.com/cardcat/cardcat/samples"
)

// TestDocsInChromium loads the docs site in a real Chromium, against the
// real API on :0 with a real key: the reference shows every operation of
// the OpenAPI document, each guide link opens its page, an example request
// sent from the page with the key answers 200, and the browser asks no
// host but this server for anything.
//
// CARDCAT_TEST_CHROMIUM is the browser's path (Debian's chromium:
// /usr/bin/chromium); CARDCAT_TEST_SCREENSHOTS, when set, a directory that
// receives a screenshot of each step.
func TestDocsInChromium(t *testing.T) {
	browser := testkit.ChromiumPath(t, "the docs site's browser test")
	shots := os.Getenv("CARDCAT_TEST_SCREENSHOTS")
	srv, key := startDocsServer(t)
	origin, _ := url.Parse(srv.URL)

	// The operations the reference must show: the document's own. The
	// example request is its list of sets, which needs a key.
	document := fetchJSON[openapiOperations](t, srv.URL+"/openapi.json")
	var names []string
	// Each is named by its path (and its method), not its summary.
	for path, ops := range document.Paths {
		for range ops {
			names = append(names, path)
		}
	}
	listSets := document.Paths["/{game}/sets"]["get"].Summary
	if len(names) < 10 || listSets == "" {
		t.Fatalf("the document has %d operations, and GET /{game}/sets is %q", len(names), listSets)
	}

	ctx := testkit.Chromium(t, browser, testkit.ChromiumOptions{Width: 1400, Height: 1000, Timeout: 3 * time.Minute})
	var (
		mu       sync.Mutex
		offsite  []string             // requests for another host
		failed   []string             // answers of 400 and more
		statuses = map[string]int64{} // a page's URL -> its status
		sent     []string             // the example's requests: "status key" of each GET /dbs/sets
		asked    = map[network.RequestID]string{}
		requests int
		console  []string // the console's errors and warnings, exceptions, the browser's log
	)
	err := chromedp.Listen(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *network.EventRequestWillBeSent:
			requests++
			u, err := url.Parse(ev.Request.URL)
			if err != nil || (u.Scheme != "data" && u.Scheme != "blob" && u.Host != origin.Host) {
				offsite = append(offsite, ev.Request.URL)
			}
			if u != nil && u.Path == "/dbs/sets" {
				for name, v := range ev.Request.Headers {
					if strings.EqualFold(name, "X-API-Key") {
						asked[ev.RequestID], _ = v.(string)
					}
				}
			}
		case *network.EventResponseReceived:
			if ev.Type == network.ResourceTypeDocument {
				statuses[ev.Response.URL] = ev.Response.Status
			}
			if k, ok := asked[ev.RequestID]; ok {
				sent = append(sent, fmt.Sprintf("%d %s", ev.Response.Status, k))
			}
			if ev.Response.Status >= 400 {
				failed = append(failed, fmt.Sprintf("%d %s", ev.Response.Status, ev.Response.URL))
			}
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
			if m.Type == "log" || m.Type == "info" || m.Type == "debug" {
				continue
			}
			mu.Lock()
			console = append(console, string(m.Type)+": "+m.Text)
			mu.Unlock()
		}
	}()
	step := 0
	screenshot := func(name string) chromedp.Action[chromedp.Void] {
		return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			if shots == "" {
				return nil
			}
			step++
			b, err := chromedp.CaptureScreenshot()(ctx, tg)
			if err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(shots, fmt.Sprintf("%02d-%s.png", step, name)), b, 0o644)
		})
	}
	// The violations of a page's Content-Security-Policy, as the page sees
	// them. Scalar's validation library (zod) probes once whether eval is
	// allowed and works without it; that probe is no fault.
	recordCSP := chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: `window.cspViolations = [];
document.addEventListener('securitypolicyviolation', e => {
  if (e.violatedDirective === 'script-src' && e.blockedURI === 'eval') return;
  window.cspViolations.push(e.violatedDirective + ' ' + e.blockedURI);
});`})
		return err
	})
	checkCSP := func(where string) {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`window.cspViolations`))
		if err != nil {
			t.Fatal(err)
		}
		if len(v) > 0 {
			t.Errorf("%s violates its Content-Security-Policy: %q", where, v)
		}
	}
	fail := func(format string, args ...any) {
		t.Helper()
		chromedp.Do(ctx, screenshot("failed"))
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf(format+"\nconsole: %q", append(args, console)...)
	}

	// The reference shows every operation's name.
	err = chromedp.Do(ctx,
		chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := chromedp.Call(ctx, network.Enable, network.EnableParams{})
			return err
		}),
		recordCSP,
		chromedp.Navigate(srv.URL+"/docs"),
		chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := chromedp.Poll[bool](namesShownJS(names), chromedp.WithPollingTimeout(30*time.Second))(ctx, tg)
			return err
		}),
		screenshot("reference"),
	)
	if err != nil {
		text, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText`))
		fail("the reference does not show every operation: %v\nmissing: %q", err, missing(text, names))
	}
	t.Logf("the reference shows the %d operations of the document", len(names))

	// Its code samples: curl, JavaScript fetch and Python requests, no more.
	if err := chromedp.Do(ctx, clickText(`button`, "More Select from all clients")); err != nil {
		fail("the clients' menu: %v", err)
	}
	clients, err := chromedp.Run(ctx, chromedp.Poll[[]string](`(() => {
  const ids = [...document.querySelectorAll('[role=listbox] [role=option]')].map(e => e.id.split('-').pop()).sort();
  return ids.length ? ids : null;
})()`, chromedp.WithPollingTimeout(30*time.Second)))
	if want := []string{"js/fetch", "python/requests", "shell/curl"}; err != nil || !slices.Equal(clients, want) {
		t.Errorf("the code samples' clients: %q (%v), want %q", clients, err, want)
	}
	if err := chromedp.Do(ctx, screenshot("clients"), chromedp.KeyEvent(kb.Escape)); err != nil {
		t.Fatal(err)
	}

	// The key field says what a key looks like, not Scalar's made-up token;
	// the header leads to a key.
	shown, err := chromedp.Run(ctx, chromedp.Poll[[]string](`(() => {
  const l = [...document.querySelectorAll('label')].find(e => e.offsetParent !== null && e.innerText.trim() === 'Value');
  const input = l && document.getElementById(l.htmlFor);
  const a = document.querySelector('.site-header a.get-key');
  return input && a ? [input.getAttribute('placeholder') || input.innerText, a.getAttribute('href')] : null;
})()`, chromedp.WithPollingTimeout(30*time.Second)))
	if want := [2]string{"pk_live_...", "/account/signup"}; err != nil || len(shown) != 2 || !strings.Contains(shown[0], want[0]) || shown[1] != want[1] {
		t.Errorf("the key field's placeholder and the header's key link: %q (%v), want %q", shown, err, want)
	}

	// A reader's example request: the key typed into the reference's
	// authentication, the list of sets opened in the in-page client (its
	// sidebar entry is its path), sent.
	err = chromedp.Do(ctx,
		typeInto(`label`, "Value", key),
		clickText(`a, button`, "/{game}/sets"),
		// The reference may still be scrolling to the operation when the
		// button first stands still, so a click can land on the place it
		// left: click again until the client's dialog is open.
		chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			var err error
			for range 5 {
				if _, err = clickText(`button`, "Test Request (get /{game}/sets)")(ctx, tg); err != nil {
					return err
				}
				_, err = chromedp.Poll[bool](`document.querySelector('[role=dialog]') !== null`,
					chromedp.WithPollingTimeout(3*time.Second))(ctx, tg)
				if err == nil {
					return nil
				}
			}
			return fmt.Errorf("the in-page client's dialog did not open: %w", err)
		}),
		clickText(`[role=dialog] button`, "Send"),
		chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := chromedp.Poll[bool](`document.querySelector('[role=dialog]').innerText.includes('200 OK')`,
				chromedp.WithPollingTimeout(30*time.Second))(ctx, tg)
			return err
		}),
		screenshot("example-request"),
	)
	if err != nil {
		fail("the example request: %v", err)
	}
	mu.Lock()
	if want := []string{"200 " + key}; !slices.Equal(sent, want) {
		t.Errorf("the example request from the page: %q, want one GET /dbs/sets with the key answered 200", sent)
	}
	mu.Unlock()
	checkCSP("the reference")

	// The operation's request example offers its samples (x-codeSamples),
	// in Scalar's "Code Examples" group before the generated clients; the
	// Python one shows the sample's source.
	var labels []string
	for _, l := range samples.Langs {
		labels = append(labels, l.Label)
	}
	opID := document.Paths["/{game}/sets"]["get"].OperationID
	var python string
	for _, s := range samples.Of(opID) {
		if s.Lang == "Python" {
			python = s.Source
		}
	}
	if !strings.Contains(python, "cardcat.Client") || !strings.Contains(python, ".list_sets(") {
		t.Fatalf("the Python sample of %q is not the client's list_sets: %q", opID, python)
	}
	// The picker of the operation's request example (its card's header
	// names the operation), marked for clickText; its label, the client
	// shown.
	if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.Escape)); err != nil {
		t.Fatal(err)
	}
	picker, err := chromedp.Run(ctx, chromedp.Poll[string](`(() => {
  const card = [...document.querySelectorAll('.request-card')].find(c => c.querySelector('.operation-path')?.innerText.trim() === '/{game}/sets');
  const b = card && card.querySelector('[data-testid=client-picker]');
  if (!b) return null;
  card.setAttribute('data-cardcat-test', 'listSets');
  return b.innerText.trim();
})()`, chromedp.WithPollingTimeout(30*time.Second)))
	if err != nil {
		fail("the request example of GET /{game}/sets: %v", err)
	}
	const card = `.request-card[data-cardcat-test=listSets]`
	if err := chromedp.Do(ctx, clickText(card+` [data-testid=client-picker]`, picker)); err != nil {
		fail("the request example's clients: %v", err)
	}
	custom, err := chromedp.Run(ctx, chromedp.Poll[[]string](`(() => {
  const g = [...document.querySelectorAll('[role=listbox] [role=group]')].find(g => g.firstElementChild?.innerText.trim() === 'Code Examples');
  const o = g ? [...g.querySelectorAll('[role=option]')].map(e => e.innerText.trim()) : [];
  return o.length ? o : null;
})()`, chromedp.WithPollingTimeout(10*time.Second)))
	if err != nil || !slices.Equal(custom, labels) {
		fail("the request example's code examples: %q (%v), want %q", custom, err, labels)
	}
	err = chromedp.Do(ctx, screenshot("code-examples"), clickText(`[role=listbox] [role=option]`, "Python"))
	if err != nil {
		fail("choosing the Python sample: %v", err)
	}
	// The card's picker and code, once the picker says Python and the code
	// is the sample (highlighted, its text is the source).
	example := fmt.Sprintf(`(() => {
  const card = document.querySelector(%q);
  const code = card && card.querySelector('pre code');
  return code ? [card.querySelector('[data-testid=client-picker]').innerText.trim(), code.innerText.trim()] : null;
})()`, card)
	want := [2]string{"Python", strings.TrimSpace(python)}
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](fmt.Sprintf(`(() => { const s = %s; return s && s[0] === %q && s[1] === %q || null; })()`, example, want[0], want[1]),
		chromedp.WithPollingTimeout(10*time.Second)))
	if err != nil {
		got, _ := chromedp.Run(ctx, chromedp.Evaluate[[2]string](example))
		fail("the request example, Python chosen, shows %q (%v), want the Python sample of %s:\n%s", got, err, opID, python)
	}
	if err := chromedp.Do(ctx, screenshot("python-sample")); err != nil {
		t.Fatal(err)
	}
	t.Logf("the request example of %s offers its samples %q; its Python one is shown", opID, custom)

	// The key is kept across a reload.
	err = chromedp.Do(ctx, chromedp.KeyEvent(kb.Escape), chromedp.Reload(),
		waitFor(`document.readyState === 'complete'`))
	if err != nil {
		fail("reloading the reference: %v", err)
	}
	kept, err := chromedp.Run(ctx, chromedp.Poll[bool](fmt.Sprintf(`(() => {
  const l = [...document.querySelectorAll('label')].find(e => e.offsetParent !== null && e.innerText.trim() === 'Value');
  const input = l && document.getElementById(l.htmlFor);
  if (!input) return null;
  return (input.value ?? input.innerText) === %q || null;
})()`, key), chromedp.WithPollingTimeout(30*time.Second)))
	if err != nil || !kept {
		t.Errorf("after a reload, the key field does not hold the key typed: %v", err)
	}
	checkCSP("the reference, reloaded")

	// Every guide link of the navigation opens its page: 200, its title.
	err = chromedp.Do(ctx, chromedp.KeyEvent(kb.Escape), clickText(`.site-header a`, "Guides"),
		chromedp.WaitVisible(chromedp.CSS(`nav.guide-nav`)))
	if err != nil {
		fail("the Guides link: %v", err)
	}
	guides, err := chromedp.Run(ctx, chromedp.Evaluate[[][2]string](
		`[...document.querySelectorAll('nav.guide-nav a')].map(a => [a.innerText.trim(), a.getAttribute('href')])`))
	if err != nil || len(guides) < len(site.GuideSlugs) {
		fail("the guides' navigation: %v %q", err, guides)
	}
	for _, g := range guides {
		title, href := g[0], g[1]
		err := chromedp.Do(ctx, clickText(`nav.guide-nav a`, title),
			// Its heading too: CI once read an empty document here (no
			// title, no heading) that already had the path and was complete.
			waitFor(fmt.Sprintf(`location.pathname === %q && document.readyState === 'complete' && document.querySelector('main h1') !== null`, href)))
		if err != nil {
			fail("the guide link %q (%s): %v", title, href, err)
		}
		got, err := chromedp.Run(ctx, chromedp.Evaluate[[2]string](`[document.title, document.querySelector('main h1').innerText]`))
		mu.Lock()
		status := statuses[srv.URL+href]
		mu.Unlock()
		if err != nil || status != http.StatusOK || got[0] != title+" · cardcat API" || got[1] != title {
			t.Errorf("%s: %d, title %q, heading %q (%v); want 200 and %q", href, status, got[0], got[1], err, title)
		}
		checkCSP(href)
	}
	if err := chromedp.Do(ctx, screenshot("guide")); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d guide pages open from their links", len(guides))

	mu.Lock()
	defer mu.Unlock()
	if len(failed) > 0 {
		t.Errorf("failed requests: %q", failed)
	}
	if len(offsite) > 0 {
		t.Errorf("requests off this server: %q", offsite)
	}
	t.Logf("%d requests, all to this server; console: %q", requests, console)
}

// clickText clicks, as a person would (the mouse, at its centre), the
// first visible element matching selector whose text is text, scrolled into
// view.
func clickText(selector, text string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		find := fmt.Sprintf(`(() => {
  const want = %q;
  // The element's text, or its first line (a sidebar entry's is followed
  // by its method), spaces collapsed.
  const matches = t => { t = t.trim(); return t.replace(/\s+/g, ' ') === want || t.split('\n')[0].trim() === want; };
  const el = [...document.querySelectorAll(%q)].find(e => e.offsetParent !== null && matches(e.innerText));
  if (!el) return null;
  el.scrollIntoView({block: 'center', behavior: 'instant'});
  const r = el.getClientRects()[0]; // a link that wraps: its first line
  const at = [r.left + r.width / 2, r.top + r.height / 2];
  // Only once it stands still: the page may still be scrolling to it.
  const still = window.clickAt && window.clickAt[0] === at[0] && window.clickAt[1] === at[1];
  window.clickAt = at;
  return still ? at : null;
})()`, text, selector)
		xy, err := chromedp.Poll[[]float64](find, chromedp.WithPollingInterval(100*time.Millisecond), chromedp.WithPollingTimeout(30*time.Second))(ctx, tg)
		if err != nil {
			return fmt.Errorf("no %s %q to click: %w", selector, text, err)
		}
		_, err = chromedp.MouseClickXY(xy[0], xy[1])(ctx, tg)
		return err
	})
}

// waitFor waits until the expression is true, through navigations (while
// a page is replaced, evaluating fails).
func waitFor(expression string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		deadline := time.Now().Add(30 * time.Second)
		for {
			ok, err := chromedp.Evaluate[bool](expression)(ctx, tg)
			if err == nil && ok {
				return nil
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("waiting for %s: %v", expression, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
}

// typeInto types keys, key by key, into the input of the visible label
// whose text is label.
func typeInto(selector, label, keys string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		focus := fmt.Sprintf(`(() => {
  const l = [...document.querySelectorAll(%q)].find(e => e.offsetParent !== null && e.innerText.trim() === %q);
  const input = l && document.getElementById(l.htmlFor);
  if (!input) return false;
  input.scrollIntoView({block: 'center'});
  input.focus();
  return document.activeElement === input;
})()`, selector, label)
		if _, err := chromedp.Poll[bool](focus, chromedp.WithPollingTimeout(30*time.Second))(ctx, tg); err != nil {
			return fmt.Errorf("no input labelled %q: %w", label, err)
		}
		_, err := chromedp.KeyEvent(keys)(ctx, tg)
		return err
	})
}

// namesShownJS is a condition that holds when the page's text has every
// name.
func namesShownJS(names []string) string {
	b, _ := json.Marshal(names)
	return `(() => { const t = document.body.innerText; return ` + string(b) + `.every(n => t.includes(n)); })()`
}

func missing(text string, names []string) []string {
	var out []string
	for _, n := range names {
		if !strings.Contains(text, n) {
			out = append(out, n)
		}
	}
	return out
}

type openapiOperations struct {
	Paths map[string]map[string]struct {
		Summary     string `json:"summary"`
		OperationID string `json:"operationId"`
	} `json:"paths"`
}

func fetchJSON[T any](t *testing.T, u string) T {
	t.Helper()
	var v T
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", u, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	return v
}

// startDocsServer serves the real API on :0 with the real docs, a real
// account and key (an SQLite store, the key directory, the Authenticator)
// and the in-process limiter. It returns the server and the key.
func startDocsServer(t *testing.T) (*httptest.Server, string) {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "cardcat.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	acc := &account.Account{Email: "reader@example.test", Plan: account.Free}
	if err := st.CreateAccount(ctx, acc); err != nil {
		t.Fatal(err)
	}
	key, err := account.NewKey(false)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.CreateKey(ctx, &account.Key{AccountID: acc.ID, Hash: account.HashKey(key), Prefix: account.DisplayPrefix(key)}); err != nil {
		t.Fatal(err)
	}
	dir, err := account.NewDirectory(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	lim := memory.New(memory.Options{})
	t.Cleanup(func() { lim.Close() })

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deps := testDeps(mustView(t, mustFixture(t)))
	deps.Now = time.Now
	deps.Docs = cardcat.Docs()
	deps.Auth = account.NewAuthenticator(dir, nil)
	deps.Limiter = lim
	deps.PublicURL = "http://" + ln.Addr().String()
	api := mustServer(t, Config{}, deps)

	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: api}}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, key
}
