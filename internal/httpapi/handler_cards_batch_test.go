package httpapi

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cardcat/cardcat/internal/catalog"
)

// Fixture cards of the batch tests: a linked card, a Cardmarket-only one,
// a card of a set whose code another set shares, one on TCGplayer only.
var (
	batchGoku   = catalog.TCGCardID("dbs", 535600)
	batchGokuCM = catalog.CMCardID("dbs", 13, 700001)
	batchPromo  = catalog.CMCardID("dbs", 13, 700050)
	batchVegeta = catalog.TCGCardID("dbs", 629023)
	batchFrieza = catalog.TCGCardID("dbs", 535620)
	batchMTG    = catalog.TCGCardID("mtg", 541300)
)

func batchPath(ids ...string) string {
	return "/dbs/cards?ids=" + url.QueryEscape(strings.Join(ids, ","))
}

func TestCardsBatchGolden(t *testing.T) {
	h := fixtureHandler(t)
	many := make([]string, batchMax+1)
	for i := range many {
		many[i] = batchGoku
	}
	runGolden(t, h, []goldenCase{
		{"batch_cards", batchPath(batchVegeta, batchGokuCM, "dbs_0000000000000000", batchPromo, batchGoku, batchMTG, "nope"), 200, nil},
		{"batch_none_found", batchPath("dbs_0000000000000000"), 200, nil},
		{"batch_ids_missing", "/dbs/cards", 400, nil},
		{"batch_ids_empty", "/dbs/cards?ids=", 400, nil},
		{"batch_empty_id", batchPath(batchGoku, "", batchPromo), 400, nil},
		{"batch_too_many", batchPath(many...), 400, nil},
	})
}

// TestCardsBatch: order, duplicates, not_found, id forms and the limits of
// ids. Each card is exactly its card detail body.
func TestCardsBatch(t *testing.T) {
	h := fixtureHandler(t)
	hundred := make([]string, batchMax)
	for i := range hundred {
		hundred[i] = batchGoku
	}
	tests := []struct {
		name, target string
		status       int
		cards        []string // ids of data, in order; or, for a 400, nil
		notFound     []string
	}{
		{"request order", batchPath(batchPromo, batchVegeta, batchGoku), 200, []string{batchPromo, batchVegeta, batchGoku}, []string{}},
		{"one id", batchPath(batchFrieza), 200, []string{batchFrieza}, []string{}},
		{"a repeated id once, at its first position", batchPath(batchVegeta, batchGoku, batchVegeta), 200, []string{batchVegeta, batchGoku}, []string{}},
		{"canonical and Cardmarket id of one card: once, canonical id", batchPath(batchGokuCM, batchPromo, batchGoku), 200, []string{batchGoku, batchPromo}, []string{}},
		{"upper-case hex is the same card", batchPath(batchGoku, "dbs_"+strings.ToUpper(batchGoku[4:]), strings.ToUpper(batchGokuCM)), 200, []string{batchGoku}, []string{}},
		{"not found, as sent, once each, in order", batchPath("dbs_ffffffffffffffff", batchGoku, "x y", "dbs_ffffffffffffffff", "DBS_FFFFFFFFFFFFFFFF"), 200,
			[]string{batchGoku}, []string{"dbs_ffffffffffffffff", "x y", "DBS_FFFFFFFFFFFFFFFF"}},
		{"other game's ids are not found", batchPath(batchMTG, catalog.CMCardID("mtg", 1, 780002), batchGoku), 200,
			[]string{batchGoku}, []string{batchMTG, catalog.CMCardID("mtg", 1, 780002)}},
		{"malformed ids are not found", batchPath("535600", "dbs_", "<script>", `"q"`), 200, []string{}, []string{"535600", "dbs_", "<script>", `"q"`}},
		{"spaces around ids", "/dbs/cards?ids=" + url.QueryEscape(" "+batchGoku+" ,  "+batchPromo), 200, []string{batchGoku, batchPromo}, []string{}},
		{"repeated ids parameters add up", "/dbs/cards?ids=" + batchPromo + "&ids=" + batchGoku + "," + batchVegeta, 200, []string{batchPromo, batchGoku, batchVegeta}, []string{}},
		{"100 ids", batchPath(hundred...), 200, []string{batchGoku}, []string{}},
		{"mtg", "/mtg/cards?ids=" + batchMTG + "," + batchGoku, 200, []string{batchMTG}, []string{batchGoku}},
		{"trailing slash", "/dbs/cards/?ids=" + batchGoku, 200, []string{batchGoku}, []string{}},
		{"no ids", "/dbs/cards", 400, nil, nil},
		{"no ids, other parameters", "/dbs/cards?id=" + batchGoku, 400, nil, nil},
		{"empty ids", "/dbs/cards?ids=", 400, nil, nil},
		{"only spaces", "/dbs/cards?ids=%20%20", 400, nil, nil},
		{"only a comma", "/dbs/cards?ids=,", 400, nil, nil},
		{"trailing comma", "/dbs/cards?ids=" + batchGoku + ",", 400, nil, nil},
		{"two commas", "/dbs/cards?ids=" + batchGoku + ",," + batchPromo, 400, nil, nil},
		{"an empty ids beside a good one", "/dbs/cards?ids=" + batchGoku + "&ids=", 400, nil, nil},
		{"101 ids", batchPath(append(hundred, batchPromo)...), 400, nil, nil},
		{"101 ids over two parameters", batchPath(hundred...) + "&ids=" + batchPromo, 400, nil, nil},
		{"a hundred thousand commas", "/dbs/cards?ids=" + strings.Repeat(",", 100_000), 400, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := get(h, tt.target)
			if w.Code != tt.status {
				t.Fatalf("GET %.200s = %d, want %d: %.300s", tt.target, w.Code, tt.status, w.Body)
			}
			if tt.status != http.StatusOK {
				var e struct{ Error, Message string }
				if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil {
					t.Fatal(err)
				}
				if e.Error != errInvalidParameter || !strings.Contains(e.Message, "parameter ids") {
					t.Errorf("error %q %q, want %q naming ids", e.Error, e.Message, errInvalidParameter)
				}
				return
			}
			var body struct {
				Success  bool
				Data     []json.RawMessage
				NotFound []string `json:"not_found"`
			}
			if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
				t.Fatal(err)
			}
			got := []string{}
			for _, card := range body.Data {
				var c struct{ ID string }
				if err := json.Unmarshal(card, &c); err != nil {
					t.Fatal(err)
				}
				got = append(got, c.ID)
				// Exactly the detail body: the bytes, not only the id.
				game := strings.TrimPrefix(tt.target, "/")[:3]
				if detail := get(h, prefix(game)+"/cards/"+c.ID).Body.String(); string(card) != detail {
					t.Errorf("card %s differs from its detail body", c.ID)
				}
			}
			if !body.Success || !cmp.Equal(got, tt.cards) || !cmp.Equal(body.NotFound, tt.notFound) {
				t.Errorf("success %v, data %v, not_found %q; want %v, %q", body.Success, got, body.NotFound, tt.cards, tt.notFound)
			}
		})
	}
}

