package httpapi

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cardcat/cardcat"
	"github.com/cardcat/cardcat/internal/site"
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
	w := get(h, "/docs/"+site.GuideSlugs[0], "X-API-Key", "")
	if w.Code != http.StatusOK {
		tb.Fatalf("/docs/%s: %d", site.GuideSlugs[0], w.Code)
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
	if len(pages) < 1+len(site.GuideSlugs) {
		t.Fatalf("pages %v: fewer than the reference and the guides", pages)
	}
	for i, slug := range site.GuideSlugs {
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
		wantCSP := site.CSPGuide
		if p == "/docs" {
			wantCSP = site.CSPReference
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
			if target == "/openapi.json" || target == "/account/" || target == "/account/signup" || target == "/status" {
				continue // another route's (the portal's: internal/portal; the status page's: internal/status), tested with it
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
			hd.Get("Cache-Control") != "public, max-age=31536000, immutable" || hd.Get("Content-Security-Policy") != site.CSPAsset ||
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
	js, _ := os.ReadFile(filepath.Join("..", "site", "docsite", "reference.js"))
	m := regexp.MustCompile(`preferredSecurityScheme: '([^']*)'`).FindSubmatch(js)
	if m == nil {
		t.Fatal("reference.js names no preferredSecurityScheme")
	}
	if s := doc.Components.SecuritySchemes[string(m[1])]; s.Type != "apiKey" || s.In != "header" || s.Name != "X-API-Key" {
		t.Errorf("the document's security scheme %q is %+v, want the X-API-Key header (schemes: %+v)", m[1], s, doc.Components.SecuritySchemes)
	}
}
