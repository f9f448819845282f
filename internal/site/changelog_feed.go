package site

import (
	"cmp"
	"fmt"
	"regexp"
	"strings"
	"time"
)

// ChangelogFeedSlug is the changelog's Atom feed under /docs.
const ChangelogFeedSlug = "changelog.atom"

// changelogSection is a dated section of docs/changelog.md, "## YYYY-MM-DD":
// the changes that reached the API that UTC day, one feed entry, whose
// anchor (#YYYY-MM-DD) is the link of a deprecation's announcement.
type changelogSection struct {
	Date time.Time
	HTML string // the section's HTML, its heading excluded
}

var sectionHeading = regexp.MustCompile(`<h2 id="([^"]*)">([^<]*)</h2>\n`)

// changelogSections cuts the changelog page's HTML (goldmark's, links
// resolved) at its "##" headings; each must be a date (YYYY-MM-DD), newest
// first, each once. A section that is not is left out, and the first such
// mistake is the error.
func changelogSections(html string) ([]changelogSection, error) {
	locs := sectionHeading.FindAllStringSubmatchIndex(html, -1)
	var out []changelogSection
	var mistake error
	for i, loc := range locs {
		title := html[loc[4]:loc[5]]
		date, err := time.Parse(time.DateOnly, title)
		if err != nil {
			mistake = cmp.Or(mistake, fmt.Errorf("docs/changelog.md: the section %q is not a date (## YYYY-MM-DD, the UTC day the changes reached the API): its feed entry needs one", title))
			continue
		}
		if n := len(out); n > 0 && !date.Before(out[n-1].Date) {
			mistake = cmp.Or(mistake, fmt.Errorf("docs/changelog.md: the section %s follows %s: newest first, each day once", title, out[n-1].Date.Format(time.DateOnly)))
			continue
		}
		end := len(html)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		out = append(out, changelogSection{Date: date, HTML: strings.TrimSpace(html[loc[1]:end])})
	}
	return out, mistake
}

// changelogFeed is the changelog as an Atom feed: an entry per dated
// section, updated that day. publicURL (no trailing slash) makes its links.
func changelogFeed(sections []changelogSection, publicURL string) *Feed {
	page := publicURL + "/docs/changelog"
	self := publicURL + "/docs/" + ChangelogFeedSlug
	f := &Feed{ID: self, Title: "cardcat API changelog",
		Author: Person{Name: "cardcat", URI: publicURL + "/docs"},
		Links: []Link{{Rel: "self", Type: "application/atom+xml", Href: self},
			{Rel: "alternate", Type: "text/html", Href: page}}}
	for _, s := range sections {
		day := s.Date.Format(time.DateOnly)
		// Relative links of the page (/docs/...) made whole for a reader
		// that shows the entry elsewhere.
		body := strings.ReplaceAll(s.HTML, `href="/`, `href="`+publicURL+`/`)
		body = strings.ReplaceAll(body, `href="#`, `href="`+page+`#`)
		f.Entries = append(f.Entries, Entry{ID: page + "#" + day, Title: "Changes of " + day,
			Updated: AtomTime(s.Date), Links: []Link{{Rel: "alternate", Type: "text/html", Href: page + "#" + day}},
			Content: Content{Type: "html", Body: body}})
	}
	if len(sections) > 0 {
		f.Updated = AtomTime(sections[0].Date)
	} else {
		f.Updated = AtomTime(time.Unix(0, 0))
	}
	return f
}

// ChangelogAnchor is the link to the changelog's section of a day, from
// publicURL: a deprecation's announcement.
func ChangelogAnchor(publicURL string, day time.Time) string {
	return publicURL + "/docs/changelog#" + day.UTC().Format(time.DateOnly)
}
