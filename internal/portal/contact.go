package portal

import (
	"fmt"
	netmail "net/mail"
	"net/url"
	"strings"
	"unicode"
)

// Contact is how visitors reach the operator of the server, shown as a link
// wherever the portal tells them to (Business, and every paid plan when no
// payment provider is configured): an email address or a web page (a
// contact form, a support site).
type Contact struct {
	Href string // "mailto:ops@example.com", or the page's http(s) URL
	Text string // the address, or the URL, as the link's text
}

// ParseContact reads the operator's contact setting: an email address
// ("ops@example.com", or "mailto:ops@example.com") or an http or https URL.
// "" is no contact (nil).
func ParseContact(s string) (*Contact, error) {
	if s == "" {
		return nil, nil
	}
	if strings.ContainsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) {
		return nil, fmt.Errorf("%q holds a space or a control character; want an email address or an http(s) URL", s)
	}
	if addr, ok := strings.CutPrefix(s, "mailto:"); ok || !strings.Contains(s, "://") {
		a, err := netmail.ParseAddress(addr)
		if err != nil || a.Address != addr || strings.ContainsAny(addr, "?&#/") {
			return nil, fmt.Errorf("%q is neither an email address nor an http(s) URL", s)
		}
		return &Contact{Href: "mailto:" + addr, Text: addr}, nil
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return nil, fmt.Errorf("%q is neither an email address nor an http(s) URL", s)
	}
	return &Contact{Href: u.String(), Text: s}, nil
}

// About is the link for a message about subject ("Business plan"): an
// email's subject line is filled in; a web page's link is as it is.
func (c *Contact) About(subject string) string {
	if !strings.HasPrefix(c.Href, "mailto:") {
		return c.Href
	}
	return c.Href + "?subject=" + strings.ReplaceAll(url.QueryEscape(subject), "+", "%20")
}
