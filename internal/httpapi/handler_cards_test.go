package httpapi

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cardcat/cardcat/internal/catalog"
)

func TestCardsGolden(t *testing.T) {
	h := fixtureHandler(t)
	goku := catalog.TCGCardID("dbs", 535600)
	runGolden(t, h, []goldenCase{
		{"cards_linked_card", "/dbs/cards/" + goku, 200, nil},
		{"cards_linked_card_by_cardmarket_id", "/dbs/cards/" + catalog.CMCardID("dbs", 13, 700001), 200, nil},
		{"cards_upper_case_hex", "/dbs/cards/dbs_" + strings.ToUpper(goku[4:]), 200, nil},
		{"cards_cardmarket_only", "/dbs/cards/" + catalog.CMCardID("dbs", 13, 700050), 200, nil},
		{"cards_one_sided_finish", "/dbs/cards/" + catalog.TCGCardID("dbs", 535610), 200, nil},
		{"cards_unpriced", "/dbs/cards/" + catalog.TCGCardID("dbs", 535620), 200, nil},
		{"cards_code_card", "/dbs/cards/" + catalog.TCGCardID("dbs", 541181), 200, nil},
		{"cards_sealed", "/mtg/cards/" + catalog.TCGCardID("mtg", 541235), 200, nil},
		{"cards_mtg_game_fields", "/mtg/cards/" + catalog.TCGCardID("mtg", 541300), 200, nil},
		{"cards_priced_on_cardmarket_only", "/mtg/cards/" + catalog.TCGCardID("mtg", 496010), 200, nil},
		{"cards_other_game_id", "/dbs/cards/" + catalog.TCGCardID("mtg", 541300), 400, nil},
		{"cards_other_game_cardmarket_id", "/dbs/cards/" + catalog.CMCardID("mtg", 1, 780002), 400, nil},
		{"cards_malformed_id", "/dbs/cards/12345", 400, nil},
		{"cards_not_found", "/dbs/cards/dbs_0000000000000000", 404, nil},
		{"cards_cardmarket_id_not_found", "/dbs/cards/" + strings.Repeat("ab", 32), 404, nil},
	})
}

func TestCardIDForms(t *testing.T) {
	h := fixtureHandler(t)
	goku := catalog.TCGCardID("dbs", 535600)
	gokuCM := catalog.CMCardID("dbs", 13, 700001)
	tests := []struct {
		name, path string
		status     int
		id         string // the answer's id, or its error
		didYouMean string
	}{
		{"canonical", "/dbs/cards/" + goku, 200, goku, ""},
		{"Cardmarket id of a linked card answers the canonical id", "/dbs/cards/" + gokuCM, 200, goku, ""},
		{"Cardmarket id in upper case", "/dbs/cards/" + strings.ToUpper(gokuCM), 200, goku, ""},
		{"trailing slash", "/dbs/cards/" + goku + "/", 200, goku, ""},
		{"other game's prefixed id", "/mtg/cards/" + goku, 400, "Invalid or corrupted card ID", "/dbs/cards/" + goku},
		{"other game's Cardmarket id", "/mtg/cards/" + gokuCM, 400, "Invalid or corrupted card ID", "/dbs/cards/" + gokuCM},
		{"prefix without hex", "/dbs/cards/dbs_", 400, "Invalid or corrupted card ID", ""},
		{"prefix with short hex", "/dbs/cards/dbs_abc123", 400, "Invalid or corrupted card ID", ""},
		{"prefix with non-hex", "/dbs/cards/dbs_zzzzzzzzzzzzzzzz", 400, "Invalid or corrupted card ID", ""},
		{"other game's malformed id", "/dbs/cards/mtg_123", 400, "Invalid or corrupted card ID", ""},
		{"63 hex", "/dbs/cards/" + gokuCM[:63], 400, "Invalid or corrupted card ID", ""},
		{"65 hex", "/dbs/cards/" + gokuCM + "0", 400, "Invalid or corrupted card ID", ""},
		{"TCGplayer product id", "/dbs/cards/535600", 400, "Invalid or corrupted card ID", ""},
		{"unknown game prefix", "/dbs/cards/pk_0123456789abcdef", 400, "Invalid or corrupted card ID", ""},
		// The base game's ids point at its unprefixed route, and back.
		{"base game's id under a prefix", "/dbs/cards/pkm_0123456789abcdef", 400, "Invalid or corrupted card ID", "/cards/pkm_0123456789abcdef"},
		{"prefixed game's id at the base route", "/cards/" + goku, 400, "Invalid or corrupted card ID", "/dbs/cards/" + goku},
		{"One Piece id at the base route", "/cards/op_0123456789abcdef", 400, "Invalid or corrupted card ID", "/op/cards/op_0123456789abcdef"},
		{"escaped slash", "/dbs/cards/dbs%2F0123456789abcdef", 400, "Invalid or corrupted card ID", ""},
		{"well-formed, unknown", "/dbs/cards/dbs_ffffffffffffffff", 404, "Card not found", ""},
		{"64 hex, unknown", "/dbs/cards/" + strings.Repeat("0", 64), 404, "Card not found", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := get(h, tt.path)
			var body struct {
				ID, Error  string
				DidYouMean string `json:"did_you_mean"`
			}
			if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
				t.Fatal(err)
			}
			got := body.ID
			if w.Code != 200 {
				got = body.Error
			}
			if w.Code != tt.status || got != tt.id || body.DidYouMean != tt.didYouMean {
				t.Errorf("GET %s = %d %q did_you_mean %q; want %d %q %q", tt.path, w.Code, got, body.DidYouMean, tt.status, tt.id, tt.didYouMean)
			}
		})
	}
}
