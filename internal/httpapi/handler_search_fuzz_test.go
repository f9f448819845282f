package httpapi

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzSearch asks GET /{game}/search with any q, page and limit: never a
// 5xx (a refused search is 400 with one of the search errors or "Invalid
// parameter"), errors JSON; a 200 echoes q trimmed (valid JSON even for
// invalid UTF-8), holds at most limit results, and says a total at least
// as large as what it lists.
func FuzzSearch(f *testing.F) {
	for _, q := range []string{"goku", "Son Goku", "FB01-001", "bolt", "lightning bolt", "g", "  go  ", `""`, `"goku"`,
		"' OR 1=1 --", "1; DROP TABLE cards", "union select * from keys", "<script>alert(1)</script>", "%", "_", "*",
		"\x00\x00", "\xff\xfe", "ｇｏｋｕ", "Gokû", strings.Repeat("a", 100), strings.Repeat("a", 101), strings.Repeat("é", 100),
		"dbs_", "\t\n", "../../", "${jndi:ldap://x}", "{{7*7}}"} {
		f.Add("dbs", q, true, "", "")
	}
	f.Add("mtg", "", false, "", "")
	f.Add("dbs", "goku", true, "0", "1")
	f.Add("dbs", "goku", true, "2", "1000")
	f.Add("dbs", "goku", true, "99999999999999999999", "")
	h := fixtureHandler(f)
	f.Fuzz(func(t *testing.T, game, q string, hasQ bool, page, limit string) {
		if game != "dbs" && game != "mtg" {
			game = "dbs"
		}
		v := url.Values{}
		if hasQ {
			v.Set("q", q)
		}
		if page != "" {
			v.Set("page", page)
		}
		if limit != "" {
			v.Set("limit", limit)
		}
		target := prefix(game) + "/search?" + v.Encode()
		r, ok := newRawRequest(http.MethodGet, target)
		if !ok {
			return
		}
		r.Header.Set("X-API-Key", testKey)
		w, e := serveChecked(t, h, r)
		switch w.Code {
		case http.StatusOK:
		case http.StatusBadRequest:
			switch *e.Error {
			case errQueryRequired, errQueryRejected, errInvalidParameter:
			default:
				t.Fatalf("GET %s: 400 %q", target, *e.Error)
			}
			return
		default:
			t.Fatalf("GET %s: %d, want 200 or 400", target, w.Code)
		}
		if n := utf8.RuneCountInString(strings.TrimSpace(q)); !hasQ || n < 2 || n > 100 {
			t.Fatalf("GET %s: 200 for a q of %d characters", target, n)
		}
		var echoed string
		jsonField(t, w.Body, "query", &echoed)
		if want := strings.ToValidUTF8(strings.TrimSpace(q), "\uFFFD"); echoed != want && utf8.ValidString(q) {
			t.Fatalf("GET %s: query %q, want %q", target, echoed, want)
		}
		var results []any
		jsonField(t, w.Body, "results", &results)
		var pg struct{ Limit, Total int }
		jsonField(t, w.Body, "pagination", &pg)
		if len(results) > pg.Limit || pg.Limit > searchPageMax || pg.Total < len(results) {
			t.Fatalf("GET %s: %d results, pagination %+v", target, len(results), pg)
		}
	})
}
