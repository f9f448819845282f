package portal

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/site"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// pageData is what every page template gets; Data is the page's own.
type pageData struct {
	Title   string
	Account *account.Account // the logged-in account, nil when logged out
	Nav     string           // the navigation entry to mark current
	Notice  string           // a success message
	Error   string           // what went wrong, shown above the form
	Data    any
	// Static maps an asset's name to its versioned URL.
	Static map[string]string
	// SiteHeader is the header every page of the site starts with, the docs'
	// and the portal's (internal/site's header.html).
	SiteHeader site.Header
	// Contact is how to reach the operator, nil when none is given.
	Contact *Contact
	// MailLog is the message of the server's log lines that hold the
	// emailed links when this server sends no email (mail.NotSent); "" when
	// it sends them.
	MailLog string
	// AlertsOn: the Alerts and Webhooks pages are served (the navigation
	// links them).
	AlertsOn bool
	// Content is the page's own part, rendered first (render), which the
	// layout places in its main element.
	Content template.HTML
}

// pages holds the templates, one set of the layout and every page's
// content (named pagePrefix+page), and the static assets by their served
// name. One set, not a clone of the layout per page: the clones were 13,000
// objects the collector marked in every cycle (bench/README.md, "Less to
// mark, again").
type pages struct {
	set       *template.Template
	assets    map[string]staticAsset // served name -> asset
	assetURLs map[string]string      // file name -> URL
}

type staticAsset struct {
	contentType string
	body        []byte
}

var funcs = template.FuncMap{
	"date": func(t time.Time) string {
		if t.IsZero() {
			return "never"
		}
		return t.UTC().Format("2006-01-02 15:04 UTC")
	},
	"day": func(t time.Time) string { return t.UTC().Format("2006-01-02") },
	"moment": func(t time.Time) string {
		if t.IsZero() {
			return "never"
		}
		return t.UTC().Format("2006-01-02 15:04:05 UTC")
	},
	"ms":    func(d time.Duration) string { return formatInt(d.Milliseconds()) + " ms" },
	"num":   formatInt,
	"int64": func(n int) int64 { return int64(n) },
}

func parsePages() (*pages, error) {
	ps := &pages{assets: map[string]staticAsset{}, assetURLs: map[string]string{}}
	files, err := fs.Glob(staticFS, "static/*")
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		b, err := staticFS.ReadFile(f)
		if err != nil {
			return nil, err
		}
		// The URL names the content, so an asset can be cached for a year.
		sum := sha256.Sum256(b)
		name := path.Base(f)
		ext := path.Ext(name)
		served := strings.TrimSuffix(name, ext) + "." + hex.EncodeToString(sum[:4]) + ext
		ps.assets[served] = staticAsset{contentType: contentTypes[ext], body: b}
		ps.assetURLs[name] = "/account/static/" + served
	}
	set, err := parseTemplates(templateFS)
	if err != nil {
		return nil, err
	}
	ps.set = set
	return ps, nil
}

// parseTemplates parses fsys's templates/layout.html, the site's header and
// every other templates/*.html, a page whose "content" is renamed by the
// page (pagePrefix), into one set.
func parseTemplates(fsys fs.FS) (*template.Template, error) {
	set, err := template.New("layout.html").Funcs(funcs).ParseFS(fsys, "templates/layout.html")
	if err != nil {
		return nil, err
	}
	if set, err = set.ParseFS(site.Templates, "templates/header.html"); err != nil {
		return nil, err
	}
	names, err := fs.Glob(fsys, "templates/*.html")
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		base := path.Base(n)
		if base == "layout.html" {
			continue
		}
		text, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, err
		}
		// Each page defines "content"; in the one set it is named by its page.
		page := pagePrefix + strings.TrimSuffix(base, ".html")
		renamed := strings.Replace(string(text), `{{define "content"}}`, `{{define "`+page+`"}}`, 1)
		if renamed == string(text) {
			return nil, fmt.Errorf("portal: %s defines no \"content\"", n)
		}
		if _, err := set.New(base).Parse(renamed); err != nil {
			return nil, err
		}
	}
	return set, nil
}

var contentTypes = map[string]string{
	".css": "text/css; charset=utf-8",
	".js":  "text/javascript; charset=utf-8",
	".svg": "image/svg+xml",
}

// pagePrefix names a page's content template in the set: "page:keys".
const pagePrefix = "page:"

// render writes the page name with status: its content, then the layout
// around it. The page is rendered into a buffer first, so that a template
// error is a clean 500, not half a page.
func (p *Portal) render(w http.ResponseWriter, r *http.Request, status int, name string, d pageData) {
	content := p.pages.set.Lookup(pagePrefix + name)
	if content == nil {
		panic("portal: no template " + name)
	}
	if d.Account == nil {
		d.Account = accountOf(r)
	}
	d.Static = p.pages.assetURLs
	d.SiteHeader = site.HeaderFor("account")
	d.Contact, d.MailLog, d.AlertsOn = p.contact, p.mailLog, p.alertsOn()
	var b bytes.Buffer
	err := content.Execute(&b, d)
	if err == nil {
		d.Content = template.HTML(b.String()) // escaped by its own template
		b.Reset()
		err = p.pages.set.ExecuteTemplate(&b, "layout.html", d)
	}
	if err != nil {
		p.log.ErrorContext(r.Context(), "portal: render", "page", name, "error", err)
		http.Error(w, "The page could not be shown; please try again.", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Length", fmt.Sprint(b.Len()))
	w.WriteHeader(status)
	w.Write(b.Bytes())
}

// static serves /account/static/{file}.
func (p *Portal) static(w http.ResponseWriter, r *http.Request) {
	a, ok := p.pages.assets[r.PathValue("file")]
	if !ok {
		p.notFound(w, r)
		return
	}
	h := w.Header()
	h.Set("Content-Type", a.contentType)
	h.Set("Cache-Control", "public, max-age=31536000, immutable")
	w.Write(a.body)
}

// formatInt writes n with thousands separators: 12,345.
func formatInt(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
