// Package site is the docs site, GET /docs and below: the API reference,
// which Scalar (vendored in docsite/vendor/scalar) renders in the browser
// from /openapi.json, and the guide pages, one per section of docs/api.md
// plus docs/changelog.md, rendered from Markdown once when the server
// starts. Everything the pages load is served from here: no CDN, no font
// service, nothing from another host. The REST API routes /docs to it
// (httpapi's handler_docs.go) and answers its own 404 for what it lacks.
package site

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"sync"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"

	"github.com/cardcat/cardcat/internal/web"
)

//go:embed docsite
var docsiteFS embed.FS

// The docs the site is built from, the names in the fs.FS New reads.
const (
	MarkdownName  = "api.md"
	docsChangelog = "changelog.md"
)

// GuideSlugs are the sections of docs/api.md a newcomer reads first, in
// the order the guides' navigation lists them; the other sections follow
// under "More", in the document's order.
var GuideSlugs = []string{
	"getting-a-key", "your-first-request", "authentication", "rate-limits", "errors", "pagination",
	"card-ids", "prices-and-currencies", "paid-endpoints-and-the-7-day-trial", "changelog",
}

// overviewSlug is the page of api.md's text before its first section.
const overviewSlug = "overview"

// Security headers of the docs. The guide pages run no script and load
// only the site's stylesheet. The reference page runs Scalar, from this
// server, which needs inline styles (it injects its stylesheet as a
// <style> element and sets style attributes), images as data: URIs (its
// icons), and requests to this server only: the document and the in-page
// client's requests. It needs no eval: its validation library (zod) probes
// once whether eval works and does without, so 'unsafe-eval' stays out.
const (
	CSPGuide     = "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
	CSPReference = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
		"font-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
	CSPAsset = "default-src 'none'; frame-ancestors 'none'"
)

// Site is the site, rendered once: its pages by slug ("" is the
// reference) and its assets by the name they are served under.
type Site struct {
	pages  map[string]*docPage
	assets map[string]*docAsset
	raw    []byte // docs/api.md, served as it is at /docs/api.md
}

type docPage struct {
	slug, title string
	csp         string
	contentType string // text/html unless set
	body        []byte
	etag        string
}

// docAsset is a file of docsite/ served under a name that carries a hash
// of its content, so that it can be cached for good.
type docAsset struct {
	contentType string
	body        []byte
	gzipOnce    sync.Once
	gzipped     []byte // body gzipped, made on the first request that accepts it
}

func (a *docAsset) gzip() []byte {
	a.gzipOnce.Do(func() {
		var b bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
		zw.Write(a.body)
		zw.Close()
		a.gzipped = b.Bytes()
	})
	return a.gzipped
}

// ServePage writes the page of slug ("" is the reference); false when the
// site has none.
func (site *Site) ServePage(w http.ResponseWriter, r *http.Request, slug string) bool {
	p, ok := site.pages[slug]
	if !ok {
		return false
	}
	site.writePage(w, r, p)
	return true
}

// ServeMarkdown writes docs/api.md as it is.
func (site *Site) ServeMarkdown(w http.ResponseWriter, r *http.Request) {
	setDocsHeaders(w, CSPAsset)
	w.Header().Set("Cache-Control", "public, max-age=3600")
	web.WriteAnswer(w, web.Kept, markdownType, site.raw, "")
}

var markdownType = []string{"text/markdown; charset=utf-8"}

// ServeAsset writes the asset served under name (its content's hash in
// it), cached for a year; false when the site has none.
func (site *Site) ServeAsset(w http.ResponseWriter, r *http.Request, name string) bool {
	a, ok := site.assets[name]
	if !ok {
		return false
	}
	setDocsHeaders(w, CSPAsset)
	h := w.Header()
	h.Set("Content-Type", a.contentType)
	h.Set("Cache-Control", "public, max-age=31536000, immutable")
	h.Set("Vary", "Accept-Encoding")
	body := a.body
	if len(body) > 1024 && acceptsGzip(r) {
		body = a.gzip()
		h.Set("Content-Encoding", "gzip")
	}
	web.SetContentLength(w, len(body))
	w.Write(body)
	return true
}

