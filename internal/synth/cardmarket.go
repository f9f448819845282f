package synth

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/cardcat/cardcat/internal/fold"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/ingest/cardmarket"
	"github.com/cardcat/cardcat/internal/ingest/tcgplayer"
	"github.com/cardcat/cardcat/internal/synth/encode"
	"github.com/cardcat/cardcat/internal/synth/names"
	"github.com/cardcat/cardcat/internal/synth/rng"
)

// cmCategory is a Cardmarket product category (idCategory, categoryName).
type cmCategory struct {
	id   int
	name string
}

// cmCategories are a game's Cardmarket categories: the singles and the kinds
// of non-singles the generator uses. Ids and names are Cardmarket's own (as
// listed by third-party code that reads Cardmarket's category list).
type cmCategories struct {
	single, booster, display, deck, bundle, misc cmCategory
	// boxes and blisters, where the game has them apart (Pokémon's "Box Set"
	// for Elite Trainer Boxes and collections, "Blisters").
	boxes, blister cmCategory
}

var cmCategoriesByGame = map[string]cmCategories{
	"mtg": {
		single: cmCategory{1, "Magic Single"}, booster: cmCategory{2, "Magic Booster"}, display: cmCategory{7, "Magic Display"},
		deck: cmCategory{32, "Magic Starter Deck"}, bundle: cmCategory{17, "Magic Fatpack"}, misc: cmCategory{20, "Magic Miscellaneous"},
	},
	"dbs": {
		single: cmCategory{1049, "Dragon Ball Super Singles"}, booster: cmCategory{1050, "Dragon Ball Super Boosters"},
		display: cmCategory{1052, "Dragon Ball Super Booster Boxes"}, deck: cmCategory{1053, "Dragon Ball Super Starter Decks"},
		bundle: cmCategory{1054, "Dragon Ball Super Special Packs"}, misc: cmCategory{1054, "Dragon Ball Super Special Packs"},
	},
	// Pokémon's and One Piece's are those of the real files (shared/data
	// POKEMON.md, ONEPIECE.md).
	"pkm": {
		single: cmCategory{51, "Pokémon Single"}, booster: cmCategory{52, "Pokémon Booster"}, display: cmCategory{53, "Pokémon Display"},
		deck: cmCategory{54, "Pokémon Theme Deck"}, bundle: cmCategory{1015, "Pokémon Box Set"}, misc: cmCategory{1015, "Pokémon Box Set"},
		boxes: cmCategory{1015, "Pokémon Box Set"}, blister: cmCategory{1083, "Pokémon Blisters"},
	},
	"op": {
		single: cmCategory{1621, "One Piece Single"}, booster: cmCategory{1622, "One Piece Booster"},
		display: cmCategory{1624, "One Piece Booster Boxes"}, deck: cmCategory{1625, "One Piece Preconstructed Decks"},
		bundle: cmCategory{1628, "One Piece Promo Products"}, misc: cmCategory{1628, "One Piece Promo Products"},
	},
}

// sealedCategory returns the non-single category of a sealed product by its
// name; false for products Cardmarket does not sell (cases, pins).
func (c cmCategories) sealedCategory(name string) (cmCategory, bool) {
	w := names.WordsOf(name)
	switch {
	case w.Has("case", "cases", "pinfinity"):
		return cmCategory{}, false
	case w.Has("deck", "decks", "kit"):
		return c.deck, true
	case c.boxes.id != 0 && w.Has("elite trainer box", "build battle box", "collection"):
		return c.boxes, true
	case c.blister.id != 0 && w.Has("blister"):
		return c.blister, true
	case w.Has("display", "box"):
		return c.display, true
	case w.Has("bundle"):
		return c.bundle, true
	case w.Has("set of", "tin", "tins"):
		return c.misc, true
	case w.Has("pack", "packs", "booster"):
		return c.booster, true
	}
	return c.misc, true
}

// gameSpec is what the generator needs to know of one game.
type gameSpec struct {
	code       string
	g          game.Game
	cmGame     int
	categories []int
	cm         cmCategories
	foilSuffix string // of the price guide's second finish: "foil", Pokémon's "holo"
}

// cmFoilFinish reports whether Cardmarket prices TCGplayer's finish f as its
// second finish (the "-foil" or "-holo" fields). Pokémon's "-holo" is the
// reverse holo: a holo rare's own holo printing is its normal price. One Piece
// sells parallels as products of their own and prices no second finish.
func (s *gameSpec) cmFoilFinish(f string) bool {
	switch s.code {
	case "pkm":
		return f == "Reverse Holofoil"
	case "op":
		return false
	}
	return isFoilFinish(f)
}

