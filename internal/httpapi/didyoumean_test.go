package httpapi

import (
	"encoding/json"
	"testing"

	"github.com/cardcat/cardcat/internal/catalog"
)

func TestEndpointNotFoundGolden(t *testing.T) {
	h := fixtureHandler(t)
	runGolden(t, h, []goldenCase{
		{"errors_not_found_misspelled_game", "/dsb/sets", 404, nil},
		{"errors_not_found_singular", "/dbs/set/FB01?page=2", 404, nil},
		{"errors_not_found_base_api_path", "/card/" + catalog.TCGCardID("mtg", 541300), 404, nil},
		{"errors_not_found_repeated_slashes", "/dbs//sets", 404, nil},
		{"errors_not_found_unknown", "/v2/whatever", 404, []string{"X-API-Key", ""}},
	})
}

func TestDidYouMean(t *testing.T) {
	h := fixtureHandler(t)
	mtgCM := catalog.CMCardID("mtg", 1, 780002)
	tests := []struct{ path, want string }{
		{"/dsb/sets", "/dbs/sets"},
		{"/mgt/sets", "/mtg/sets"},
		{"/db/sets", "/dbs/sets"},
		{"/DBS/sets", "/dbs/sets"},
		{"/dbs/set", "/dbs/sets"},
		{"/dbs/set/FB01", "/dbs/sets/FB01"},
		{"/dbs/card/dbs_0123456789abcdef", "/dbs/cards/dbs_0123456789abcdef"},
		{"/dbs/crads/x", "/dbs/cards/x"},
		{"/dbs/serch?q=goku", "/dbs/search?q=goku"},
		{"/dbs/searches?q=goku", "/dbs/search?q=goku"},
		{"/dbs", "/dbs/sets"},
		// The base game (Pokémon) is served without a prefix: a game path
		// without a game is the base game's; its code as a prefix is dropped.
		{"/set/FB01", "/sets/FB01"},
		{"/pkm/sets", "/sets"},
		{"/pkm/cards/x", "/cards/x"},
		{"/pk/set", "/sets"},
		{"/opp/sets", "/op/sets"},
		{"/card/mtg_0123456789abcdef", "/mtg/cards/mtg_0123456789abcdef"},
		{"/card/" + mtgCM, "/mtg/cards/" + mtgCM},
		{"/dbs//sets", "/dbs/sets"},
		{"//dbs/sets", "/dbs/sets"},
		{"/dbs/sets//", "/dbs/sets"},
		{"/dbs/./sets", "/dbs/sets"},
		{"/dbs/cards/x/prices", "/dbs/cards/x"},
		{"/dbs/price/FB01?source=cm", "/dbs/prices/FB01?source=cm"},
		{"/mgt/prices/BLB", "/mtg/prices/BLB"},
		{"/dbs/set/FB01/statistics", "/dbs/sets/FB01/statistics"},
		{"/dbs/analytic/top-cards", "/dbs/analytics/top-cards"},
		{"/dbs/analytics/top-cards/10", "/dbs/analytics/top-cards"},
		{"/dbs/sets/FB01/statistics/foil", "/dbs/sets/FB01/statistics"},
		{"/gmaes", "/games"},
		{"/helth", "/health"},
		{"/doc", "/docs"},
		{"/openapi.jsn", "/openapi.json"},
		{"/llm.txt", "/llms.txt"},
		// Escaped as it was sent: a client following it asks for the same card.
		{"/dbs/card/a%3Fb", "/dbs/cards/a%3Fb"},
		{"/dbs/card/x%20y", "/dbs/cards/x%20y"},
		{"/dbs/card/%2541", "/dbs/cards/%2541"},
		{"/mtg/sets/t%23000/0", "/mtg/sets/t%23000"},
		{"/dbs/card?ids=x,y", "/dbs/cards?ids=x,y"},
		{"/dbs/card/tcgplayer/535600", "/dbs/cards/tcgplayer/535600"},
		{"/dbs/cards/tcgplayer/535600/prices", "/dbs/cards/tcgplayer/535600"},
		{"/dbs/analytics", ""},
		{"/pokemon/sets", ""},
		{"/v2/whatever", ""},
		{"/dbs/xyzzy", ""},
	}
	for _, tt := range tests {
		w := get(h, tt.path)
		var body struct {
			Error      string
			DidYouMean *string `json:"did_you_mean"`
			Docs       string
		}
		if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
			t.Fatal(err)
		}
		got := ""
		if body.DidYouMean != nil {
			got = *body.DidYouMean
		}
		if w.Code != 404 || body.Error != "Endpoint not found" || got != tt.want || body.Docs != "https://api.cardcat.test/docs" {
			t.Errorf("GET %s: %d %q did_you_mean %q docs %q; want 404 %q", tt.path, w.Code, body.Error, got, body.Docs, tt.want)
		}
		if !contains(w.Body.String(), `"did_you_mean":`) {
			t.Errorf("GET %s: did_you_mean missing: %s", tt.path, w.Body)
		}
	}
}
