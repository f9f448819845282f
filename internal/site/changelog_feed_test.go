package site

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/testkit"
)

// TestChangelogFeed: every section of docs/changelog.md is a day, newest
// first, and /docs/changelog.atom has an entry per day that RFC 4287 takes.
func TestChangelogFeed(t *testing.T) {
	docs := os.DirFS(filepath.Join("..", "..", "docs"))
	s, err := New(docs, "v1", "https://api.example.com")
	if err != nil {
		t.Fatal(err)
	}
	changelog, err := os.ReadFile(filepath.Join("..", "..", "docs", "changelog.md"))
	if err != nil {
		t.Fatal(err)
	}
	sections, err := renderGuides(s.raw, changelog)
	if err != nil {
		t.Fatal(err)
	}
	dated, err := changelogSections(sections[len(sections)-1].HTML)
	if err != nil {
		t.Fatal(err)
	}
	if len(dated) == 0 {
		t.Fatal("docs/changelog.md has no dated section")
	}
	w := httptest.NewRecorder()
	if !s.ServePage(w, httptest.NewRequest("GET", "/docs/changelog.atom", nil), ChangelogFeedSlug) {
		t.Fatal("no /docs/changelog.atom")
	}
	if ct := w.Header().Get("Content-Type"); ct != AtomType {
		t.Errorf("Content-Type %q, want %q", ct, AtomType)
	}
	ids := testkit.CheckAtom(t, w.Body.Bytes())
	if len(ids) != len(dated) {
		t.Errorf("%d entries, want one per dated section (%d)", len(ids), len(dated))
	}
	for i, d := range dated {
		want := "https://api.example.com/docs/changelog#" + d.Date.Format(time.DateOnly)
		if i < len(ids) && ids[i] != want {
			t.Errorf("entry %d: id %q, want %q", i, ids[i], want)
		}
	}
	if body := w.Body.String(); !strings.Contains(body, `https://api.example.com/docs/status-and-feeds`) {
		t.Error("the entries' links to the guides are not made whole")
	}
}

// TestChangelogSections: a section that is not a day, or out of order, is
// named in the error and left out of the feed.
func TestChangelogSections(t *testing.T) {
	html := "<h1 id=\"changelog\">Changelog</h1>\n<h2 id=\"unreleased\">Unreleased</h2>\n<ul><li>a</li></ul>\n" +
		"<h2 id=\"2026-11-28\">2026-11-28</h2>\n<ul><li>b</li></ul>\n<h2 id=\"2026-11-29\">2026-11-29</h2>\n<p>c</p>\n" +
		"<h2 id=\"2026-11-01\">2026-11-01</h2>\n<p>d</p>\n"
	got, err := changelogSections(html)
	if err == nil || !strings.Contains(err.Error(), `"Unreleased" is not a date`) {
		t.Errorf("error %v, want the Unreleased section named", err)
	}
	if len(got) != 2 || got[0].HTML != "<ul><li>b</li></ul>" || got[1].HTML != "<p>d</p>" {
		t.Errorf("sections %+v, want 2026-11-28 and 2026-11-01", got)
	}
}