func gameSpecs(reg *game.Registry) []*gameSpec {
	var specs []*gameSpec
	for _, g := range reg.All() {
		cm, ok := cmCategoriesByGame[g.Code]
		if !ok {
			cm = cmCategories{single: cmCategory{1, g.Name + " Single"}, booster: cmCategory{2, g.Name + " Booster"},
				display: cmCategory{3, g.Name + " Display"}, deck: cmCategory{4, g.Name + " Deck"},
				bundle: cmCategory{5, g.Name + " Bundle"}, misc: cmCategory{6, g.Name + " Miscellaneous"}}
		}
		specs = append(specs, &gameSpec{code: g.Code, g: g, cmGame: g.CardmarketGame, categories: g.TCGCategories, cm: cm, foilSuffix: g.FoilSuffix()})
	}
	return specs
}

// cmZone is Cardmarket's offset (Central European Time, summer time from the
// last Sunday of March to the last Sunday of October).
func cmZone(t time.Time) *time.Location {
	lastSunday := func(m time.Month) time.Time {
		d := time.Date(t.Year(), m+1, 0, 1, 0, 0, 0, time.UTC)
		return d.AddDate(0, 0, -int(d.Weekday()))
	}
	if !t.Before(lastSunday(time.March)) && t.Before(lastSunday(time.October)) {
		return time.FixedZone("CEST", 2*3600)
	}
	return time.FixedZone("CET", 3600)
}

// cmTimestamp formats a wall-clock time the way Cardmarket's files do.
func cmTimestamp(t time.Time) string {
	return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), 0, cmZone(t)).Format("2006-01-02T15:04:05-0700")
}

var obviousCode = regexp.MustCompile(`^[A-Z0-9]{2,6}$`)

// expansionFor is the Cardmarket expansion matched to a TCGplayer group: its
// name is the group's, sometimes with a cosmetic difference (": " as " - ",
// the other apostrophe); its abbreviation is the group's when that is a plain
// code shared by no other group of the game.
func expansionFor(seed uint64, cmGame, id int, g tcgplayer.Group, codeShared bool) cardmarket.Expansion {
	rv := rng.New(seed, "expansion", g.GroupID)
	r := &rv
	name := g.Name
	if r.Chance(0.4) {
		for _, c := range names.Cosmetics {
			if c.Kind == "colon" || c.Kind == "apostrophe" {
				if v := c.Apply(name); v != "" {
					name = v
					break
				}
			}
		}
	}
	e := cardmarket.Expansion{IDExpansion: id, EnName: name, IDGame: cmGame}
	if obviousCode.MatchString(g.Abbreviation) && !codeShared {
		e.Abbreviation = g.Abbreviation
	}
	if t, err := time.Parse("2006-01-02T15:04:05", g.PublishedOn); err == nil {
		e.ReleaseDate = cmTimestamp(t)
	}
	return e
}

var cmOnlyNames = map[string][]string{
	"mtg": {"Judge Gift Cards", "Store Championship Promos", "Arena League Promos", "Magic Fest Promos", "Players Tour Promos"},
	"dbs": {"Tournament Pack", "Championship Promo Cards", "Judge Promo Cards", "Winner Promo Cards", "Store Battle Promos"},
	"pkm": {"World Championship Promos", "Prize Pack Series", "Jumbo Cards", "Play! Pokémon Prize Cards", "League Promos"},
	"op":  {"Treasure Cup Promos", "Championship Promos", "Store Event Promos", "Tournament Pack Promos", "Premium Card Collection"},
}

// cmOnlyExpansion generates the game's expansion that no TCGplayer group
// matches: a promo series whose name and code no group of the game has.
func cmOnlyExpansion(seed uint64, day int, spec *gameSpec, id, firstCMID int, taken map[string]bool, baseDate time.Time) (*groupJob, *groupResult) {
	rv := rng.New(seed, "cm-only-expansion", spec.cmGame)
	r := &rv
	var name, code string
	var published time.Time
	for {
		published = baseDate.AddDate(0, 0, -r.Between(30, 600)).Truncate(24 * time.Hour)
		name = fmt.Sprintf("%s %d", rng.Pick(r, cmOnlyNames[spec.code]), published.Year())
		code = fmt.Sprintf("P%c%c%d", 'A'+rune(r.Intn(26)), 'A'+rune(r.Intn(26)), published.Year()%100)
		if !taken[fold.Key(name)] && !taken[code] {
			break
		}
	}
	job := &groupJob{
		seed: seed, day: day, spec: spec,
		group:     tcgplayer.Group{Name: name, PublishedOn: published.Format("2006-01-02T15:04:05")},
		cmFirstID: firstCMID, baseDate: baseDate, reserved: map[int]bool{},
		expansion: cardmarket.Expansion{IDExpansion: id, EnName: name, Abbreviation: code, ReleaseDate: cmTimestamp(published), IDGame: spec.cmGame},
		trend:     trend(r.Intn(3)),
		numPrefix: "P", numNext: 900, // One Piece promos ("P-001"), beyond the groups' promos
	}
	res := &groupResult{cases: newCaseLog()}
	g := &cmGroup{job: job, r: r, res: res, next: firstCMID, keys: map[string]bool{}, promo: true}
	for k := r.Between(5, 8); k > 0; k-- {
		g.cmOnly(caseCMOnlyExpansion)
	}
	res.cm = encodeCM(g.entries, spec.foilSuffix)
	return job, res
}

