package httpapi

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/cardcat/cardcat/internal/catalog"
)

// FuzzCardID asks GET /{game}/cards/{id} and GET /{game}/images/{id} for any
// id: never a 5xx, errors JSON; the card route's answer agrees with
// catalog.ClassifyCardID (a malformed id is 400, a well-formed one 200 or
// 404, or 400 with did_you_mean the path of its game, which is not 400
// again), and a found card is the same card whatever the case of
// its hex digits.
func FuzzCardID(f *testing.F) {
	for _, seed := range []string{
		catalog.TCGCardID("dbs", 535600), catalog.TCGCardID("mtg", 541300), catalog.CMCardID("dbs", 13, 700001),
		catalog.CMCardID("dbs", 13, 700050), catalog.CMCardID("mtg", 1, 780002), "dbs_ABCDEF0123456789",
		"dbs_0000000000000000", strings.Repeat("0", 64), "dbs_123", "12345", "", "dbs_", "../../etc/passwd",
		"dbs_abcdef012345678g", strings.Repeat("f", 65), "\x00", "\xff\xfe", "1' OR '1'='1", "<script>alert(1)</script>",
		catalog.TCGCardID("pkm", 42346), catalog.TCGCardID("op", 453514), "pkm_0123456789ABCDEF", "op_123", "pk_0123456789abcdef",
		"tcgplayer", "cardmarket", "sets",
	} {
		for _, g := range []string{"dbs", "mtg", "pkm", "op"} {
			f.Add(g, seed)
		}
	}
	h := fixtureHandler(f)
	f.Fuzz(func(t *testing.T, game, id string) {
		if game != "dbs" && game != "mtg" && game != "pkm" && game != "op" {
			game = "dbs"
		}
		if id == "" || id == "." || id == ".." || strings.Contains(id, "/") {
			return // another route's path, or a path the mux cleans
		}
		target := prefix(game) + "/cards/" + url.PathEscape(id)
		r, ok := newRawRequest(http.MethodGet, target)
		if !ok || r.URL.Path != prefix(game)+"/cards/"+id {
			return
		}
		r.Header.Set("X-API-Key", testKey)
		w, e := serveChecked(t, h, r)
		form := catalog.ClassifyCardID(game, id)
		var elsewhere *string // did_you_mean: the path of another game's card
		if len(e.DidYouMean) > 0 {
			if err := json.Unmarshal(e.DidYouMean, &elsewhere); err != nil || elsewhere == nil {
				t.Fatalf("GET %s: did_you_mean %s is not a path", target, e.DidYouMean)
			}
		}
		switch {
		case w.Code == http.StatusBadRequest && elsewhere != nil:
			r2, ok := newRawRequest(http.MethodGet, *elsewhere)
			if !ok {
				t.Fatalf("GET %s: did_you_mean %q is not a request target", target, *elsewhere)
			}
			r2.Header.Set("X-API-Key", testKey)
			// A prefixed id is sent to its game by its form alone, so its card may not exist there.
			if w2, _ := serveChecked(t, h, r2); w2.Code != http.StatusOK && w2.Code != http.StatusNotFound {
				t.Fatalf("GET %s: did_you_mean %q answers %d, want 200 or 404", target, *elsewhere, w2.Code)
			}
		case form == catalog.IDMalformed && w.Code != http.StatusBadRequest:
			t.Fatalf("GET %s: %d, want 400 for a malformed id", target, w.Code)
		case form != catalog.IDMalformed && w.Code != http.StatusOK && w.Code != http.StatusNotFound:
			t.Fatalf("GET %s: %d, want 200 or 404 for a well-formed id of this game", target, w.Code)
		}
		if w.Code == http.StatusOK {
			var got string
			jsonField(t, w.Body, "id", &got)
			hx := hexPart(game, id)
			for _, other := range []string{id[:len(id)-len(hx)] + strings.ToLower(hx), id[:len(id)-len(hx)] + strings.ToUpper(hx)} {
				r2, _ := newRawRequest(http.MethodGet, prefix(game)+"/cards/"+other)
				r2.Header.Set("X-API-Key", testKey)
				w2, _ := serveChecked(t, h, r2)
				var got2 string
				if w2.Code == http.StatusOK {
					jsonField(t, w2.Body, "id", &got2)
				}
				if w2.Code != http.StatusOK || got2 != got {
					t.Fatalf("GET %s/cards/%s is card %q, but %s answers %d %q", prefix(game), id, got, other, w2.Code, got2)
				}
			}
		}

		r, ok = newRawRequest(http.MethodGet, prefix(game)+"/images/"+url.PathEscape(id))
		if ok {
			r.Header.Set("X-API-Key", testKey)
			serveChecked(t, h, r)
		}
	})
}

// hexPart is the hex digits of a well-formed id: after the game prefix, or all of it.
func hexPart(game, id string) string {
	if rest, ok := strings.CutPrefix(id, game+"_"); ok {
		return rest
	}
	return id
}
