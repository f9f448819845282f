package httpapi

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/cardcat/cardcat"
)

// docsHandler is the API on the fixture with the real docs/ (what the
// binary embeds).
func docsHandler(tb testing.TB) http.Handler {
	tb.Helper()
	deps := testDeps(mustView(tb, mustFixture(tb)))
	deps.Docs = cardcat.Docs()
	return mustServer(tb, Config{}, deps)
}

var (
	titleRe = regexp.MustCompile(`<title>([^<]*)</title>`)
	hrefRe  = regexp.MustCompile(`(?:href|src)="([^"]*)"`)
	idRe    = regexp.MustCompile(` id="([^"]*)"`)
)

// docPages are the pages of the site: the reference, then the guides in
// the order their navigation lists them.
func docPages(tb testing.TB, h http.Handler) []string {
	tb.Helper()
	w := get(h, "/docs/"+guideSlugs[0], "X-API-Key", "")
	if w.Code != http.StatusOK {
		tb.Fatalf("/docs/%s: %d", guideSlugs[0], w.Code)
	}
	nav := w.Body.String()
	nav = nav[strings.Index(nav, `<nav class="guide-nav"`):]
	nav = nav[:strings.Index(nav, "</nav>")]
	pages := []string{"/docs"}
	for _, m := range hrefRe.FindAllStringSubmatch(nav, -1) {
		pages = append(pages, m[1])
	}
	return pages
}

func TestDocsPages(t *testing.T) {
	h := docsHandler(t)
	pages := docPages(t, h)
	if len(pages) < 1+len(guideSlugs) {
		t.Fatalf("pages %v: fewer than the reference and the guides", pages)
	}
	for i, slug := range guideSlugs {
		if pages[1+i] != "/docs/"+slug {
			t.Errorf("guide %d is %s, want /docs/%s", i, pages[1+i], slug)
		}
	}
	for _, p := range pages {
		w := get(h, p, "X-API-Key", "")
		hd := w.Header()
		if w.Code != http.StatusOK || hd.Get("Content-Type") != "text/html; charset=utf-8" {
			t.Errorf("%s: %d %q", p, w.Code, hd.Get("Content-Type"))
			continue
		}
		wantCSP := cspGuide
		if p == "/docs" {
			wantCSP = cspReference
		}
		if got := hd.Get("Content-Security-Policy"); got != wantCSP {
			t.Errorf("%s: CSP %q, want %q", p, got, wantCSP)
		}
		if hd.Get("X-Frame-Options") != "DENY" || hd.Get("Referrer-Policy") != "no-referrer" ||
			hd.Get("X-Content-Type-Options") != "nosniff" || hd.Get("Cache-Control") != "no-cache" || hd.Get("ETag") == "" {
			t.Errorf("%s: headers %v", p, hd)
		}
		m := titleRe.FindStringSubmatch(w.Body.String())
		if m == nil || !strings.HasSuffix(m[1], " · cardcat API") {
			t.Errorf("%s: title %q", p, m)
		}
		// An unchanged page is a 304.
		if w := get(h, p, "X-API-Key", "", "If-None-Match", hd.Get("ETag")); w.Code != http.StatusNotModified || w.Body.Len() != 0 {
			t.Errorf("%s with its ETag: %d, %d bytes", p, w.Code, w.Body.Len())
		}
	}

	// The guide pages run no script; the reference runs Scalar and its setup.
	if w := get(h, "/docs/rate-limits", "X-API-Key", ""); strings.Contains(w.Body.String(), "<script") {
		t.Errorf("a guide page has a script")
	}
	ref := get(h, "/docs", "X-API-Key", "").Body.String()
	if !strings.Contains(ref, `<div id="reference"></div>`) || strings.Count(ref, "<script src=") != 2 {
		t.Errorf("the reference page does not load Scalar:\n%s", ref)
	}

	// The Markdown, as it is, for tools.
	api, err := os.ReadFile(filepath.Join("..", "..", "docs", "api.md"))
	if err != nil {
		t.Fatal(err)
	}
	w := get(h, "/docs/api.md", "X-API-Key", "")
	if w.Code != http.StatusOK || w.Header().Get("Content-Type") != "text/markdown; charset=utf-8" || !bytes.Equal(w.Body.Bytes(), api) {
		t.Errorf("/docs/api.md: %d %q, %d bytes", w.Code, w.Header().Get("Content-Type"), w.Body.Len())
	}

	// Anything else under /docs is the API's 404, and an error's docs link
	// is the site.
	for _, p := range []string{"/docs/nowhere", "/docs/assets/nothing.js", "/docs/assets", "/docs/overview/x", "/nowhere"} {
		w := get(h, p, "X-API-Key", "")
		var body errorBody
		if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil || w.Code != http.StatusNotFound ||
			body.Error != errEndpointNotFound || body.Docs != "https://api.cardcat.test/docs" {
			t.Errorf("%s: %d %s", p, w.Code, w.Body.String())
		}
	}
}

