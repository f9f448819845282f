package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"github.com/cardcat/cardcat/internal/jsonw"
	"strings"
	"testing"

	"github.com/cardcat/cardcat/internal/binio"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/google/go-cmp/cmp"
)

func mustSnapshot(tb testing.TB, c *Catalog) *Snapshot {
	tb.Helper()
	s, err := NewSnapshot(c, game.Default())
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// binaryOf is s written in its binary form.
func binaryOf(tb testing.TB, s *Snapshot) []byte {
	tb.Helper()
	var buf bytes.Buffer
	w := binio.NewWriter(&buf)
	s.WriteBinary(w)
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// readBack is s written in its binary form and read back.
func readBack(tb testing.TB, s *Snapshot) *Snapshot {
	tb.Helper()
	read, err := ReadSnapshot(binio.NewBytesReader(binaryOf(tb, s), nil), game.Default(), nil)
	if err != nil {
		tb.Fatal(err)
	}
	return read
}

func cardNames(g *GameSnapshot, refs []CardRef) []string {
	var out []string
	for _, r := range refs {
		var c struct {
			CardInfo struct{ Name string } `json:"card_info"`
		}
		if err := json.Unmarshal([]byte(g.CardJSON(r)), &c); err != nil {
			panic(err)
		}
		out = append(out, c.CardInfo.Name)
	}
	return out
}

func setRefs(s *ListedSet) []CardRef {
	var out []CardRef
	first, end := s.Cards()
	for r := first; r < end; r++ {
		out = append(out, r)
	}
	return out
}

func TestCompareNatural(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"2", "10", -1},
		{"10", "2", 1},
		{"FB01-2", "FB01-10", -1},
		{"FB01-001", "FB01-002", -1},
		{"FB01-001", "FB01-1", -1}, // equal value: the plain strings decide
		{"FB01-140", "FB02-001", -1},
		{"3 // 7", "3 // 10", -1},
		{"T1", "T10", -1},
		{"7", "7a", -1},
		{"fb01-5", "FB01-5", 1},
		{"", "1", -1},
		{"278", "278", 0},
	}
	for _, tt := range tests {
		if got := compareNatural(tt.a, tt.b); got != tt.want {
			t.Errorf("compareNatural(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestSetList(t *testing.T) {
	s := mustSnapshot(t, fixtureCatalog())
	tests := []struct {
		game string
		want []SetInfo
	}{
		{"dbs", []SetInfo{
			// A future release date is the newest; a null date comes last;
			// the set without products (2070) is not listed.
			{ID: "26001", Code: "FB09", Name: "Dual Evolution", Language: "en", ReleaseDate: "2031-03-14T00:00:00", CardCount: 1, Total: 1},
			{ID: "24311", Code: "FB03_AR", Name: "New Adventure Alternate Art Reprints", Language: "en", ReleaseDate: "2025-05-09T00:00:00", CardCount: 1, Total: 1},
			{ID: "23823", Code: "FB03_AR", Name: "Raging Roar Alternate Art Reprints", Language: "en", ReleaseDate: "2024-10-25T00:00:00", CardCount: 1, Total: 1},
			// The code card (null product_type) counts in neither count, but in Total.
			{ID: "23401", Code: "FB01", Name: "Awakened Pulse", Language: "en", ReleaseDate: "2024-02-23T00:00:00", CardCount: 5, SealedCount: 1, Total: 7},
			{ID: "-5001", Code: "TP01", Name: "Tournament Pack 01", CardCount: 1, SealedCount: 1, Total: 2},
		}},
		{"mtg", []SetInfo{
			{ID: "23447", Code: "BLB", Name: "Bloomburrow", Language: "en", ReleaseDate: "2024-08-02T00:00:00", CardCount: 5, SealedCount: 1, Total: 6},
			// Same date: by name.
			{ID: "23166", Code: "WHO", Name: "Planechase: Universes Beyond: Doctor Who", Language: "en", ReleaseDate: "2023-10-13T00:00:00", CardCount: 1, Total: 1},
			{ID: "23165", Code: "WHO", Name: "Universes Beyond: Doctor Who", Language: "en", ReleaseDate: "2023-10-13T00:00:00", CardCount: 2, Total: 2},
			{ID: "2899", Code: "TSR", Name: "Time Spiral Remastered", Language: "en", ReleaseDate: "2021-03-19T00:00:00", CardCount: 3, Total: 3},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.game, func(t *testing.T) {
			var got []SetInfo
			for _, ls := range s.Game(tt.game).Sets() {
				got = append(got, ls.SetInfo)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("sets (-want +got):\n%s", diff)
			}
			if !json.Valid(s.Game(tt.game).SetListJSON()) {
				t.Errorf("set list is not JSON: %s", s.Game(tt.game).SetListJSON())
			}
		})
	}
}

func TestSetListingOrder(t *testing.T) {
	s := mustSnapshot(t, fixtureCatalog())
	tests := []struct {
		game, set string
		want      []string
	}{
		{"dbs", "23401", []string{
			"Son Goku",              // FB01-001
			"Android 17 - FB01-2",   // FB01-2
			"Son Gohan : Childhood", // FB01-10
			"Frieza's Wrath – Célébration (Alternate Art)", // FB01-020
			"Code Card - Awakened Pulse Booster (FB01)",    // no number: after the numbered, by name
			"Son Goku (Championship Promo)",
			"Awakened Pulse Booster Box", // sealed last
		}},
		{"mtg", "23447", []string{
			"Alania's Pathmaker", "Fabled Passage (Extended Art)", "Forest (0278)",
			"Bat // Intrepid Rabbit Double-Sided Token", "Bloomburrow Bundle Promo Card",
			"Bloomburrow - Play Booster Display",
		}},
		{"mtg", "23165", []string{"The Tenth Doctor", "Exterminate!"}}, // "3 // 7" before "74"
	}
	for _, tt := range tests {
		g := s.Game(tt.game)
		set, ok := g.SetByID(tt.set)
		if !ok {
			t.Fatalf("set %s not found", tt.set)
		}
		if diff := cmp.Diff(tt.want, cardNames(g, setRefs(set))); diff != "" {
			t.Errorf("%s/%s listing (-want +got):\n%s", tt.game, tt.set, diff)
		}
	}
}

func TestLookupCard(t *testing.T) {
	s := mustSnapshot(t, fixtureCatalog())
	dbs := s.Game("dbs")
	goku := TCGCardID("dbs", 535600)
	gokuCM := CMCardID("dbs", 13, 700001)
	promo := CMCardID("dbs", 13, 700050)
	tests := []struct {
		name, id string
		want     string // the card's canonical id; "" = not found
	}{
		{"canonical", goku, goku},
		{"canonical upper-case hex", "dbs_" + strings.ToUpper(goku[4:]), goku},
		{"Cardmarket id of a linked card", gokuCM, goku},
		{"Cardmarket id upper case", strings.ToUpper(gokuCM), goku},
		{"Cardmarket-only card", promo, promo},
		{"unknown canonical", "dbs_0000000000000000", ""},
		{"unknown Cardmarket id", strings.Repeat("0", 64), ""},
		{"Cardmarket id with same first 16 hex", gokuCM[:16] + strings.Repeat("0", 48), ""},
		{"other game's id", TCGCardID("mtg", 541300), ""},
		{"short hex", "dbs_abc", ""},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, ok := dbs.LookupCard(tt.id)
			got := ""
			if ok {
				var c struct{ ID string }
				if err := json.Unmarshal([]byte(dbs.CardJSON(r)), &c); err != nil {
					t.Fatal(err)
				}
				got = c.ID
			}
			if got != tt.want {
				t.Errorf("LookupCard(%q) = %q, want %q", tt.id, got, tt.want)
			}
		})
	}
}

// TestLookupCardmarketCollision: two Cardmarket ids that share their first
// 16 hex digits both resolve, and a third one with those digits does not.
func TestLookupCardmarketCollision(t *testing.T) {
	c := fixtureCatalog()
	head := strings.Repeat("ab", 8)
	ids := []string{head + strings.Repeat("1", 48), head + strings.Repeat("2", 48)}
	for i, id := range ids {
		card := cmOnlyCard("dbs", 13, 990100+i, "23401", "Twin "+itoa(i))
		card.ID, card.CMID = id, id
		c.Games[0].Cards = append(c.Games[0].Cards, card)
	}
	dbs := mustSnapshot(t, c).Game("dbs")
	for _, id := range ids {
		for _, asked := range []string{id, strings.ToUpper(id)} { // hex digits in either case
			r, ok := dbs.LookupCard(asked)
			var p CardPrices
			if ok {
				dbs.CardPrices(r, &p)
			}
			if p.ID != id {
				t.Errorf("LookupCard(%s) found %q", asked, p.ID)
			}
		}
	}
	if r, ok := dbs.LookupCard(head + strings.Repeat("3", 48)); ok {
		t.Errorf("a third id with the same head found card %d", r)
	}
}

func TestClassifyCardID(t *testing.T) {
	tests := []struct {
		id   string
		want IDForm
	}{
		{TCGCardID("dbs", 1), IDCanonical},
		{"dbs_ABCDEF0123456789", IDCanonical},
		{CMCardID("dbs", 13, 1), IDCardmarket},
		{TCGCardID("mtg", 1), IDMalformed},
		{"dbs_123", IDMalformed},
		{"dbs_abcdef012345678g", IDMalformed},
		{strings.Repeat("g", 64), IDMalformed},
		{strings.Repeat("a", 63), IDMalformed},
		{"12345", IDMalformed},
		{"", IDMalformed},
	}
	for _, tt := range tests {
		if got := ClassifyCardID("dbs", tt.id); got != tt.want {
			t.Errorf("ClassifyCardID(dbs, %q) = %v, want %v", tt.id, got, tt.want)
		}
	}
}

// TestCardForms checks every card's detail and listing form: valid JSON,
// the same object except that the listing's price arrays are empty.
func TestCardForms(t *testing.T) {
	s := mustSnapshot(t, fixtureCatalog())
	for _, g := range s.Games() {
		for r := CardRef(0); int(r) < g.Len(); r++ {
			var detail, listing map[string]any
			if err := json.Unmarshal([]byte(g.CardJSON(r)), &detail); err != nil {
				t.Fatalf("%s card %d detail: %v\n%s", g.Game().Code, r, err, g.CardJSON(r))
			}
			lb := g.AppendListing(nil, r)
			if len(lb) != g.ListingLen(r) {
				t.Errorf("ListingLen = %d, listing has %d bytes", g.ListingLen(r), len(lb))
			}
			if err := json.Unmarshal(lb, &listing); err != nil {
				t.Fatalf("%s card %d listing: %v\n%s", g.Game().Code, r, err, lb)
			}
			for _, m := range []string{"market_t", "market_c"} {
				if block, ok := detail[m].(map[string]any); ok {
					block["prices"] = []any{}
				}
			}
			if diff := cmp.Diff(detail, listing); diff != "" {
				t.Errorf("%s card %d: listing differs from detail beyond prices (-detail +listing):\n%s", g.Game().Code, r, diff)
			}
		}
	}
}

// TestListingIsRendered checks that the listing form cut by the layout is
// byte for byte the card rendered without any price.
func TestListingIsRendered(t *testing.T) {
	c := awkwardCatalog()
	s := mustSnapshot(t, c)
	for _, gc := range c.Games {
		gs := s.Game(gc.Game)
		for i := range gc.Cards {
			card := gc.Cards[i]
			r, ok := gs.LookupCard(card.ID)
			if !ok {
				t.Fatalf("%s not found", card.ID)
			}
			var set *Set
			for k := range gc.Sets {
				if gc.Sets[k].ID == card.SetID {
					set = &gc.Sets[k]
				}
			}
			card.TCGPrices, card.CMPrices = nil, nil
			want, _ := appendCard(nil, &gs.game, set, &card)
			if got := gs.AppendListing(nil, r); string(got) != string(want) {
				t.Errorf("%s listing\n got %s\nwant %s", card.ID, got, want)
			}
		}
	}
}

func TestSetsByCodeAndSuggestions(t *testing.T) {
	s := mustSnapshot(t, fixtureCatalog())
	ids := func(sets []*ListedSet) []string {
		var out []string
		for _, s := range sets {
			out = append(out, s.ID)
		}
		return out
	}
	dbs, mtg := s.Game("dbs"), s.Game("mtg")
	tests := []struct {
		name string
		got  []*ListedSet
		want []string
	}{
		{"code", dbs.SetsByCode("FB01"), []string{"23401"}},
		{"code lower case", dbs.SetsByCode("fb01"), []string{"23401"}},
		{"shared code", dbs.SetsByCode("fb03_ar"), []string{"24311", "23823"}},
		{"shared code mtg", mtg.SetsByCode("WHO"), []string{"23166", "23165"}},
		{"code of a set without products", dbs.SetsByCode("BT1"), nil},
		{"unknown code", dbs.SetsByCode("XX"), nil},
		{"suggest by name", dbs.SuggestSets("Awakened Pulse", 10), []string{"23401"}},
		{"suggest by slug", dbs.SuggestSets("awakened-pulse", 10), []string{"23401"}},
		{"suggest by words", mtg.SuggestSets("doctor who", 10), []string{"23166", "23165"}},
		{"suggest limited", mtg.SuggestSets("doctor who", 1), []string{"23166"}},
		{"suggest accents", mtg.SuggestSets("BLOOMBÜRROW", 10), []string{"23447"}},
		{"suggest nothing", dbs.SuggestSets("zzz", 10), nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, ids(tt.got)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestNewSnapshotErrors(t *testing.T) {
	tests := []struct {
		name   string
		change func(c *Catalog)
	}{
		{"card in unknown set", func(c *Catalog) { c.Games[0].Cards[0].SetID = "nope" }},
		{"duplicate set id", func(c *Catalog) { c.Games[0].Sets[1].ID = c.Games[0].Sets[0].ID }},
		{"duplicate card id", func(c *Catalog) { c.Games[0].Cards[1].ID = c.Games[0].Cards[0].ID }},
		// The fixture's Goku (linked) and its Cardmarket-only promo.
		{"a linked card's Cardmarket id on another card", func(c *Catalog) { c.Games[0].Cards[1].CMID = c.Games[0].Cards[0].CMID }},
		{"a Cardmarket-only card's id on a linked card", func(c *Catalog) { c.Games[0].Cards[0].CMID = c.Games[0].Cards[6].ID }},
	}
	for _, tt := range tests {
		c := fixtureCatalog()
		tt.change(c)
		if _, err := NewSnapshot(c, game.Default()); !errors.Is(err, ErrInvalidCatalog) {
			t.Errorf("%s: err = %v, want ErrInvalidCatalog", tt.name, err)
		}
	}
}

func TestNewSnapshotGames(t *testing.T) {
	c := fixtureCatalog()
	c.Games = c.Games[:1] // no mtg catalogue
	s := mustSnapshot(t, c)
	if s.Version != 7 || !s.CreatedAt.Equal(c.CreatedAt) {
		t.Errorf("Version, CreatedAt = %d, %v", s.Version, s.CreatedAt)
	}
	mtg := s.Game("mtg")
	if mtg == nil || mtg.Len() != 0 || string(mtg.SetListJSON()) != `{"success":true,"data":[],"total":0}` {
		t.Errorf("a registry game without catalogue must be served empty")
	}
	if s.Game("xyz") != nil {
		t.Errorf("Game(xyz), a game of no registry, must be nil")
	}
}

func TestAppendJSONString(t *testing.T) {
	for _, s := range []string{
		"", "plain", `quote " backslash \ slash /`, "<strong>&amp;</strong>", "tab\tnew\nline\rcr",
		"\x00\x01\x1f\x7f", "é – ’ “ ” • ™", "\u2028\u2029", "bad \xff utf8 \xc3", "emoji 🐉",
	} {
		want, _ := json.Marshal(s)
		if got := jsonw.AppendString(nil, s); string(got) != string(want) {
			t.Errorf("jsonw.AppendString(%q) = %s, want %s", s, got, want)
		}
	}
}

func TestFold(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Son Goku", "son goku"},
		{"  Son   Goku  ", "son goku"},
		{"Frieza's Wrath", "friezas wrath"},
		{"“Ach! Hans, Run!”", "ach! hans, run!"},
		{"Célébration", "celebration"},
		{"Lim-Dûl", "lim-dul"},
		{"Æther Vial", "aether vial"},
		{"Jötun Grunt", "jotun grunt"},
		{"Straße", "strasse"},
		{"100% _wild_ *card*", "100% _wild_ *card*"},
		{"Bat // Rabbit", "bat // rabbit"},
		{"a\u00a0b", "a b"},
		{"`'\"", ""},
	}
	for _, tt := range tests {
		if got := Fold(tt.in); got != tt.want {
			t.Errorf("Fold(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestSetsReadBack: the sets read from the binary form are the sets built,
// field by field (their text is read into one string per game), found the
// same ways, and a set's header cannot grow into the next one's.
func TestSetsReadBack(t *testing.T) {
	s := mustSnapshot(t, fixtureCatalog())
	read := readBack(t, s)
	for _, built := range s.Games() {
		got := read.Game(built.Game().Code)
		if len(got.Sets()) != len(built.Sets()) {
			t.Fatalf("%s: %d sets read, %d built", built.Game().Code, len(got.Sets()), len(built.Sets()))
		}
		for i := range built.Sets() {
			b, r := &built.Sets()[i], &got.Sets()[i]
			if r.SetInfo != b.SetInfo || !bytes.Equal(r.HeaderJSON(), b.HeaderJSON()) || r.folded != b.folded ||
				r.Position() != i || r.first != b.first || r.end != b.end {
				t.Errorf("set %d: read %+v, built %+v", i, r.SetInfo, b.SetInfo)
			}
			if byID, ok := got.SetByID(b.ID); !ok || byID != r {
				t.Errorf("set %q: not found by its id", b.ID)
			}
			if b.Code != "" && !slicesContain(got.SetsByCode(strings.ToUpper(b.Code)), r) {
				t.Errorf("set %q: not found by its code %q", b.ID, b.Code)
			}
			if h := r.HeaderJSON(); cap(h) != len(h) {
				t.Errorf("set %q: its header has %d bytes of room past its end", b.ID, cap(h)-len(h))
			}
		}
	}
}

func slicesContain(sets []*ListedSet, s *ListedSet) bool {
	for _, x := range sets {
		if x == s {
			return true
		}
	}
	return false
}

// TestReadSnapshotRefusesASetTwice: a binary form with one set_id twice is
// refused, not read into a lookup that finds only one of them.
func TestReadSnapshotRefusesASetTwice(t *testing.T) {
	s := mustSnapshot(t, fixtureCatalog())
	gs := s.Games()[0]
	if len(gs.sets) < 2 {
		t.Fatalf("%s: %d sets, the test needs two", gs.Game().Code, len(gs.sets))
	}
	gs.sets[1].ID = gs.sets[0].ID
	_, err := ReadSnapshot(binio.NewBytesReader(binaryOf(t, s), nil), game.Default(), nil)
	if err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("err %v, want the set_id named twice", err)
	}
}
