package site

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

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
	if _, err := New(fstest.MapFS{"api.md": {Data: []byte(api)}, "changelog.md": {Data: []byte(changelog)}}, "v1", ""); err == nil ||
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
