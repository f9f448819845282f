package catalog

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cardcat/cardcat/internal/game"
)

// FuzzClassifyCardID: never a panic; the form follows the id rules of
// ids.go, written again here: "{game}_" and 16 hex digits is canonical, 64
// hex digits a Cardmarket id, anything else malformed; the ids TCGCardID
// and CMCardID make are classified as such, in either case.
func FuzzClassifyCardID(f *testing.F) {
	for _, s := range []string{TCGCardID("dbs", 535600), "dbs_ABCDEF0123456789", CMCardID("dbs", 13, 1), TCGCardID("mtg", 1),
		"dbs_123", "dbs_abcdef012345678g", strings.Repeat("g", 64), strings.Repeat("a", 63), strings.Repeat("a", 65),
		"12345", "", "dbs_", "_", "dbs__abcdef0123456789", "\xff", "dbs_abcdef01234567\x00"} {
		f.Add("dbs", s, 535600)
	}
	f.Add("mtg", TCGCardID("mtg", 541300), 541300)
	f.Add("", "_0123456789abcdef", 0)
	f.Fuzz(func(t *testing.T, game, id string, n int) {
		got := ClassifyCardID(game, id)
		want := IDMalformed
		if rest, ok := strings.CutPrefix(id, game+"_"); ok {
			if len(rest) == 16 && IsHex(rest) {
				want = IDCanonical
			}
		} else if len(id) == 64 && IsHex(id) {
			want = IDCardmarket
		}
		if got != want {
			t.Fatalf("ClassifyCardID(%q, %q) = %v, want %v", game, id, got, want)
		}
		if got == IDMalformed {
			return
		}
		head, hx := "", id // a Cardmarket id: 64 hex
		if got == IDCanonical {
			head, hx = id[:len(id)-TCGLen], id[len(id)-TCGLen:]
		}
		for _, other := range []string{head + strings.ToUpper(hx), head + strings.ToLower(hx)} {
			if f := ClassifyCardID(game, other); f != got {
				t.Fatalf("ClassifyCardID(%q, %q) = %v, but %q is %v", game, id, got, other, f)
			}
		}
		if c := TCGCardID(game, n); ClassifyCardID(game, c) != IDCanonical {
			t.Fatalf("TCGCardID(%q, %d) = %q is not canonical", game, n, c)
		}
		if c := CMCardID(game, n, n); ClassifyCardID(game, c) != IDCardmarket && !strings.HasPrefix(c, game+"_") {
			t.Fatalf("CMCardID(%q, %d, %d) = %q is not a Cardmarket id", game, n, n, c)
		}
	})
}

// FuzzLookupCard looks any id up in the fixture's snapshot: never a panic; a
// found id is well formed (or one of the Cardmarket ids kept aside), and
// resolves to the same card with its hex digits in either case; a
// canonical id finds the card whose id it is.
func FuzzLookupCard(f *testing.F) {
	for _, s := range []string{TCGCardID("dbs", 535600), "dbs_" + strings.ToUpper(TCGCardID("dbs", 535600)[4:]),
		CMCardID("dbs", 13, 700001), strings.ToUpper(CMCardID("dbs", 13, 700001)), CMCardID("dbs", 13, 700050),
		"dbs_0000000000000000", strings.Repeat("0", 64), CMCardID("dbs", 13, 700001)[:16] + strings.Repeat("0", 48),
		TCGCardID("mtg", 541300), CMCardID("mtg", 1, 780002), "dbs_abc", "", "\xff", strings.Repeat("F", 64)} {
		f.Add("dbs", s)
		f.Add("mtg", s)
	}
	s, err := NewSnapshot(fixtureCatalog(), game.Default())
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, game, id string) {
		g := s.Game(game)
		if g == nil {
			g = s.Game("dbs")
		}
		code := g.Game().Code
		r, ok := g.LookupCard(id)
		if !ok {
			return
		}
		form := ClassifyCardID(code, id)
		if form == IDMalformed {
			t.Fatalf("LookupCard(%q) in %s found card %d, but the id is malformed", id, code, r)
		}
		hx := id
		if form == IDCanonical {
			hx = id[len(code)+1:]
		}
		for _, other := range []string{id[:len(id)-len(hx)] + strings.ToLower(hx), id[:len(id)-len(hx)] + strings.ToUpper(hx)} {
			if r2, ok := g.LookupCard(other); !ok || r2 != r {
				t.Fatalf("LookupCard(%q) in %s = %d, but LookupCard(%q) = %d, %v", id, code, r, other, r2, ok)
			}
		}
		if form == IDCanonical {
			var c struct{ ID string }
			if err := json.Unmarshal([]byte(g.CardJSON(r)), &c); err != nil {
				t.Fatal(err)
			}
			if c.ID != code+"_"+strings.ToLower(hx) {
				t.Fatalf("LookupCard(%q) in %s found the card %q", id, code, c.ID)
			}
		}
	})
}
