package catalog

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/game"
	"github.com/google/go-cmp/cmp"
)

func TestSearchRules(t *testing.T) {
	s := mustSnapshot(t, fixtureCatalog())
	tests := []struct {
		name, game, q string
		want          []string
	}{
		{"word", "dbs", "goku", []string{"Son Goku - FB03-001 (Alternate Art)", "Son Goku", "Son Goku (Championship Promo)"}},
		{"case-insensitive", "dbs", "GOKU", []string{"Son Goku - FB03-001 (Alternate Art)", "Son Goku", "Son Goku (Championship Promo)"}},
		{"exact, then prefix, then the rest, newer sets first in each", "dbs", "son goku",
			[]string{"Son Goku", "Son Goku - FB03-001 (Alternate Art)", "Son Goku (Championship Promo)"}},
		{"words in any order", "dbs", "goku son", []string{"Son Goku - FB03-001 (Alternate Art)", "Son Goku", "Son Goku (Championship Promo)"}},
		{"every word must match", "dbs", "goku vegeta", nil},
		{"substring inside a word", "dbs", "ohan", []string{"Son Gohan : Childhood"}},
		{"accent-insensitive query", "dbs", "celebration", []string{"Frieza's Wrath – Célébration (Alternate Art)"}},
		{"accent-insensitive name", "mtg", "JOTUN", []string{"Jötun Grunt"}},
		{"ligature", "mtg", "aether", []string{"Æther Vial"}},
		{"accented query", "mtg", "lim-dûl", []string{"Lim-Dûl the Necromancer"}},
		{"quotes ignored", "mtg", "alania's", []string{"Alania's Pathmaker"}},
		{"quotes ignored, without apostrophe", "mtg", "alanias", []string{"Alania's Pathmaker"}},
		{"curly quotes ignored", "mtg", "“doctor’s tomb”", []string{"The Doctor's Tomb"}},
		{"punctuation is text", "mtg", "exterminate!", []string{"Exterminate!"}},
		{"slashes are text", "mtg", "bat // intrepid", []string{"Bat // Intrepid Rabbit Double-Sided Token"}},
		{"percent is not a wildcard", "mtg", "%a%", nil},
		{"underscore is not a wildcard", "mtg", "b_b", nil},
		{"star is not a wildcard", "dbs", "son*", nil},
		{"card number exact", "dbs", "FB01-001", []string{"Son Goku"}},
		{"card number prefix", "dbs", "fb01-1", []string{"Son Gohan : Childhood"}},
		{"card number with spaces", "mtg", "3 // 7", []string{"The Tenth Doctor"}},
		{"name and number", "dbs", "fb01", []string{"Son Goku", "Android 17 - FB01-2", "Son Gohan : Childhood",
			"Frieza's Wrath – Célébration (Alternate Art)", "Code Card - Awakened Pulse Booster (FB01)"}},
		{"short query: name starts with it", "dbs", "So", []string{"Son Goku - FB03-001 (Alternate Art)", "Son Goku", "Son Gohan : Childhood", "Son Goku (Championship Promo)"}},
		{"short query does not match inside names", "dbs", "ok", nil},
		{"short query: number starts with it", "mtg", "27", []string{"Forest (0278)"}},
		{"short query: 1 character", "mtg", "e", []string{"Exterminate!"}},
		{"short query after removing quotes", "mtg", `"e"`, []string{"Exterminate!"}},
		{"short query: number and name", "mtg", "t1", []string{"Bat // Intrepid Rabbit Double-Sided Token"}},
		{"two short words", "dbs", "so go", []string{"Son Goku - FB03-001 (Alternate Art)", "Son Goku", "Son Gohan : Childhood", "Son Goku (Championship Promo)"}},
		{"one-letter words", "mtg", "a v", []string{"Æther Vial"}},
		{"sealed products are found", "mtg", "booster display", []string{"Bloomburrow - Play Booster Display"}},
		{"Cardmarket-only cards are found", "dbs", "trunks", []string{"Trunks : Future (Tournament Pack)"}},
		{"no match", "dbs", "zzzz", nil},
		{"nothing to search", "dbs", "''", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := s.Game(tt.game)
			res, err := g.Search(context.Background(), tt.q)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, cardNames(g, res.Cards)); diff != "" {
				t.Errorf("Search(%q) (-want +got):\n%s", tt.q, diff)
			}
			if res.Truncated {
				t.Errorf("Truncated = true")
			}
		})
	}
}

