package httpapi

import (
	"encoding/json"
	"testing"
)

func TestSetsGolden(t *testing.T) {
	h := fixtureHandler(t)
	runGolden(t, h, []goldenCase{
		{"sets_list_dbs", "/dbs/sets", 200, nil},
		{"sets_list_mtg", "/mtg/sets", 200, nil},
		{"sets_cards_by_set_id", "/dbs/sets/23401", 200, nil},
		{"sets_cards_by_set_code", "/dbs/sets/fb01", 200, nil},
		{"sets_cards_page_2", "/dbs/sets/23401?page=2&limit=3", 200, nil},
		{"sets_cards_page_past_end", "/dbs/sets/23401?page=9", 200, nil},
		{"sets_cards_limit_clamped", "/mtg/sets/BLB?limit=500", 200, nil},
		{"sets_cards_cardmarket_only_set", "/dbs/sets/-5001", 200, nil},
		{"sets_cards_future_set", "/dbs/sets/FB09", 200, nil},
		{"sets_cards_mtg", "/mtg/sets/23165", 200, nil},
		{"sets_disambiguation_dbs", "/dbs/sets/FB03_AR", 200, nil},
		{"sets_disambiguation_mtg", "/mtg/sets/who", 200, nil},
		{"sets_not_found_with_suggestions", "/dbs/sets/Awakened%20Pulse", 404, nil},
		{"sets_not_found_slug", "/mtg/sets/doctor-who", 404, nil},
		{"sets_not_found_no_suggestion", "/dbs/sets/XYZ", 404, nil},
		{"sets_not_found_id", "/dbs/sets/99999", 404, nil},
		{"sets_not_found_set_without_products", "/dbs/sets/2070", 404, nil},
		{"sets_other_game", "/mtg/sets/FB01", 404, nil},
		{"sets_invalid_page", "/dbs/sets/FB01?page=0", 400, nil},
		{"sets_invalid_limit", "/dbs/sets/FB01?limit=ten", 400, nil},
	})
}

func TestSetPaging(t *testing.T) {
	h := fixtureHandler(t)
	type pagination struct{ Page, Limit, Total, TotalPages int }
	tests := []struct {
		target string
		want   pagination
		cards  int
	}{
		{"/dbs/sets/23401", pagination{1, 50, 7, 1}, 7},
		{"/dbs/sets/23401?limit=2", pagination{1, 2, 7, 4}, 2},
		{"/dbs/sets/23401?limit=2&page=4", pagination{4, 2, 7, 4}, 1},
		{"/dbs/sets/23401?limit=2&page=5", pagination{5, 2, 7, 4}, 0},
		{"/dbs/sets/23401?limit=200", pagination{1, 200, 7, 1}, 7},
		{"/dbs/sets/23401?limit=201", pagination{1, 200, 7, 1}, 7},
		{"/dbs/sets/23401?limit=007", pagination{1, 7, 7, 1}, 7},
		{"/dbs/sets/23401?page=99999999999999999999999", pagination{9223372036854775807, 50, 7, 1}, 0},
	}
	for _, tt := range tests {
		w := get(h, tt.target)
		var body struct {
			Cards      []json.RawMessage
			Pagination struct {
				Page, Limit, Total int
				TotalPages         int `json:"total_pages"`
			}
		}
		if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil || w.Code != 200 {
			t.Fatalf("GET %s: %d %v", tt.target, w.Code, err)
		}
		got := pagination{body.Pagination.Page, body.Pagination.Limit, body.Pagination.Total, body.Pagination.TotalPages}
		if got != tt.want || len(body.Cards) != tt.cards {
			t.Errorf("GET %s: pagination %+v with %d cards, want %+v with %d", tt.target, got, len(body.Cards), tt.want, tt.cards)
		}
	}
}

// TestParameterErrors: page and limit are integers >= 1 on every paginated route.
func TestParameterErrors(t *testing.T) {
	h := fixtureHandler(t)
	for _, route := range []string{"/dbs/sets/FB01?", "/dbs/search?q=goku&"} {
		for _, tt := range []struct{ query, param string }{
			{"page=0", "page"}, {"page=-1", "page"}, {"page=abc", "page"}, {"page=1.5", "page"}, {"page=", "page"},
			{"page=+1", "page"}, {"page=1e3", "page"}, {"limit=0", "limit"}, {"limit=-5", "limit"}, {"limit=", "limit"},
			{"limit=x", "limit"}, {"page=1&limit=0", "limit"},
		} {
			w := get(h, route+tt.query)
			var body errorBody
			json.Unmarshal(w.Body.Bytes(), &body)
			if w.Code != 400 || body.Error != "Invalid parameter" || !contains(body.Message, "parameter "+tt.param+" ") {
				t.Errorf("GET %s%s: %d %+v, want 400 Invalid parameter naming %s", route, tt.query, w.Code, body, tt.param)
			}
		}
	}
}