// TestDocsLinks follows every link of every page: a page of the site
// answers, a #fragment is an id on its page, and nothing points to another
// host.
func TestDocsLinks(t *testing.T) {
	h := docsHandler(t)
	ids := map[string]map[string]bool{} // page -> its ids
	body := map[string]string{}
	load := func(p string) string {
		if b, ok := body[p]; ok {
			return b
		}
		w := get(h, p, "X-API-Key", "")
		if w.Code != http.StatusOK {
			t.Errorf("%s: %d", p, w.Code)
		}
		body[p] = w.Body.String()
		ids[p] = map[string]bool{}
		for _, m := range idRe.FindAllStringSubmatch(body[p], -1) {
			ids[p][m[1]] = true
		}
		return body[p]
	}
	links := 0
	for _, page := range docPages(t, h) {
		for _, m := range hrefRe.FindAllStringSubmatch(load(page), -1) {
			links++
			u, err := url.Parse(m[1])
			if err != nil || u.Scheme != "" || u.Host != "" {
				t.Errorf("%s links to %q, off this server", page, m[1])
				continue
			}
			target := u.Path
			if target == "" {
				target = page
			}
			if target == "/openapi.json" || target == "/account/" {
				continue // another route's (the portal's: internal/portal), tested with it
			}
			if !strings.HasPrefix(target, "/docs") {
				t.Errorf("%s links to %q", page, m[1])
				continue
			}
			load(target)
			if u.Fragment != "" && !ids[target][u.Fragment] {
				t.Errorf("%s links to %q: no id %q on %s", page, m[1], u.Fragment, target)
			}
		}
	}
	if links < 100 {
		t.Errorf("only %d links followed", links)
	}
}

func TestDocsAssets(t *testing.T) {
	h := docsHandler(t)
	ref := get(h, "/docs", "X-API-Key", "").Body.String()
	guide := get(h, "/docs/errors", "X-API-Key", "").Body.String()
	want := map[string]string{".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8", ".txt": "text/plain; charset=utf-8", ".svg": "image/svg+xml"}
	seen := 0
	for _, m := range hrefRe.FindAllStringSubmatch(ref+guide, -1) {
		if !strings.HasPrefix(m[1], "/docs/assets/") {
			continue
		}
		seen++
		plain := get(h, m[1], "X-API-Key", "")
		hd := plain.Header()
		if plain.Code != http.StatusOK || hd.Get("Content-Type") != want[filepath.Ext(m[1])] ||
			hd.Get("Cache-Control") != "public, max-age=31536000, immutable" || hd.Get("Content-Security-Policy") != cspAsset ||
			hd.Get("Content-Encoding") != "" {
			t.Errorf("%s: %d %v", m[1], plain.Code, hd)
		}
		zipped := get(h, m[1], "X-API-Key", "", "Accept-Encoding", "br, gzip")
		if plain.Body.Len() <= 1024 {
			continue
		}
		if zipped.Header().Get("Content-Encoding") != "gzip" || zipped.Header().Get("Vary") != "Accept-Encoding" {
			t.Errorf("%s with gzip accepted: %v", m[1], zipped.Header())
			continue
		}
		zr, err := gzip.NewReader(zipped.Body)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(zr)
		if err != nil || !bytes.Equal(b, plain.Body.Bytes()) {
			t.Errorf("%s: gzipped body is not the body (%v)", m[1], err)
		}
	}
	if seen < 5 {
		t.Errorf("%d assets linked, want the icon, site.css, Scalar, its setup and its license", seen)
	}
}