// TestCardsBatchCountsOnce: a batch of 100 ids takes one request from the
// pool, as does a refused one; with one request left, a batch is answered
// and the next request is 429.
func TestCardsBatchCountsOnce(t *testing.T) {
	l := newLimited(t, Config{})
	hundred := make([]string, batchMax)
	for i := range hundred {
		hundred[i] = []string{batchGoku, batchPromo, batchVegeta, "dbs_0000000000000000"}[i%4]
	}
	if w := l.get(batchPath(hundred...), keyA1); w.Code != http.StatusOK || limitHeaders(w) != hdr(100, 99, 1000, 999) {
		t.Fatalf("a batch of 100: %d %v, want 200 and one request counted", w.Code, limitHeaders(w))
	}
	if w := l.get(batchPath(append(hundred, batchGoku)...), keyA1); w.Code != http.StatusBadRequest || limitHeaders(w) != hdr(100, 98, 1000, 998) {
		t.Fatalf("a batch of 101: %d %v, want 400 counted once", w.Code, limitHeaders(w))
	}
	if h, d := l.usedBy(t, "acct:1"); h != 2 || d != 2 {
		t.Errorf("pool used %d/%d, want 2/2", h, d)
	}

	// keySmall's pool: 3 an hour.
	l.get("/dbs/sets", keySmall)
	l.get("/dbs/cards/tcgplayer/535600", keySmall)
	if w := l.get(batchPath(hundred...), keySmall); w.Code != http.StatusOK || limitHeaders(w) != hdr(3, 0, 5, 2) {
		t.Fatalf("a batch as the hour's last request: %d %v, want 200", w.Code, limitHeaders(w))
	}
	if w := l.get(batchPath(batchGoku), keySmall); w.Code != http.StatusTooManyRequests {
		t.Errorf("after the hour's last request: %d, want 429", w.Code)
	}
}