// cmWriter streams a game's Cardmarket files: the product lists and the price
// guide are JSON arrays written entry by entry, byte for byte what
// cardmarket.Encode writes for the whole list.
type cmWriter struct {
	dir                         string
	singles, nonsingles, guides *arrayFile
	expansions                  []cardmarket.Expansion
	counts                      *GameCounts
}

func newCMWriter(out string, cmGame int, createdAt string, counts *GameCounts) (*cmWriter, error) {
	dir := filepath.Join(out, "cardmarket", strconv.Itoa(cmGame))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	w := &cmWriter{dir: dir, counts: counts}
	head, _ := json.Marshal(createdAt)
	var err error
	if w.singles, err = openArray(filepath.Join(dir, "products_singles.json"), `{"version":1,"createdAt":`+string(head)+`,"products":[`); err != nil {
		return nil, err
	}
	if w.nonsingles, err = openArray(filepath.Join(dir, "products_nonsingles.json"), `{"version":1,"createdAt":`+string(head)+`,"products":[`); err != nil {
		return nil, err
	}
	if w.guides, err = openArray(filepath.Join(dir, "price_guide.json"), `{"version":1,"createdAt":`+string(head)+`,"priceGuides":[`); err != nil {
		return nil, err
	}
	return w, nil
}

// add writes a group's expansion and its encoded entries.
func (w *cmWriter) add(e cardmarket.Expansion, b *cmBatch) error {
	w.expansions = append(w.expansions, e)
	w.counts.CMExpansions++
	w.counts.CMSingles += b.singles.n
	w.counts.CMNonSingles += b.nonsingles.n
	w.counts.CMPriceGuides += b.guides.n
	for _, x := range []struct {
		a    *arrayFile
		part cmPart
	}{{w.singles, b.singles}, {w.nonsingles, b.nonsingles}, {w.guides, b.guides}} {
		if err := x.a.add(x.part); err != nil {
			return err
		}
	}
	return nil
}

// cmBatch is a group's Cardmarket entries, encoded by the worker that made
// them so that the writer only copies bytes.
type cmBatch struct {
	singles, nonsingles, guides cmPart
}

// cmPart is n comma-separated JSON records.
type cmPart struct {
	json []byte
	n    int
}

func (p *cmPart) add(f func([]byte) []byte) {
	if p.n > 0 {
		p.json = append(p.json, ',')
	}
	p.n++
	p.json = f(p.json)
}

// encodeCM sorts the entries by idProduct and encodes them, the price guide
// with the second finish's key suffix foil.
func encodeCM(entries []cmEntry, foil string) *cmBatch {
	slices.SortFunc(entries, func(a, b cmEntry) int { return a.product.IDProduct - b.product.IDProduct })
	b := &cmBatch{}
	b.singles.json = make([]byte, 0, 160*len(entries))
	b.guides.json = make([]byte, 0, 300*len(entries))
	for i := range entries {
		e := &entries[i]
		part := &b.nonsingles
		if e.single {
			part = &b.singles
		}
		part.add(func(j []byte) []byte { return encode.AppendCMProduct(j, &e.product) })
		if e.guide != nil {
			b.guides.add(func(j []byte) []byte { return encode.AppendCMGuide(j, e.guide, foil) })
		}
	}
	return b
}

// close finishes the lists and writes expansions.json; it returns the number
// of files written.
func (w *cmWriter) close() (int, error) {
	for _, a := range []*arrayFile{w.singles, w.nonsingles, w.guides} {
		if err := a.close(); err != nil {
			return 0, err
		}
	}
	f, err := os.Create(filepath.Join(w.dir, "expansions.json"))
	if err != nil {
		return 0, err
	}
	if err := cardmarket.Encode(f, &cardmarket.ExpansionList{Expansion: w.expansions}); err != nil {
		f.Close()
		return 0, err
	}
	return 4, f.Close()
}

// abort closes the files after a failure.
func (w *cmWriter) abort() {
	for _, a := range []*arrayFile{w.singles, w.nonsingles, w.guides} {
		if a != nil {
			a.f.Close()
		}
	}
}

// arrayFile is a JSON document whose last member is an array written one
// element at a time.
type arrayFile struct {
	f *os.File
	w *bufio.Writer
	n int
}

func openArray(path, head string) (*arrayFile, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	a := &arrayFile{f: f, w: bufio.NewWriterSize(f, 1<<16)}
	a.w.WriteString(head)
	return a, nil
}

func (a *arrayFile) add(p cmPart) error {
	if p.n == 0 {
		return nil
	}
	if a.n > 0 {
		a.w.WriteByte(',')
	}
	a.n += p.n
	_, err := a.w.Write(p.json)
	return err
}

func (a *arrayFile) close() error {
	a.w.WriteString("]}\n")
	if err := a.w.Flush(); err != nil {
		a.f.Close()
		return err
	}
	return a.f.Close()
}