func (site *Site) writePage(w http.ResponseWriter, r *http.Request, p *docPage) {
	setDocsHeaders(w, p.csp)
	h := w.Header()
	// Revalidated on every view (a 304 when unchanged): a page names its
	// assets by their content's hash, so an old page must not outlive them.
	h.Set("Cache-Control", "no-cache")
	h.Set("ETag", p.etag)
	if etagMatches(r.Header.Get("If-None-Match"), p.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	ct := p.contentType
	if ct == "" {
		ct = "text/html; charset=utf-8"
	}
	h.Set("Content-Type", ct)
	web.SetContentLength(w, len(p.body))
	w.Write(p.body)
}

func setDocsHeaders(w http.ResponseWriter, csp string) {
	h := w.Header()
	h.Set("Content-Security-Policy", csp)
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
}

// etagMatches reports whether an If-None-Match value names etag.
func etagMatches(inm, etag string) bool {
	for _, v := range strings.Split(inm, ",") {
		v = strings.TrimPrefix(strings.TrimSpace(v), "W/")
		if v == etag || v == "*" {
			return true
		}
	}
	return false
}

// acceptsGzip reports whether the request's Accept-Encoding takes gzip.
func acceptsGzip(r *http.Request) bool {
	for _, v := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(v), ";")
		if !strings.EqualFold(strings.TrimSpace(name), "gzip") {
			continue
		}
		q := strings.ReplaceAll(params, " ", "")
		return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
	}
	return false
}

// New renders the site from docs, which holds api.md and
// changelog.md; version is the server's, shown in the pages' footer.
// publicURL (no trailing slash) makes the changelog feed's links and ids.
func New(docs fs.FS, version, publicURL string) (*Site, error) {
	api, err := fs.ReadFile(docs, MarkdownName)
	if err != nil {
		return nil, fmt.Errorf("docs: %w", err)
	}
	changelog, err := fs.ReadFile(docs, docsChangelog)
	if err != nil {
		return nil, fmt.Errorf("docs: %w", err)
	}
	return buildDocSite(api, changelog, version, publicURL)
}

// assetFiles are the files of docsite/ the pages load, by the name the
// layout asks for.
var assetFiles = []struct{ name, file, contentType string }{
	{"site.css", "docsite/site.css", "text/css; charset=utf-8"},
	{"favicon.svg", "docsite/favicon.svg", "image/svg+xml"},
	{"reference.js", "docsite/reference.js", "text/javascript; charset=utf-8"},
	{"scalar.js", "docsite/vendor/scalar/standalone.js", "text/javascript; charset=utf-8"},
	{"scalar-LICENSE.txt", "docsite/vendor/scalar/LICENSE", "text/plain; charset=utf-8"},
}

func buildDocSite(api, changelog []byte, version, publicURL string) (*Site, error) {
	site := &Site{pages: map[string]*docPage{}, assets: map[string]*docAsset{}, raw: api}
	assetURL := map[string]string{}
	for _, f := range assetFiles {
		b, err := docsiteFS.ReadFile(f.file)
		if err != nil {
			return nil, fmt.Errorf("docs: %w", err)
		}
		sum := sha256.Sum256(b)
		ext := path.Ext(f.name)
		served := strings.TrimSuffix(f.name, ext) + "." + hex.EncodeToString(sum[:5]) + ext
		site.assets[served] = &docAsset{contentType: f.contentType, body: b}
		assetURL[f.name] = "/docs/assets/" + served
	}
	scalarVersion, err := docsiteFS.ReadFile("docsite/vendor/scalar/VERSION")
	if err != nil {
		return nil, fmt.Errorf("docs: %w", err)
	}
	sections, err := renderGuides(api, changelog)
	if err != nil {
		return nil, err
	}
	bySlug := map[string]docLink{}
	for _, sec := range sections {
		bySlug[sec.Slug] = docLink{Slug: sec.Slug, Title: sec.Title}
	}
	var guides, more []docLink
	for _, slug := range GuideSlugs {
		l, ok := bySlug[slug]
		if !ok {
			return nil, fmt.Errorf("docs: no section %q in docs/api.md for the guides", slug)
		}
		guides = append(guides, l)
		delete(bySlug, slug)
	}
	for _, sec := range sections {
		if l, ok := bySlug[sec.Slug]; ok {
			more = append(more, l)
		}
	}

	page := func(slug, title, body, csp string) error {
		var b bytes.Buffer
		if err := writeLayout(&b, layoutData{
			// The body is goldmark's HTML of docs/, which escapes the Markdown's text.
			Title: title, Slug: slug, Body: template.HTML(body), Guides: guides, More: more,
			Version: version, ScalarVersion: strings.TrimSpace(string(scalarVersion)), Asset: assetURL,
		}); err != nil {
			return err
		}
		sum := sha256.Sum256(b.Bytes())
		site.pages[slug] = &docPage{slug: slug, title: title, csp: csp, body: b.Bytes(),
			etag: `"` + hex.EncodeToString(sum[:8]) + `"`}
		return nil
	}
	if err := page("", "API reference", "", CSPReference); err != nil {
		return nil, fmt.Errorf("docs: %w", err)
	}
	for _, sec := range sections {
		if err := page(sec.Slug, sec.Title, sec.HTML, CSPGuide); err != nil {
			return nil, fmt.Errorf("docs: %w", err)
		}
	}
	// The changelog's feed: its dated sections; a section of another title
	// is left out (TestChangelogFeed wants none).
	var dated []changelogSection
	if cl := sections[len(sections)-1]; cl.Slug == "changelog" {
		dated, _ = changelogSections(cl.HTML)
	}
	feed, err := changelogFeed(dated, publicURL).Marshal()
	if err != nil {
		return nil, fmt.Errorf("docs: the changelog's feed: %w", err)
	}
	sum := sha256.Sum256(feed)
	site.pages[ChangelogFeedSlug] = &docPage{slug: ChangelogFeedSlug, title: "Changelog feed", csp: CSPAsset,
		contentType: AtomType, body: feed, etag: `"` + hex.EncodeToString(sum[:8]) + `"`}
	return site, nil
}