func TestSearchCounts(t *testing.T) {
	s := mustSnapshot(t, fixtureCatalog())
	// Son Goku (both), Son Goku AA (TCGplayer only), the promo (Cardmarket only).
	res, err := s.Game("dbs").Search(context.Background(), "goku")
	if err != nil {
		t.Fatal(err)
	}
	want := SourceCounts{TCG: 2, CM: 2, TCGOnly: 1, CMOnly: 1, Both: 1}
	if diff := cmp.Diff(want, res.Counts); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
}

// bulkCatalog makes one set per name pattern group: n cards named by name(i)
// in sets of 100, older sets for higher i.
func bulkCatalog(n int, name func(i int) string, number func(i int) string) *Catalog {
	gc := GameCatalog{Game: "dbs"}
	for i := 0; i < n; i++ {
		if i%100 == 0 {
			d := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, -i/100)
			gc.Sets = append(gc.Sets, Set{Game: "dbs", ID: fmt.Sprint(1000 + i/100), Name: fmt.Sprintf("Set %d", i/100),
				ReleaseDate: d.Format("2006-01-02T15:04:05")})
		}
		c := tcgCard("dbs", i+1, fmt.Sprint(1000+i/100), name(i), number(i))
		gc.Cards = append(gc.Cards, c)
	}
	return &Catalog{Games: []GameCatalog{gc}}
}

func TestSearchTruncation(t *testing.T) {
	// 1,200 cards: every 300th is named exactly "Goku", every 3rd starts
	// with "Goku", the others only contain it.
	name := func(i int) string {
		switch {
		case i%300 == 0:
			return "Goku"
		case i%3 == 0:
			return fmt.Sprintf("Goku %d", i)
		default:
			return fmt.Sprintf("Son Goku %d", i)
		}
	}
	s := mustSnapshot(t, bulkCatalog(1200, name, func(int) string { return "" }))
	g := s.Game("dbs")
	res, err := g.Search(context.Background(), "goku")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Cards) != MaxSearchMatches || !res.Truncated {
		t.Fatalf("got %d cards, truncated %v; want %d, true", len(res.Cards), res.Truncated, MaxSearchMatches)
	}
	names := cardNames(g, res.Cards)
	// 4 exact, then 396 prefixed, then the rest; each group in set order (ascending i).
	for i, n := range names[:4] {
		if n != "Goku" {
			t.Fatalf("result %d = %q, want an exact match", i, n)
		}
	}
	for i := 4; i < 400; i++ {
		if names[i][:5] != "Goku " {
			t.Fatalf("result %d = %q, want a prefix match", i, names[i])
		}
	}
	for i := 400; i < len(names); i++ {
		if names[i][:4] != "Son " {
			t.Fatalf("result %d = %q, want another match", i, names[i])
		}
	}
	for i := 1; i < len(res.Cards); i++ {
		if i != 4 && i != 400 && res.Cards[i] <= res.Cards[i-1] {
			t.Fatalf("results %d and %d out of set order", i-1, i)
		}
	}

	// Exactly MaxSearchMatches matches: not truncated.
	s = mustSnapshot(t, bulkCatalog(MaxSearchMatches, name, func(int) string { return "" }))
	res, _ = s.Game("dbs").Search(context.Background(), "goku")
	if len(res.Cards) != MaxSearchMatches || res.Truncated {
		t.Errorf("got %d cards, truncated %v; want %d, false", len(res.Cards), res.Truncated, MaxSearchMatches)
	}

	// Many prefix matches and many number matches.
	s = mustSnapshot(t, bulkCatalog(3000, func(i int) string { return fmt.Sprintf("Card %d", i) },
		func(i int) string { return fmt.Sprintf("C-%d", i) }))
	for _, q := range []string{"c", "c-1", "card"} {
		res, _ = s.Game("dbs").Search(context.Background(), q)
		if len(res.Cards) != MaxSearchMatches || !res.Truncated {
			t.Errorf("%q: got %d cards, truncated %v", q, len(res.Cards), res.Truncated)
		}
		for i := 1; i < len(res.Cards); i++ {
			if res.Cards[i] <= res.Cards[i-1] {
				t.Errorf("%q: results out of order at %d", q, i)
				break
			}
		}
	}
}

