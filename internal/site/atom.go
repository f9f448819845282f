package site

import (
	"bytes"
	"encoding/xml"
	"time"
)

// AtomType is the media type of an Atom feed (RFC 4287).
const AtomType = "application/atom+xml; charset=utf-8"

// Feed is an Atom feed (RFC 4287) as cardcat writes them: the changelog's
// (/docs/changelog.atom) and the incidents' (/status/incidents.atom). Its
// author stands for every entry's.
type Feed struct {
	XMLName xml.Name `xml:"http://www.w3.org/2005/Atom feed"`
	ID      string   `xml:"id"`
	Title   string   `xml:"title"`
	Updated AtomTime `xml:"updated"`
	Author  Person   `xml:"author"`
	Links   []Link   `xml:"link"`
	Entries []Entry  `xml:"entry"`
}

// Entry is one entry of a Feed.
type Entry struct {
	ID        string    `xml:"id"`
	Title     string    `xml:"title"`
	Updated   AtomTime  `xml:"updated"`
	Published *AtomTime `xml:"published,omitempty"`
	Links     []Link    `xml:"link"`
	Content   Content   `xml:"content"`
}

// Person is a feed's author.
type Person struct {
	Name string `xml:"name"`
	URI  string `xml:"uri,omitempty"`
}

// Link is an Atom link: rel self (the feed's own URL) or alternate (the
// page it stands for).
type Link struct {
	Rel  string `xml:"rel,attr,omitempty"`
	Type string `xml:"type,attr,omitempty"`
	Href string `xml:"href,attr"`
}

// Content is an entry's content: Type "text", or "html" (escaped HTML).
type Content struct {
	Type string `xml:"type,attr"`
	Body string `xml:",chardata"`
}

// AtomTime is a time written as RFC 3339, UTC (an Atom Date construct).
type AtomTime time.Time

// MarshalText writes the time as RFC 3339 in UTC.
func (t AtomTime) MarshalText() ([]byte, error) {
	return []byte(time.Time(t).UTC().Format(time.RFC3339)), nil
}

// UnmarshalText reads an RFC 3339 time.
func (t *AtomTime) UnmarshalText(b []byte) error {
	v, err := time.Parse(time.RFC3339, string(b))
	*t = AtomTime(v)
	return err
}

// Marshal is the feed's document: the XML declaration, then the feed.
func (f *Feed) Marshal() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(xml.Header)
	enc := xml.NewEncoder(&b)
	enc.Indent("", " ")
	if err := enc.Encode(f); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}