// layoutData is what a page of the site shows around its body.
type layoutData struct {
	Title, Slug   string        // Slug "" is the reference
	Reference     bool          // the reference page, not a guide
	Header        Header        // the site header, shared with the portal
	Body          template.HTML // the guide's HTML, rendered from Markdown (escaped by goldmark)
	Guides, More  []docLink
	Version       string
	ScalarVersion string
	Asset         map[string]string // an asset's name -> its URL
}

// Templates holds the site's templates: header.html, the site header every
// page of the docs and of the account portal starts with ("site-header",
// of a Header), and the docs pages' layout.
//
//go:embed templates
var Templates embed.FS

// Header is what the site header shows: which of its links is the current
// page's (reference, guides, changelog, account) and where the guides start.
type Header struct {
	Current    string
	FirstGuide string
}

// HeaderFor is the site header of a page of the current section.
func HeaderFor(current string) Header { return Header{Current: current, FirstGuide: GuideSlugs[0]} }

// AssetURL is the URL of an asset of the site (site.css, favicon.svg)
// under its content-hashed name: what another page of the server (the
// status page) links to.
func AssetURL(name string) string { return assetURLs()[name] }

var assetURLs = sync.OnceValue(func() map[string]string {
	urls := map[string]string{}
	for _, f := range assetFiles {
		b, err := docsiteFS.ReadFile(f.file)
		if err != nil {
			panic(err) // embedded: a build without it fails every test
		}
		sum := sha256.Sum256(b)
		ext := path.Ext(f.name)
		urls[f.name] = "/docs/assets/" + strings.TrimSuffix(f.name, ext) + "." + hex.EncodeToString(sum[:5]) + ext
	}
	return urls
})

var layout = template.Must(template.ParseFS(Templates, "templates/layout.html", "templates/header.html"))

// writeLayout writes a page: the site header, then the reference's mount
// point or a guide with the guides' navigation.
func writeLayout(b *bytes.Buffer, d layoutData) error {
	d.Reference = d.Slug == ""
	switch {
	case d.Reference:
		d.Header = HeaderFor("reference")
	case d.Slug == "changelog":
		d.Header = HeaderFor("changelog")
	default:
		d.Header = HeaderFor("guides")
	}
	return layout.ExecuteTemplate(b, "layout.html", d)
}

type docLink struct{ Slug, Title string }

// guideSection is one page of the guides: a section of api.md (its "##"
// heading and what follows up to the next), the text before the first
// section (the overview), or the changelog.
type guideSection struct {
	Slug, Title string
	HTML        string
}

// markdown renders the guides: CommonMark with GitHub's tables, headings
// given GitHub's ids (so that api.md's links to its own sections work on
// GitHub and here alike), raw HTML left out and every text escaped.
var markdown = goldmark.New(
	goldmark.WithExtensions(extension.Table),
	goldmark.WithParserOptions(parser.WithAutoHeadingID()),
)

