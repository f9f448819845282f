package httpapi

import (
	"net/http"
	"net/url"
	"path"
	"strings"
	"testing"
)

// FuzzSetRoute asks GET /{game}/sets/{set} with any set id or code, page and
// limit: never a 5xx, errors JSON; a page or limit that is not an integer of
// 1 or more is 400 "Invalid parameter", a good one is echoed in pagination
// (limit clamped to 200) and no page holds more cards than its limit; a set
// found is found by its key in upper or lower case (codes ignore case).
func FuzzSetRoute(f *testing.F) {
	for _, s := range []string{"23401", "FB01", "fb01", "fb03_ar", "FB03_AR", "-5001", "TP01", "awakened-pulse", "nope", "0",
		"-", "--1", "23401/statistics", "%00", "..", "1' OR 1=1--", "<script>", "\xff", strings.Repeat("9", 300)} {
		f.Add("dbs", s, "", "", false, false)
	}
	for _, pl := range [][2]string{{"1", "50"}, {"2", "1"}, {"0", "0"}, {"-1", "-1"}, {"", ""}, {"1e3", "0x10"}, {"+1", " 1"},
		{"99999999999999999999999", "99999999999999999999"}, {"9223372036854775807", "201"}, {"1.5", "NaN"}, {"１", "٣"}} {
		f.Add("dbs", "FB01", pl[0], pl[1], true, true)
	}
	f.Add("mtg", "BLB", "1", "1", true, false)
	h := fixtureHandler(f)
	f.Fuzz(func(t *testing.T, game, set, page, limit string, hasPage, hasLimit bool) {
		if game != "dbs" && game != "mtg" {
			game = "dbs"
		}
		if set == "" || set == "trending" {
			return // another route
		}
		q := url.Values{}
		if hasPage {
			q.Set("page", page)
		}
		if hasLimit {
			q.Set("limit", limit)
		}
		target := prefix(game) + "/sets/" + url.PathEscape(set) + "?" + q.Encode()
		r, ok := newRawRequest(http.MethodGet, target)
		if !ok || r.URL.Path != prefix(game)+"/sets/"+set || path.Clean(r.URL.Path) != r.URL.Path {
			return // not this route, or a path the mux cleans
		}
		r.Header.Set("X-API-Key", testKey)
		w, e := serveChecked(t, h, r)
		wantPage, pageOK := wantPositive(page, hasPage, 1)
		wantLimit, limitOK := wantPositive(limit, hasLimit, setPageDefault)
		if !pageOK || !limitOK {
			if w.Code != http.StatusBadRequest || e.Error == nil || *e.Error != errInvalidParameter {
				t.Fatalf("GET %s: %d %v, want 400 %q", target, w.Code, e.Error, errInvalidParameter)
			}
			return
		}
		if w.Code != http.StatusOK && w.Code != http.StatusNotFound {
			t.Fatalf("GET %s: %d, want 200 or 404", target, w.Code)
		}
		if w.Code != http.StatusOK || strings.HasPrefix(w.Body.String(), `{"disambiguation"`) {
			return
		}
		var pg struct{ Page, Limit int }
		jsonField(t, w.Body, "pagination", &pg)
		var cards []any
		jsonField(t, w.Body, "cards", &cards)
		if pg.Page != wantPage || pg.Limit != min(wantLimit, setPageMax) || len(cards) > pg.Limit {
			t.Fatalf("GET %s: pagination %+v with %d cards, want page %d limit %d", target, pg, len(cards), wantPage, min(wantLimit, setPageMax))
		}
		for _, other := range []string{strings.ToLower(set), strings.ToUpper(set)} {
			r2, ok := newRawRequest(http.MethodGet, prefix(game)+"/sets/"+url.PathEscape(other))
			if !ok || r2.URL.Path != prefix(game)+"/sets/"+other || other == "trending" {
				continue
			}
			r2.Header.Set("X-API-Key", testKey)
			if w2, _ := serveChecked(t, h, r2); w2.Code != http.StatusOK {
				t.Fatalf("GET %s is 200, but the set %q is %d", target, other, w2.Code)
			}
		}
	})
}

// wantPositive is the spec's rule for page and limit: absent is the
// default; otherwise decimal digits only, at least 1; a value too large to
// count is the largest int.
func wantPositive(v string, present bool, def int) (int, bool) {
	if !present {
		return def, true
	}
	if v == "" || strings.Trim(v, "0123456789") != "" || strings.Trim(v, "0") == "" {
		return 0, false
	}
	n := 0
	for i := 0; i < len(v); i++ {
		d := int(v[i] - '0')
		if n > (int(^uint(0)>>1)-d)/10 {
			return int(^uint(0) >> 1), true
		}
		n = n*10 + d
	}
	return n, true
}