func TestAcceptsGzip(t *testing.T) {
	for v, want := range map[string]bool{
		"": false, "gzip": true, "br, gzip": true, "GZIP;q=0.5": true, "gzip;q=0": false, "gzip; q=0.0": false,
		"deflate": false, "x-gzip": false, "*": false,
	} {
		r, _ := http.NewRequest(http.MethodGet, "/", nil)
		r.Header.Set("Accept-Encoding", v)
		if got := acceptsGzip(r); got != want {
			t.Errorf("Accept-Encoding %q: %v, want %v", v, got, want)
		}
	}
}

// TestDocsNotCounted: the site is public like GET /docs: a key's pool is
// shown, never drawn from.
func TestDocsNotCounted(t *testing.T) {
	l := newLimited(t, Config{}, func(d *Deps) { d.Docs = cardcat.Docs() })
	ref := l.get("/docs", keyA1).Body.String()
	asset := hrefRe.FindAllStringSubmatch(ref, -1)
	for _, p := range []string{"/docs", "/docs/rate-limits", "/docs/changelog", "/docs/api.md", "/docs/nowhere", asset[len(asset)-1][1]} {
		if w := l.get(p, keyA1); limitHeaders(w) != hdr(100, 100, 1000, 1000) {
			t.Errorf("%s with a key: %v", p, limitHeaders(w))
		}
		l.get(p, "")
	}
	if hour, day := l.usedBy(t, "acct:1"); hour != 0 || day != 0 {
		t.Errorf("the docs counted: %d this hour, %d today", hour, day)
	}
	if hour, _ := l.usedBy(t, "ip:192.0.2.1"); hour != 0 {
		t.Errorf("the docs counted in the guard bucket: %d", hour)
	}
	l.get("/dbs/sets", keyA1)
	if hour, _ := l.usedBy(t, "acct:1"); hour != 1 {
		t.Errorf("a keyed request counted %d", hour)
	}
}

func TestDocsWithoutDocs(t *testing.T) {
	h := fixtureHandler(t)
	for _, p := range []string{"/docs", "/docs/rate-limits", "/docs/api.md"} {
		if w := get(h, p); w.Code != http.StatusNotFound {
			t.Errorf("%s without docs: %d", p, w.Code)
		}
	}
}