// renderGuides cuts api.md into one page per "##" section and renders
// them and the changelog. A link to a heading of api.md ("#rate-limits"
// in api.md, "api.md#rate-limits" in the changelog) becomes a link to the
// page that holds it; one that names no heading is an error, so that a
// renamed section cannot leave a dead link behind.
func renderGuides(api, changelog []byte) ([]guideSection, error) {
	apiDoc := markdown.Parser().Parse(text.NewReader(api))
	type part struct {
		slug, title string
		doc         *ast.Document
	}
	parts := []*part{{slug: overviewSlug, title: "Overview", doc: ast.NewDocument()}}
	anchors := map[string]string{} // heading id -> slug of its page
	for n := apiDoc.FirstChild(); n != nil; {
		next := n.NextSibling()
		if h, ok := n.(*ast.Heading); ok && h.Level == 2 {
			id := headingID(h)
			parts = append(parts, &part{slug: id, title: plainText(h, api), doc: ast.NewDocument()})
		}
		cur := parts[len(parts)-1]
		if h, ok := n.(*ast.Heading); ok {
			anchors[headingID(h)] = cur.slug
			switch {
			case cur.slug != overviewSlug:
				h.Level-- // the section's heading is its page's h1
			case h.Level == 1:
				// The document's title, "cardcat API", is the site's name;
				// the page's heading says which page it is.
				h.RemoveChildren(h)
				h.AppendChild(h, ast.NewString([]byte(parts[0].title)))
			}
		}
		apiDoc.RemoveChild(apiDoc, n)
		cur.doc.AppendChild(cur.doc, n)
		n = next
	}

	changelogDoc := markdown.Parser().Parse(text.NewReader(changelog))
	changelogAnchors := map[string]bool{}
	changelogTitle := "Changelog"
	ast.Walk(changelogDoc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if h, ok := n.(*ast.Heading); ok && entering {
			changelogAnchors[headingID(h)] = true
			if h.Level == 1 {
				changelogTitle = plainText(h, changelog)
			}
		}
		return ast.WalkContinue, nil
	})

	// target returns where a link to anchor of api.md goes from page slug.
	target := func(slug, anchor string) (string, error) {
		page, ok := anchors[anchor]
		switch {
		case !ok:
			return "", fmt.Errorf("docs: a link in %q names no heading of docs/api.md: #%s", slug, anchor)
		case page == slug:
			return "#" + anchor, nil
		case page == anchor:
			return "/docs/" + page, nil
		}
		return "/docs/" + page + "#" + anchor, nil
	}
	relink := func(doc ast.Node, slug string, resolve func(dest string) (string, bool, error)) error {
		return ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
			l, ok := n.(*ast.Link)
			if !ok || !entering {
				return ast.WalkContinue, nil
			}
			dest, changed, err := resolve(string(l.Destination))
			if err != nil {
				return ast.WalkStop, err
			}
			if changed {
				l.Destination = []byte(dest)
			}
			return ast.WalkContinue, nil
		})
	}

	var out []guideSection
	for _, p := range parts {
		err := relink(p.doc, p.slug, func(dest string) (string, bool, error) {
			anchor, ok := strings.CutPrefix(dest, "#")
			if !ok {
				return "", false, nil
			}
			t, err := target(p.slug, anchor)
			return t, true, err
		})
		if err != nil {
			return nil, err
		}
		html, err := renderMarkdown(p.doc, api)
		if err != nil {
			return nil, err
		}
		out = append(out, guideSection{Slug: p.slug, Title: p.title, HTML: html})
	}
	err := relink(changelogDoc, "changelog", func(dest string) (string, bool, error) {
		if anchor, ok := strings.CutPrefix(dest, "#"); ok {
			if !changelogAnchors[anchor] {
				return "", false, fmt.Errorf("docs: a link in docs/changelog.md names no heading of it: #%s", anchor)
			}
			return "", false, nil
		}
		if dest == MarkdownName {
			return "/docs/" + MarkdownName, true, nil
		}
		if anchor, ok := strings.CutPrefix(dest, MarkdownName+"#"); ok {
			t, err := target("changelog", anchor)
			return t, true, err
		}
		return "", false, nil
	})
	if err != nil {
		return nil, err
	}
	html, err := renderMarkdown(changelogDoc, changelog)
	if err != nil {
		return nil, err
	}
	out = append(out, guideSection{Slug: "changelog", Title: changelogTitle, HTML: html})
	return out, nil
}

func renderMarkdown(doc ast.Node, src []byte) (string, error) {
	var b bytes.Buffer
	if err := markdown.Renderer().Render(&b, src, doc); err != nil {
		return "", fmt.Errorf("docs: %w", err)
	}
	return b.String(), nil
}

func headingID(h *ast.Heading) string {
	id, _ := h.AttributeString("id")
	b, _ := id.([]byte)
	return string(b)
}

// plainText is the text of an inline node's children (a heading's title).
func plainText(n ast.Node, src []byte) string {
	var b strings.Builder
	ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch t := c.(type) {
		case *ast.Text:
			b.Write(t.Segment.Value(src))
			if t.SoftLineBreak() || t.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(t.Value)
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}
