package apiref

import (
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// MinDeprecationMonths is the shortest notice of a deprecation: a route
// answers as documented at least this many months after it is announced
// (docs/api.md, "Deprecation policy").
const MinDeprecationMonths = 6

// Deprecation is a route's deprecation: announced in the changelog's
// section of the day At (docs/changelog.md, "## YYYY-MM-DD", which names
// the route, what replaces it and Sunset), gone after Sunset.
type Deprecation struct {
	At     time.Time // a whole UTC day: its changelog section's
	Sunset time.Time // at least MinDeprecationMonths after At
}

// Deprecation is the route's deprecation, nil when it has none.
func (rt *Route) Deprecation() *Deprecation { return DeprecationOf(rt.Path) }

// DeprecationOf is the deprecation of the route of path, nil when none.
func DeprecationOf(path string) *Deprecation {
	d, ok := Deprecated[path]
	if !ok {
		return nil
	}
	return &d
}

// SetHeaders sets the headers of an answer of a deprecated route:
// Deprecation (RFC 9745: @ and the Unix time it was deprecated), Sunset
// (RFC 8594: an HTTP date) and a Link rel="deprecation" to the changelog's
// announcement, under publicURL (no trailing slash).
func (d *Deprecation) SetHeaders(h http.Header, publicURL string) {
	h.Set("Deprecation", "@"+strconv.FormatInt(d.At.Unix(), 10))
	h.Set("Sunset", d.Sunset.UTC().Format(http.TimeFormat))
	h.Add("Link", "<"+publicURL+"/docs/changelog#"+d.At.UTC().Format(time.DateOnly)+`>; rel="deprecation"; type="text/html"`)
}

// WithDeprecation is next, whose every answer carries d's headers; next
// itself when d is nil.
func WithDeprecation(d *Deprecation, publicURL string, next http.Handler) http.Handler {
	if d == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d.SetHeaders(w.Header(), publicURL)
		next.ServeHTTP(w, r)
	})
}

var changelogDay = regexp.MustCompile(`(?m)^## (\d{4}-\d{2}-\d{2})\s*$`)

// CheckDeprecations is the first way in which the deprecated routes of
// routes break the policy: a Sunset less than MinDeprecationMonths after
// At, an At that is not a whole UTC day, or no section of the changelog
// (docs/changelog.md's Markdown) for At's day that names the route's path
// (as GET / lists it, or its template) and the sunset's day.
func CheckDeprecations(routes []Route, changelog []byte) error {
	sections := map[string]string{}
	locs := changelogDay.FindAllSubmatchIndex(changelog, -1)
	for i, loc := range locs {
		end := len(changelog)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		sections[string(changelog[loc[2]:loc[3]])] = string(changelog[loc[1]:end])
	}
	for i := range routes {
		rt := &routes[i]
		d := rt.Deprecation()
		if d == nil {
			continue
		}
		day := d.At.UTC().Format(time.DateOnly)
		switch {
		case !d.At.Equal(d.At.UTC().Truncate(24 * time.Hour)):
			return fmt.Errorf("%s: deprecated at %v, not a whole UTC day (its changelog section's)", rt.Path, d.At)
		case d.Sunset.Before(d.At.AddDate(0, MinDeprecationMonths, 0)):
			return fmt.Errorf("%s: sunset %s is less than %d months after its deprecation (%s)", rt.Path,
				d.Sunset.UTC().Format(time.DateOnly), MinDeprecationMonths, day)
		}
		text, ok := sections[day]
		switch {
		case !ok:
			return fmt.Errorf("%s: deprecated on %s, but docs/changelog.md has no section ## %s announcing it", rt.Path, day, day)
		case !strings.Contains(text, rt.Path) && !strings.Contains(text, rt.ListedPath()):
			return fmt.Errorf("%s: the changelog's section %s does not name it", rt.Path, day)
		case !strings.Contains(text, d.Sunset.UTC().Format(time.DateOnly)):
			return fmt.Errorf("%s: the changelog's section %s does not give its sunset, %s", rt.Path, day, d.Sunset.UTC().Format(time.DateOnly))
		}
	}
	return nil
}