// TestDocsMarkdown: the guides are cut at api.md's sections, links to a
// section go to its page, and the Markdown's text is escaped.
func TestDocsMarkdown(t *testing.T) {
	api := "# API\n\nIntro, see [limits](#rate-limits) and [headers](#headers).\n\n" +
		"## Getting a key\n\nAsk. <script>alert(1)</script> [x](javascript:alert(1)) `<b>` 1 < 2 & 3\n\n" +
		"## Rate limits\n\nSee [keys](#getting-a-key) and [below](#headers).\n\n### Headers\n\n<b>raw</b>\n"
	changelog := "# Changelog\n\n## Unreleased\n\n- [Limits](api.md#headers), [all](api.md), [here](#unreleased).\n"
	sections, err := renderGuides([]byte(api), []byte(changelog))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]guideSection{}
	var order []string
	for _, s := range sections {
		got[s.Slug] = s
		order = append(order, s.Slug+"="+s.Title)
	}
	if want := "overview=Overview getting-a-key=Getting a key rate-limits=Rate limits changelog=Changelog"; strings.Join(order, " ") != want {
		t.Errorf("pages %q, want %q", strings.Join(order, " "), want)
	}
	for slug, want := range map[string][]string{
		"overview":      {`<h1 id="api">Overview</h1>`, `href="/docs/rate-limits"`, `href="/docs/rate-limits#headers"`},
		"getting-a-key": {`<h1 id="getting-a-key">Getting a key</h1>`, "<code>&lt;b&gt;</code>", "1 &lt; 2 &amp; 3", `<a href="">x</a>`},
		"rate-limits":   {`<h1 id="rate-limits">`, `href="/docs/getting-a-key"`, `href="#headers"`, `<h2 id="headers">Headers</h2>`},
		"changelog":     {`href="/docs/rate-limits#headers"`, `href="/docs/api.md"`, `href="#unreleased"`},
	} {
		for _, w := range want {
			if !strings.Contains(got[slug].HTML, w) {
				t.Errorf("%s lacks %s:\n%s", slug, w, got[slug].HTML)
			}
		}
	}
	for _, s := range sections {
		if strings.Contains(s.HTML, "<script") || strings.Contains(s.HTML, "<b>raw") || strings.Contains(s.HTML, "javascript:") {
			t.Errorf("%s lets HTML through:\n%s", s.Slug, s.HTML)
		}
	}

	// A link to no heading is an error, not a dead link.
	for _, tt := range []struct{ api, changelog string }{
		{"# API\n\n[x](#nowhere)\n", "# Changelog\n"},
		{"# API\n", "# Changelog\n\n[x](api.md#nowhere)\n"},
		{"# API\n", "# Changelog\n\n[x](#nowhere)\n"},
	} {
		if _, err := renderGuides([]byte(tt.api), []byte(tt.changelog)); err == nil || !strings.Contains(err.Error(), "nowhere") {
			t.Errorf("%q, %q: err %v", tt.api, tt.changelog, err)
		}
	}
	// Every guide of the navigation is a section of api.md.
	if _, err := newDocSite(fstest.MapFS{"api.md": {Data: []byte(api)}, "changelog.md": {Data: []byte(changelog)}}, "v1"); err == nil ||
		!strings.Contains(err.Error(), `"your-first-request"`) {
		t.Errorf("a site without every guide: %v", err)
	}
}

// TestScalarVendored: the embedded bundle is the one tools/vendor-scalar.sh
// fetched and checked, at the version it pins.
func TestScalarVendored(t *testing.T) {
	b, err := docsiteFS.ReadFile("docsite/vendor/scalar/standalone.js")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := docsiteFS.ReadFile("docsite/vendor/scalar/standalone.js.sha256")
	if err != nil {
		t.Fatal(err)
	}
	got := sha256.Sum256(b)
	if want, _, _ := strings.Cut(string(sum), " "); hex.EncodeToString(got[:]) != want {
		t.Errorf("standalone.js is not the vendored file: sha256 %x, want %s (run tools/vendor-scalar.sh)", got, want)
	}
	version, _ := docsiteFS.ReadFile("docsite/vendor/scalar/VERSION")
	script, err := os.ReadFile(filepath.Join("..", "..", "tools", "vendor-scalar.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "\nVERSION=" + strings.TrimSpace(string(version)) + "\n"; !strings.Contains(string(script), want) {
		t.Errorf("tools/vendor-scalar.sh does not pin the vendored version %s", version)
	}
}

// TestDocsReferenceConfig: the security scheme the reference preselects is
// the document's X-API-Key scheme.
func TestDocsReferenceConfig(t *testing.T) {
	h := docsHandler(t)
	w := get(h, "/openapi.json", "X-API-Key", "")
	if w.Code != http.StatusOK {
		t.Skip("this server serves no /openapi.json yet")
	}
	var doc struct {
		Components struct {
			SecuritySchemes map[string]struct{ Type, In, Name, Scheme string }
		}
	}
	if err := json.Unmarshal(w.Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	js, _ := docsiteFS.ReadFile("docsite/reference.js")
	m := regexp.MustCompile(`preferredSecurityScheme: '([^']*)'`).FindSubmatch(js)
	if m == nil {
		t.Fatal("reference.js names no preferredSecurityScheme")
	}
	if s := doc.Components.SecuritySchemes[string(m[1])]; s.Type != "apiKey" || s.In != "header" || s.Name != "X-API-Key" {
		t.Errorf("the document's security scheme %q is %+v, want the X-API-Key header (schemes: %+v)", m[1], s, doc.Components.SecuritySchemes)
	}
}
