package httpapi

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cardcat/cardcat/internal/catalog"
)

func TestCardByProductGolden(t *testing.T) {
	h := fixtureHandler(t)
	runGolden(t, h, []goldenCase{
		{"marketplace_tcgplayer_linked", "/dbs/cards/tcgplayer/535600", 200, nil},
		{"marketplace_cardmarket_linked", "/dbs/cards/cardmarket/700001", 200, nil},
		{"marketplace_cardmarket_only", "/dbs/cards/cardmarket/700050", 200, nil},
		{"marketplace_tcgplayer_only_sealed", "/mtg/cards/tcgplayer/541235", 200, nil},
		{"marketplace_not_found", "/dbs/cards/tcgplayer/1", 404, nil},
		{"marketplace_other_game", "/dbs/cards/cardmarket/780002", 404, nil},
		{"marketplace_invalid_number", "/dbs/cards/tcgplayer/0535600", 400, nil},
		{"marketplace_number_missing", "/dbs/cards/tcgplayer", 400, nil},
	})
}

// TestCardByProductSameBody: every product of the fixture answers exactly
// its card's detail, under its own game.
func TestCardByProductSameBody(t *testing.T) {
	c := mustFixture(t)
	h := fixtureHandler(t)
	n := 0
	for _, gc := range c.Games {
		for _, card := range gc.Cards {
			want := get(h, prefix(gc.Game)+"/cards/"+card.ID)
			if want.Code != http.StatusOK {
				t.Fatalf("%s card %s: %d", gc.Game, card.ID, want.Code)
			}
			for _, p := range []struct {
				segment string
				number  int
			}{{"tcgplayer", card.TCGProductID}, {"cardmarket", card.CMProductID}} {
				if p.number == 0 {
					continue
				}
				n++
				path := prefix(gc.Game) + "/cards/" + p.segment + "/" + strconv.Itoa(p.number)
				got := get(h, path)
				if got.Code != http.StatusOK || got.Body.String() != want.Body.String() ||
					got.Header().Get("Content-Type") != want.Header().Get("Content-Type") {
					t.Errorf("GET %s = %d %.80s; want the body of /cards/%s", path, got.Code, got.Body, card.ID)
				}
			}
		}
	}
	if n < 25 {
		t.Fatalf("only %d products checked", n)
	}
}