func TestSearchDeadline(t *testing.T) {
	// Half the names hold "abcz", the other half "bcde", none both: the
	// search walks one half through the other's list, long enough to
	// notice the context.
	s := mustSnapshot(t, bulkCatalog(20000, func(i int) string { return fmt.Sprintf("%s x%d", []string{"abcz", "bcde"}[i%2], i) },
		func(int) string { return "" }))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := s.Game("dbs").Search(ctx, "abcz bcde")
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	res, err := s.Game("dbs").Search(context.Background(), "abcz bcde")
	if err != nil || len(res.Cards) != 0 {
		t.Errorf("got %d cards, %v", len(res.Cards), err)
	}
	// A deadline passed: before the search starts, and while it walks.
	if _, err := s.Game("dbs").SearchBefore(context.Background(), "abcz bcde", time.Now().Add(-time.Second)); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("deadline passed: err = %v, want context.DeadlineExceeded", err)
	}
	g := s.Game("dbs")
	st := stop{context.Background(), time.Now().Add(-time.Second)}
	if _, _, err := g.index.search(st, new(searchBuf), Fold("abcz bcde"), MaxSearchMatches); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("deadline passed during the walk: err = %v, want context.DeadlineExceeded", err)
	}
	if res, err := g.SearchBefore(context.Background(), "abcz", time.Now().Add(time.Minute)); err != nil || len(res.Cards) == 0 {
		t.Errorf("deadline a minute away: %d cards, %v", len(res.Cards), err)
	}
}

func TestSearchMatchesEveryNameOfFixture(t *testing.T) {
	c := fixtureCatalog()
	s, err := NewSnapshot(c, game.Default())
	if err != nil {
		t.Fatal(err)
	}
	checkFoundByName(t, s, c)
}

// checkFoundByName checks that every card of c is found by searching its
// own name (cut to 100 characters, the longest query).
func checkFoundByName(t *testing.T, s *Snapshot, c *Catalog) {
	t.Helper()
	for _, gc := range c.Games {
		g := s.Game(gc.Game)
		if g == nil {
			continue
		}
		for i := range gc.Cards {
			card := &gc.Cards[i]
			q := []rune(card.Name)
			if len(q) > 100 {
				q = q[:100]
			}
			if LooksLikeSQL(string(q)) {
				t.Errorf("%s: name %q looks like SQL", gc.Game, card.Name)
			}
			res, err := g.Search(context.Background(), string(q))
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, r := range res.Cards {
				if want, _ := g.LookupCard(card.ID); r == want {
					found = true
				}
			}
			if !found && !res.Truncated {
				t.Errorf("%s: %q not found by its name", gc.Game, card.Name)
			}
		}
	}
}

// TestDropTaken: the refs in taken go, in batches that continue in
// ascending order, and what is left of taken carries to the next batch.
func TestDropTaken(t *testing.T) {
	taken := []uint32{3, 5, 9, 20, 21}
	var kept []uint32
	for _, batch := range [][]uint32{{1, 2}, {3, 4, 5, 5, 6}, {7}, {9, 10, 19, 20}, {21}, {22, 30}} {
		var k []uint32
		k, taken = dropTaken(slices.Clone(batch), taken)
		kept = append(kept, k...)
	}
	if want := []uint32{1, 2, 4, 6, 7, 10, 19, 22, 30}; !slices.Equal(kept, want) {
		t.Errorf("kept %v, want %v", kept, want)
	}
	if len(taken) != 0 {
		t.Errorf("taken left %v, want none", taken)
	}
	if k, rest := dropTaken(nil, []uint32{1}); len(k) != 0 || len(rest) != 1 {
		t.Errorf("no refs: %v, %v", k, rest)
	}
}

// TestSortedPrefixesFirst: first agrees with a scan at every size around
// the blocks' edges, with runs of equal prefixes across them, for values
// below, between, at and above the prefixes.
func TestSortedPrefixesFirst(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 2, prefixBlock - 1, prefixBlock, prefixBlock + 1, 2*prefixBlock + 7, 1000, 5000} {
		vals := make([]uint64, n)
		for i := range vals {
			vals[i] = uint64(rng.IntN(max(n/3, 1))) * 4 // runs of equal values; odd values fall between
		}
		slices.Sort(vals)
		s := keyPrefixes(n, func(i int) string { return string(binary.BigEndian.AppendUint64(nil, vals[i])) }, nil)
		for v := uint64(0); v <= uint64(n/3+1)*4+1; v++ {
			want := 0
			for want < n && vals[want] < v {
				want++
			}
			if got := s.first(v); got != want {
				t.Fatalf("n=%d: first(%d) = %d, want %d", n, v, got, want)
			}
		}
	}
}

