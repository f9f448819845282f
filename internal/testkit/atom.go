package testkit

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"net/url"
	"testing"
	"time"
)

// CheckAtom fails t unless body is an Atom feed as RFC 4287 asks (section
// 4.1): well-formed XML whose root is atom:feed; the feed with exactly one
// id, title and updated, a self link, and an author unless every entry has
// one; each entry with exactly one id, title and updated; ids absolute IRIs,
// unique; every updated and published an RFC 3339 date-time; every link
// with an href. It returns the entries' ids, in order.
func CheckAtom(t testing.TB, body []byte) []string {
	t.Helper()
	const ns = "http://www.w3.org/2005/Atom"
	type link struct {
		Rel  string `xml:"rel,attr"`
		Href string `xml:"href,attr"`
	}
	type person struct {
		Name []string `xml:"name"`
	}
	type entry struct {
		IDs       []string `xml:"id"`
		Titles    []string `xml:"title"`
		Updated   []string `xml:"updated"`
		Published []string `xml:"published"`
		Authors   []person `xml:"author"`
		Links     []link   `xml:"link"`
	}
	var feed struct {
		XMLName xml.Name
		entry
		Entries []entry `xml:"entry"`
	}
	// Well-formed: every token reads.
	dec := xml.NewDecoder(bytes.NewReader(body))
	for {
		_, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the feed is not well-formed XML: %v\n%s", err, body)
		}
	}
	if err := xml.Unmarshal(body, &feed); err != nil {
		t.Fatalf("the feed does not decode: %v", err)
	}
	if feed.XMLName.Space != ns || feed.XMLName.Local != "feed" {
		t.Fatalf("root element %v, want {%s}feed", feed.XMLName, ns)
	}
	seen := map[string]bool{}
	check := func(what string, e entry) {
		if len(e.IDs) != 1 {
			t.Errorf("%s: %d atom:id, want 1", what, len(e.IDs))
		} else if u, err := url.Parse(e.IDs[0]); err != nil || !u.IsAbs() {
			t.Errorf("%s: id %q is not an absolute IRI", what, e.IDs[0])
		} else if seen[e.IDs[0]] {
			t.Errorf("%s: id %q is not unique", what, e.IDs[0])
		} else {
			seen[e.IDs[0]] = true
		}
		if len(e.Titles) != 1 || e.Titles[0] == "" {
			t.Errorf("%s: %d atom:title (%q), want 1, not empty", what, len(e.Titles), e.Titles)
		}
		if len(e.Updated) != 1 {
			t.Errorf("%s: %d atom:updated, want 1", what, len(e.Updated))
		}
		if len(e.Published) > 1 {
			t.Errorf("%s: %d atom:published, want at most 1", what, len(e.Published))
		}
		for _, d := range append(append([]string{}, e.Updated...), e.Published...) {
			if _, err := time.Parse(time.RFC3339, d); err != nil {
				t.Errorf("%s: %q is not an RFC 3339 date-time", what, d)
			}
		}
		for _, a := range e.Authors {
			if len(a.Name) != 1 || a.Name[0] == "" {
				t.Errorf("%s: an author without exactly one name", what)
			}
		}
		for _, l := range e.Links {
			if l.Href == "" {
				t.Errorf("%s: a link without href", what)
			}
		}
	}
	check("feed", feed.entry)
	self := false
	for _, l := range feed.Links {
		self = self || l.Rel == "self"
	}
	if !self {
		t.Error("feed: no link rel=self")
	}
	var ids []string
	for i, e := range feed.Entries {
		check(fmt.Sprintf("entry %d", i), e)
		if len(feed.Authors) == 0 && len(e.Authors) == 0 {
			t.Errorf("entry %d: no author, and the feed has none", i)
		}
		if len(e.IDs) == 1 {
			ids = append(ids, e.IDs[0])
		}
	}
	return ids
}
