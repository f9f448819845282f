package httpapi

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/cardcat/cardcat/internal/analytics"
)

// paidParsers are the paid routes with a query and the parser each uses.
var paidParsers = []struct {
	path  string
	parse func(url.Values) error
}{
	{"/dbs/prices/23401", func(q url.Values) error { _, err := analytics.ParsePricesBySet(q); return err }},
	{"/dbs/sets/23401/statistics", func(q url.Values) error { _, err := analytics.ParseStatistics(q); return err }},
	{"/mtg/sets/trending", func(q url.Values) error { _, err := analytics.ParseTrending(q); return err }},
	{"/mtg/analytics/top-cards", func(q url.Values) error { _, _, _, err := analytics.ParseTopCards(q); return err }},
	{"/dbs/sets/23401/completion-value", func(url.Values) error { return nil }},
}

// FuzzPaidParameters sends any raw query to each paid route with an Ultra
// key: never a 5xx, errors JSON; the answer is 200 exactly when the
// route's analytics parser accepts the query the server decoded, and 400
// "Invalid parameter" when it refuses it.
func FuzzPaidParameters(f *testing.F) {
	for _, q := range []string{"", "source=tcg", "source=CM", "source=both", "source=", "source=ebay", "source=tcg&source=cm",
		"variant=foil", "variant=FOIL", "variant=holo", "period=7d", "period=30d", "limit=0", "limit=-1", "limit=1",
		"limit=51", "limit=101", "limit=99999999999999999999999", "limit=1e2", "limit=", "limit", "metric=growth",
		"metric=growth&source=tcg", "metric=price&source=cm&limit=5", "metric=%00", "source=%ff", "limit=%20", "a=1;b=2",
		"limit=1&limit=x", "source=tcg'%20OR%201=1--", "variant=<script>", "%zz", "&&&=&"} {
		for i := range paidParsers {
			f.Add(uint8(i), q)
		}
	}
	h := mustServer(f, Config{}, paidDeps(mustView(f, mustFixture(f))))
	f.Fuzz(func(t *testing.T, route uint8, rawQuery string) {
		p := paidParsers[int(route)%len(paidParsers)]
		target := p.path + "?" + rawQuery
		r, ok := newRawRequest(http.MethodGet, target)
		if !ok || r.URL.Path != p.path {
			return
		}
		r.Header.Set("X-API-Key", keyUltra)
		w, _ := serveChecked(t, h, r)
		err := p.parse(r.URL.Query())
		switch {
		case err == nil && w.Code != http.StatusOK:
			t.Fatalf("GET %s: %d %s, but the parser accepts the query", target, w.Code, w.Body)
		case err != nil && (w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), `"error":"`+errInvalidParameter+`"`)):
			t.Fatalf("GET %s: %d %s, want 400 %q: %v", target, w.Code, w.Body, errInvalidParameter, err)
		}
	})
}
