package portal

import (
	"bytes"
	"html/template"
	"io/fs"
	"path"
	"strings"
	"testing"
	"testing/fstest"
)

// Every page of the embedded templates is in the one set under its own
// name, and a page renders inside the layout.
func TestParseTemplatesNamesEveryPage(t *testing.T) {
	set, err := parseTemplates(templateFS)
	if err != nil {
		t.Fatal(err)
	}
	names, _ := fs.Glob(templateFS, "templates/*.html")
	for _, n := range names {
		if base := path.Base(n); base != "layout.html" && set.Lookup(pagePrefix+strings.TrimSuffix(base, ".html")) == nil {
			t.Errorf("no template %s%s", pagePrefix, strings.TrimSuffix(base, ".html"))
		}
	}
	if set.Lookup("content") != nil {
		t.Error(`a template is still named "content": one page's would stand for all`)
	}
}

func TestParseTemplatesTwoPages(t *testing.T) {
	fsys := fstest.MapFS{
		"templates/layout.html": {Data: []byte(`<main>{{.Content}}</main>`)},
		"templates/a.html":      {Data: []byte(`{{define "content"}}<p>A {{.Title}}</p>{{end}}`)},
		"templates/b.html":      {Data: []byte(`{{define "content"}}<p>B {{.Title}}</p>{{end}}`)},
	}
	set, err := parseTemplates(fsys)
	if err != nil {
		t.Fatal(err)
	}
	for _, page := range []string{"a", "b"} {
		var b bytes.Buffer
		if err := set.Lookup(pagePrefix+page).Execute(&b, pageData{Title: "<x>"}); err != nil {
			t.Fatal(err)
		}
		content := b.String()
		b.Reset()
		if err := set.ExecuteTemplate(&b, "layout.html", pageData{Content: template.HTML(content)}); err != nil {
			t.Fatal(err)
		}
		if want := "<main><p>" + strings.ToUpper(page) + " &lt;x&gt;</p></main>"; b.String() != want {
			t.Errorf("page %s: %q, want %q", page, b.String(), want)
		}
	}
}

func TestParseTemplatesRefusesAPageWithoutContent(t *testing.T) {
	fsys := fstest.MapFS{
		"templates/layout.html": {Data: []byte(`<main>{{.Content}}</main>`)},
		"templates/a.html":      {Data: []byte(`{{define "body"}}A{{end}}`)},
	}
	if _, err := parseTemplates(fsys); err == nil || !strings.Contains(err.Error(), `templates/a.html defines no "content"`) {
		t.Fatalf("error %v, want one naming templates/a.html", err)
	}
}