// TestSourcesOfEveryCard: each card's marketplaces, kept 2 bits a card,
// are its own, built and read back from the binary form, for cards at
// every position in their byte.
func TestSourcesOfEveryCard(t *testing.T) {
	c := benchCatalog(1003)
	s := mustSnapshot(t, c)
	read := readBack(t, s)
	seen := map[uint8]int{}
	for _, snap := range []*Snapshot{s, read} {
		g := snap.Game("dbs")
		for i := range c.Games[0].Cards {
			card := &c.Games[0].Cards[i]
			r, ok := g.LookupCard(card.ID)
			if !ok {
				t.Fatalf("card %s not found", card.ID)
			}
			want := uint8(0)
			if card.OnTCG() {
				want |= flagTCG
			}
			if card.OnCM() {
				want |= flagCM
			}
			if got := g.sourcesOf(uint32(r)); got != want {
				t.Fatalf("card %s (ref %d): sources %02b, want %02b", card.ID, r, got, want)
			}
			seen[want]++
		}
	}
	if len(seen) < 3 {
		t.Fatalf("the catalogue has cards of %d kinds of sources, want TCGplayer only, Cardmarket only and both", len(seen))
	}
}

// A released result's memory serves later searches: their answers are as a
// search with memory of its own gives them, a long answer's refs never
// leak into a shorter one, and releasing twice is harmless.
func TestSearchReleaseReusesMemory(t *testing.T) {
	s := mustSnapshot(t, bulkCatalog(5000, func(i int) string { return fmt.Sprintf("abcz x%d y%d", i, i%7) },
		func(i int) string { return fmt.Sprintf("N-%04d", i) }))
	g := s.Game("dbs")
	ctx := context.Background()
	queries := []string{"abcz", "x12", "y3 abcz", "n-00", "zzzq", "x4999", "ab"}
	want := map[string][]CardRef{}
	for _, q := range queries {
		res, err := g.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		want[q] = slices.Clone(res.Cards) // never released: memory of its own
	}
	for range 3 {
		for _, q := range queries {
			res, err := g.Search(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(res.Cards, want[q]) {
				t.Fatalf("%q on reused memory: %d cards, want %d", q, len(res.Cards), len(want[q]))
			}
			res.Release()
			if res.Cards != nil {
				t.Fatalf("%q: Cards kept after Release", q)
			}
			res.Release()
		}
	}
}

// TestMatchWindowCountsTheWalkedUnion: two words, the rarer inside several
// tokens and the other with a bitset (the shape of "awakened krillin" at
// 1M cards), are ANDed a window at a time, not walked by the union of the
// rarer's lists; before the union's cost counted, the walk was taken (on
// the harness's 1M store, about a third the slower).
func TestMatchWindowCountsTheWalkedUnion(t *testing.T) {
	const n = 10000
	b := newIndexBuilder(n)
	forms := []string{"krillin", "krillin,", "[krillin]", "krillins"}
	for i := range n {
		name := fmt.Sprintf("card %d", i)
		switch {
		case i%60 == 0: // 167 names, 1.7% of the cards (krillin: 4,213 of 264,604, 1.6%)
			name = "Hero " + forms[i/60%len(forms)]
		case i%40 == 1: // 250 names, over n/128: a bitset
			name = "Awakened " + name
		}
		b.add(name, "")
	}
	ix := b.build()
	// The fixture has the shape it is for.
	if lo, hi := ix.suffixRange("krillin"); hi-lo < 2 {
		t.Fatalf("fixture: krillin is in %d tokens, want several", hi-lo)
	}
	if lo, hi := ix.suffixRange("awakened"); hi-lo != 1 || ix.dense.bitset(ix.sufTok[lo]) == nil {
		t.Fatalf("fixture: awakened is in %d tokens; want one, with a bitset", hi-lo)
	}
	var m wordMatcher
	ix.matchWords(&m, Fold("awakened krillin"))
	if m.drive.window == nil {
		t.Fatalf("the matcher walks (drive lists %d, blocks %v), want the window AND", len(m.drive.lists), m.drive.blocks != nil)
	}
}
