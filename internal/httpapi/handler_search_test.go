package httpapi

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestSearchGolden(t *testing.T) {
	h := fixtureHandler(t)
	runGolden(t, h, []goldenCase{
		{"search_word", "/dbs/search?q=goku", 200, nil},
		{"search_exact_first", "/dbs/search?q=Son+Goku", 200, nil},
		{"search_short_prefix", "/dbs/search?q=So&limit=2", 200, nil},
		{"search_card_number", "/dbs/search?q=FB01-001", 200, nil},
		{"search_accents", "/mtg/search?q=jotun", 200, nil},
		{"search_page_2", "/dbs/search?q=goku&page=2&limit=1", 200, nil},
		{"search_no_match", "/mtg/search?q=goku", 200, nil},
		{"search_missing_q", "/dbs/search", 400, nil},
		{"search_q_too_short", "/dbs/search?q=+a+", 400, nil},
		{"search_q_too_long", "/dbs/search?q=" + strings.Repeat("x", 101), 400, nil},
		{"search_q_only_quotes", "/dbs/search?q=%22%27", 400, nil},
		{"search_sql_rejected", "/dbs/search?q=" + url.QueryEscape("' or 1=1 --"), 400, nil},
	})
}

func TestSearchParameters(t *testing.T) {
	h := fixtureHandler(t)
	tests := []struct {
		q      string
		status int
		err    string
		names  []string
	}{
		{"goku", 200, "", []string{"Son Goku - FB03-001 (Alternate Art)", "Son Goku", "Son Goku (Championship Promo)"}},
		{"  goku  ", 200, "", []string{"Son Goku - FB03-001 (Alternate Art)", "Son Goku", "Son Goku (Championship Promo)"}},
		{"go", 200, "", []string{"Gogeta : GT"}}, // 2 characters: names that start with it, not Son Goku
		{"g", 400, "Query parameter required", nil},
		{"  g  ", 400, "Query parameter required", nil},
		{"", 400, "Query parameter required", nil},
		{"é", 400, "Query parameter required", nil},
		{"éé", 200, "", nil},
		{strings.Repeat("é", 100), 200, "", nil},
		{strings.Repeat("é", 101), 400, "Query parameter required", nil},
		{`""`, 400, "Query parameter required", nil},
		{"“”", 400, "Query parameter required", nil},
		{`"goku"`, 200, "", []string{"Son Goku - FB03-001 (Alternate Art)", "Son Goku", "Son Goku (Championship Promo)"}},
		{"son%", 200, "", nil},
		{"' or 1=1", 400, "Search query rejected", nil},
		{"goku; drop table cards", 400, "Search query rejected", nil},
		{"goku union select 1", 400, "Search query rejected", nil},
		{"goku--", 400, "Search query rejected", nil},
		{"goku /* x", 400, "Search query rejected", nil},
	}
	for _, tt := range tests {
		w := get(h, "/dbs/search?q="+url.QueryEscape(tt.q))
		var body struct {
			Error   string
			Results []struct {
				CardInfo struct{ Name string } `json:"card_info"`
			}
		}
		json.Unmarshal(w.Body.Bytes(), &body)
		var names []string
		for _, r := range body.Results {
			names = append(names, r.CardInfo.Name)
		}
		if w.Code != tt.status || body.Error != tt.err || !cmp.Equal(names, tt.names) {
			t.Errorf("q=%q: %d %q %q; want %d %q %q", tt.q, w.Code, body.Error, names, tt.status, tt.err, tt.names)
		}
	}
}

func TestSearchUnavailable(t *testing.T) {
	snap := mustView(t, mustFixture(t))
	t.Run("deadline", func(t *testing.T) {
		h := mustServer(t, Config{SearchTimeout: time.Nanosecond}, testDeps(snap))
		w := get(h, "/dbs/search?q=goku")
		if w.Code != 503 || w.Header().Get("Retry-After") != "1" {
			t.Fatalf("status %d, Retry-After %q", w.Code, w.Header().Get("Retry-After"))
		}
		checkGolden(t, "search_unavailable_deadline", w)
	})
	t.Run("concurrency", func(t *testing.T) {
		s, err := New(Config{SearchConcurrency: 1, SearchQueueWait: time.Millisecond, SearchRetryAfter: 3 * time.Second}, testDeps(snap))
		if err != nil {
			t.Fatal(err)
		}
		s.slots <- struct{}{} // a search is running
		w := get(s.Handler(), "/dbs/search?q=goku")
		if w.Code != 503 || w.Header().Get("Retry-After") != "3" {
			t.Fatalf("status %d, Retry-After %q", w.Code, w.Header().Get("Retry-After"))
		}
		checkGolden(t, "search_unavailable_busy", w)
		<-s.slots
		if w := get(s.Handler(), "/dbs/search?q=goku"); w.Code != 200 {
			t.Errorf("with a free slot: status %d", w.Code)
		}
	})
}