// TestCardByProductNumbers: only [1-9][0-9]* within int64 is a product
// number; anything else is 400 naming the parameter, never another number's
// card.
func TestCardByProductNumbers(t *testing.T) {
	h := fixtureHandler(t)
	goku := catalog.TCGCardID("dbs", 535600)
	tests := []struct {
		name, path string
		status     int
		want       string // the answer's id, or its error
		didYouMean string
	}{
		{"TCGplayer product", "/dbs/cards/tcgplayer/535600", 200, goku, ""},
		{"Cardmarket product of a linked card: the canonical id", "/dbs/cards/cardmarket/700001", 200, goku, ""},
		{"Cardmarket-only card", "/dbs/cards/cardmarket/700050", 200, catalog.CMCardID("dbs", 13, 700050), ""},
		{"Cardmarket-only set", "/dbs/cards/cardmarket/800001", 200, catalog.CMCardID("dbs", 13, 800001), ""},
		{"set of a shared code", "/dbs/cards/tcgplayer/629023", 200, catalog.TCGCardID("dbs", 629023), ""},
		{"second TCGplayer category of the game", "/dbs/cards/tcgplayer/535546", 200, catalog.TCGCardID("dbs", 535546), ""},
		{"code card", "/dbs/cards/tcgplayer/541181", 200, catalog.TCGCardID("dbs", 541181), ""},
		{"mtg, punctuated name", "/mtg/cards/tcgplayer/541330", 200, catalog.TCGCardID("mtg", 541330), ""},
		{"mtg, Cardmarket-only", "/mtg/cards/cardmarket/780900", 200, catalog.CMCardID("mtg", 1, 780900), ""},
		{"trailing slash", "/dbs/cards/tcgplayer/535600/", 200, goku, ""},
		{"escaped digits", "/dbs/cards/tcgplayer/%35%33%35%36%30%30", 200, goku, ""},
		{"TCGplayer-only card by Cardmarket", "/dbs/cards/cardmarket/535602", 404, "Card not found", ""},
		{"Cardmarket number asked of TCGplayer", "/dbs/cards/tcgplayer/700001", 404, "Card not found", ""},
		{"largest int64", "/dbs/cards/tcgplayer/9223372036854775807", 404, "Card not found", ""},
		{"other game's TCGplayer product", "/dbs/cards/tcgplayer/541300", 404, "Card not found", "/mtg/cards/tcgplayer/541300"},
		{"other game's Cardmarket product", "/mtg/cards/cardmarket/700050", 404, "Card not found", "/dbs/cards/cardmarket/700050"},
		{"zero", "/dbs/cards/tcgplayer/0", 400, "Invalid parameter", ""},
		{"negative", "/dbs/cards/tcgplayer/-535600", 400, "Invalid parameter", ""},
		{"plus sign", "/dbs/cards/tcgplayer/+535600", 400, "Invalid parameter", ""},
		{"leading zero", "/dbs/cards/cardmarket/0700001", 400, "Invalid parameter", ""},
		{"decimal", "/dbs/cards/tcgplayer/535600.0", 400, "Invalid parameter", ""},
		{"exponent", "/dbs/cards/tcgplayer/5356e2", 400, "Invalid parameter", ""},
		{"hex", "/dbs/cards/tcgplayer/0x82c30", 400, "Invalid parameter", ""},
		{"space", "/dbs/cards/tcgplayer/%20535600", 400, "Invalid parameter", ""},
		{"full-width digits", "/dbs/cards/tcgplayer/%EF%BC%95", 400, "Invalid parameter", ""},
		{"past int64", "/dbs/cards/tcgplayer/9223372036854775808", 400, "Invalid parameter", ""},
		{"twenty digits", "/dbs/cards/cardmarket/99999999999999999999", 400, "Invalid parameter", ""},
		{"a card id", "/dbs/cards/tcgplayer/" + goku, 400, "Invalid parameter", ""},
		{"number missing", "/dbs/cards/tcgplayer", 400, "Invalid or corrupted card ID", ""},
		{"number missing, Cardmarket, trailing slash", "/dbs/cards/cardmarket/", 400, "Invalid or corrupted card ID", ""},
		{"a segment after the number", "/dbs/cards/tcgplayer/535600/prices", 404, "Endpoint not found", "/dbs/cards/tcgplayer/535600"},
		// As for /dbs/cards/x/prices: the longest prefix a route serves.
		{"unknown marketplace", "/dbs/cards/ebay/535600", 404, "Endpoint not found", "/dbs/cards/ebay"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := get(h, tt.path)
			var body struct {
				ID, Error, Message string
				DidYouMean         any `json:"did_you_mean"`
			}
			if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
				t.Fatal(err)
			}
			got := body.ID
			if w.Code != http.StatusOK {
				got = body.Error
			}
			dym, _ := body.DidYouMean.(string)
			if w.Code != tt.status || got != tt.want || dym != tt.didYouMean {
				t.Errorf("GET %s = %d %q did_you_mean %q; want %d %q %q (%s)", tt.path, w.Code, got, dym, tt.status, tt.want, tt.didYouMean, body.Message)
			}
		})
	}
}

// TestRealProducts: on the sample and the real files of ../shared/data,
// every product finds its card's detail body by its number, and every card
// is answered by a batch lookup of its ids, a hundred at a time.
func TestRealProducts(t *testing.T) {
	for _, dir := range []string{sampleDir, sharedDir} {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			c := mustMirror(t, dir)
			h := mustServer(t, Config{}, testDeps(mustView(t, c)))
			n := 0
			for _, gc := range c.Games {
				var ids []string
				batch := func() {
					w := get(h, prefix(gc.Game)+"/cards?ids="+strings.Join(ids, ","))
					var body struct {
						Data     []struct{ ID string }
						NotFound []string `json:"not_found"`
					}
					json.Unmarshal(w.Body.Bytes(), &body)
					if w.Code != http.StatusOK || len(body.Data) != len(ids) || len(body.NotFound) != 0 {
						t.Errorf("%s: a batch of %d ids: %d, %d cards, not found %v", gc.Game, len(ids), w.Code, len(body.Data), body.NotFound)
					}
					ids = ids[:0]
				}
				for _, card := range gc.Cards {
					detail := get(h, prefix(gc.Game)+"/cards/"+card.ID).Body.String()
					for _, p := range []struct {
						segment string
						number  int
					}{{"tcgplayer", card.TCGProductID}, {"cardmarket", card.CMProductID}} {
						if p.number == 0 {
							continue
						}
						n++
						if w := get(h, prefix(gc.Game)+"/cards/"+p.segment+"/"+strconv.Itoa(p.number)); w.Code != http.StatusOK || w.Body.String() != detail {
							t.Errorf("%s: %s product %d: %d, not the body of card %s", gc.Game, p.segment, p.number, w.Code, card.ID)
						}
					}
					if ids = append(ids, card.ID); len(ids) == batchMax {
						batch()
					}
				}
				if len(ids) > 0 {
					batch()
				}
			}
			t.Logf("%d real products checked", n)
		})
	}
}
