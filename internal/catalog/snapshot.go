package catalog

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cardcat/cardcat/internal/game"
)

// Snapshot is the immutable in-memory read model of one catalogue version:
// what the API serves, with every answer that does not depend on the request
// prepared once when the snapshot is built. It never changes after
// NewSnapshot returns, so any number of goroutines may read it; a new
// catalogue version is a new Snapshot.
//
// To keep a million-card catalogue small, a snapshot keeps no per-card Go
// strings or structs with pointers: each card is its pre-rendered JSON
// inside a few large string chunks, as its listing form (the detail form
// with both prices arrays emptied; a set's listings one after the other, so
// that a set page is one slice) and its prices arrays' contents, followed
// there by its record (id, name, number, product type and prices as values:
// snapshot_record.go); where those parts are (cardParts); its Cardmarket id
// decoded; and search data in flat arrays of uint32 card indexes. Only card
// detail and listing read the rendered bodies; the lookups and the paid
// answers read values.
type Snapshot struct {
	Version   int64
	CreatedAt time.Time
	games     []*GameSnapshot // registry order
}

// CardRef designates a card inside one GameSnapshot. Cards are numbered in
// the order of the set list, then of each set's listing, so that a set's
// cards are one range and a lower CardRef means a newer set.
type CardRef uint32

// GameSnapshot is one game's part of a Snapshot.
type GameSnapshot struct {
	game game.Game
	// backing keeps valid the memory chunks share when read from a mapped
	// artifact (binio.Reader.Owner); nil when they are the heap's. A string
	// of chunks (a card body, a record's text) is valid while g is
	// referenced: one kept beyond that must be copied (strings.Clone).
	backing any

	sets       []ListedSet // set-list order; only sets with cards
	setByID    setIndex    // set_id -> position in sets
	setsByCode setIndex    // lower-cased set_code -> positions in sets
	setList    []byte      // the /sets response body

	cards  []cardEntry
	chunks []string // per set, its cards' listing forms, then each card's prices and record (cardParts)
	// images are each card's image (ImageProduct): the TCGplayer productId
	// of its image, 0 when it has none. Apart from the cards' rows, which
	// hold what a card detail reads.
	images []uint32
	// sources are each card's marketplaces (flagTCG, flagCM), 2 bits a
	// card (sourcesOf): a search counts them over up to 1,000 cards, and in
	// a quarter of a byte each the array of a large game stays in the cache
	// where a byte each or a cardEntry's line each did not.
	sources []uint8

	finishNames []string    // of the records' finishes
	times       []time.Time // of the records' finishes

	byTCG   idTable            // "{game}_" + 16 hex ids, by the hex's value: the card
	byCM    idTable            // 64-hex ids, by their first 8 bytes: position in cmIDs
	cmIDs   []cmID             // in the order of their first 8 bytes
	byOther map[string]CardRef // ids of any other form, and the rare byCM collisions

	index searchIndex

	tags bodyTags // the bodies' ETags, made on first use (snapshot_tags.go)
}

// cardEntry is one card's row: where its parts are, and its body's tag.
// What a card detail reads of it is one row of 32 bytes, the rows aligned to
// them (writeBinary), so one cache line: the tag in an array of its own was
// a second miss for every card detail of a large catalogue.
type cardEntry struct {
	chunk uint32 // its parts are in chunks[chunk]
	parts cardParts
	// tag is the first 8 bytes of the body's BodyHash, made as the body is
	// rendered, in two words (the high one first: the row is words of 4
	// bytes, whichever machine wrote them): its ETag (CardTag).
	tag [2]uint32
}

// setTag keeps sum as the card's tag; bodyTag returns it.
func (e *cardEntry) setTag(sum uint64) { e.tag = [2]uint32{uint32(sum >> 32), uint32(sum)} }
func (e *cardEntry) bodyTag() uint64   { return uint64(e.tag[0])<<32 | uint64(e.tag[1]) }

// cmID is a 64-hex Cardmarket id, decoded, and its card.
type cmID struct {
	id  [CMLen / 2]byte
	ref CardRef
}

const (
	flagTCG uint8 = 1 << iota
	flagCM
)

// sourcesLen is the length of the sources of n cards; sourcesShift is
// where in its byte a card's two flags are.
func sourcesLen(n int) int         { return (n + 3) / 4 }
func sourcesShift(r CardRef) uint8 { return uint8(r&3) * 2 }
func (g *GameSnapshot) sourcesOf(r uint32) uint8 {
	return g.sources[r>>2] >> sourcesShift(CardRef(r)) & (flagTCG | flagCM)
}

// SetInfo is a set as the API describes it.
type SetInfo struct {
	ID          string
	Code        string // "" = null
	Name        string
	Language    string // "" = null
	ReleaseDate string // "" = null
	CardCount   int    // products of type card
	SealedCount int    // products of type sealed
	Total       int    // every product the listing contains
}

// ListedSet is a set of the snapshot: one with at least one product.
type ListedSet struct {
	SetInfo
	first, end CardRef
	pos        int32  // its position in the game's sets
	header     []byte // the set object of the set's card listing
	folded     string // folded name, for suggestions
}

// HeaderJSON returns the pre-rendered set object of the set's card listing.
func (s *ListedSet) HeaderJSON() []byte { return s.header }

// Position returns the set's position in its game's set list (Sets).
func (s *ListedSet) Position() int { return int(s.pos) }

// Cards returns the set's cards as the range [first, end), in listing order.
func (s *ListedSet) Cards() (first, end CardRef) { return s.first, s.end }

// chunkSize is the size of the string chunks holding the card bodies; large
// enough that a million cards make only a few thousand allocations. A set's
// cards are in one chunk, which is larger when the set is.
const chunkSize = 1 << 20

// ErrInvalidCatalog is wrapped by NewSnapshot's errors about an inconsistent catalogue.
var ErrInvalidCatalog = errors.New("catalog: inconsistent catalogue")

// NewSnapshot builds the snapshot of c for the games of reg, in registry
// order. A game of reg that c lacks is served empty; a game of c that reg
// lacks is not served. c is only read, and is not referenced afterwards.
func NewSnapshot(c *Catalog, reg *game.Registry) (*Snapshot, error) {
	s := &Snapshot{Version: c.Version, CreatedAt: c.CreatedAt}
	for _, g := range reg.All() {
		gs, err := newGameSnapshot(g, c.Game(g.Code))
		if err != nil {
			return nil, fmt.Errorf("catalog: snapshot of game %s: %w", g.Code, err)
		}
		s.games = append(s.games, gs)
	}
	return s, nil
}

// Game returns the snapshot of one game, or nil when the game is not served.
func (s *Snapshot) Game(code string) *GameSnapshot {
	for _, g := range s.games {
		if g.game.Code == code {
			return g
		}
	}
	return nil
}

// Games returns the games' snapshots in registry order.
func (s *Snapshot) Games() []*GameSnapshot { return s.games }

// Game returns the game's configuration.
func (g *GameSnapshot) Game() game.Game { return g.game }

// Len returns the number of cards (products) of the game.
func (g *GameSnapshot) Len() int { return len(g.cards) }

// SetListJSON returns the pre-rendered body of GET /{game}/sets.
func (g *GameSnapshot) SetListJSON() []byte { return g.setList }

// Sets returns the listed sets in set-list order. The caller must not modify them.
func (g *GameSnapshot) Sets() []ListedSet { return g.sets }

func newGameSnapshot(g game.Game, gc *GameCatalog) (*GameSnapshot, error) {
	gs := &GameSnapshot{
		game:    g,
		byOther: map[string]CardRef{},
	}
	if gc == nil {
		gc = &GameCatalog{Game: g.Code}
	}

	// Group the products by set, dropping sets without any.
	setPos := make(map[string]int, len(gc.Sets))
	for i := range gc.Sets {
		if _, dup := setPos[gc.Sets[i].ID]; dup {
			return nil, fmt.Errorf("%w: set_id %q appears twice", ErrInvalidCatalog, gc.Sets[i].ID)
		}
		setPos[gc.Sets[i].ID] = i
	}
	members := make([][]int32, len(gc.Sets))
	for i := range gc.Cards {
		p, ok := setPos[gc.Cards[i].SetID]
		if !ok {
			return nil, fmt.Errorf("%w: card %s is in unknown set %q", ErrInvalidCatalog, gc.Cards[i].ID, gc.Cards[i].SetID)
		}
		members[p] = append(members[p], int32(i))
	}
	type listed struct {
		info  SetInfo
		model int
	}
	var order []listed
	for i := range gc.Sets {
		if len(members[i]) == 0 {
			continue
		}
		s := &gc.Sets[i]
		info := SetInfo{ID: s.ID, Code: s.Code, Name: s.Name, Language: s.Language,
			ReleaseDate: s.ReleaseDate, Total: len(members[i])}
		for _, ci := range members[i] {
			switch gc.Cards[ci].ProductType {
			case ProductCard:
				info.CardCount++
			case ProductSealed:
				info.SealedCount++
			}
		}
		order = append(order, listed{info, i})
	}
	slices.SortFunc(order, func(a, b listed) int { return CompareSetList(&a.info, &b.info) })

	gs.sets = make([]ListedSet, len(order))
	gs.cards = make([]cardEntry, len(gc.Cards))
	gs.images = make([]uint32, len(gc.Cards))
	gs.sources = make([]uint8, sourcesLen(len(gc.Cards)))
	cmIDs := 0
	for i := range gc.Cards {
		if gc.Cards[i].CMID != "" || len(gc.Cards[i].ID) == CMLen {
			cmIDs++
		}
	}
	gs.cmIDs = make([]cmID, 0, cmIDs)
	ids := idIndexer{tcg: map[uint64]CardRef{}, cm: make(map[uint64]uint32, cmIDs)}
	ib := newIndexBuilder(len(gc.Cards))
	r := renderer{gs: gs, buf: make([]byte, 0, chunkSize), records: newRecordBuilder(g.IDPrefix())}
	next := CardRef(0)
	for pos, o := range order {
		set := &gc.Sets[o.model]
		ls := &gs.sets[pos]
		ls.SetInfo = o.info
		ls.pos = int32(pos)
		ls.header = appendSetHeader(nil, &ls.SetInfo)
		ls.folded = Fold(set.Name)
		ls.first = next

		ms := members[o.model]
		slices.SortFunc(ms, func(a, b int32) int { return CompareListing(&gc.Cards[a], &gc.Cards[b]) })
		for _, ci := range ms {
			c := &gc.Cards[ci]
			if err := gs.addCard(&r, &ids, next, set, c); err != nil {
				return nil, err
			}
			ib.add(c.Name, c.CardNumber)
			next++
		}
		ls.end = next
		r.endSet(ls.first, ls.end)
	}
	gs.indexSets()
	r.flush()
	gs.chunks = r.chunks
	gs.finishNames, gs.times = r.records.names, r.records.times
	gs.index = ib.build()
	ids.finish(gs)

	var b []byte
	b = append(b, `{"success":true,"data":[`...)
	for i := range gs.sets {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendSetSummary(b, &gs.sets[i].SetInfo)
	}
	b = append(b, `],"total":`...)
	b = appendInt(b, len(gs.sets))
	gs.setList = append(b, '}')
	return gs, nil
}

// renderer renders a set's cards into its listings and extras (cardParts),
// then places the set in the chunk being filled (endSet); each full chunk
// becomes one string.
type renderer struct {
	gs       *GameSnapshot
	buf      []byte // the chunk being filled
	scratch  []byte
	listings []byte // the set's listing forms, commas between
	extras   []byte // the set's prices contents and records
	chunks   []string
	records  *recordBuilder
}

func (r *renderer) flush() {
	if len(r.buf) > 0 {
		r.chunks = append(r.chunks, string(r.buf))
		r.buf = r.buf[:0]
	}
}

// endSet places the set of cards [first, end), rendered since the last
// endSet, in one chunk, and makes their parts' offsets the chunk's.
func (r *renderer) endSet(first, end CardRef) {
	n := len(r.listings) + len(r.extras)
	if len(r.buf)+n > cap(r.buf) {
		r.flush()
		if n > cap(r.buf) {
			r.buf = make([]byte, 0, n)
		}
	}
	base, xbase := uint32(len(r.buf)), uint32(len(r.buf)+len(r.listings))
	r.buf = append(r.buf, r.listings...)
	r.buf = append(r.buf, r.extras...)
	for i := first; i < end; i++ {
		e := &r.gs.cards[i]
		e.chunk = uint32(len(r.chunks))
		e.parts.off += base
		e.parts.xoff += xbase
	}
	r.listings, r.extras = r.listings[:0], r.extras[:0]
}

func (gs *GameSnapshot) addCard(r *renderer, ids *idIndexer, ref CardRef, set *Set, c *Card) error {
	var layout cardLayout
	r.scratch, layout = appendCard(r.scratch[:0], &gs.game, set, c)
	h := BodyHash(r.scratch)
	if len(r.listings) > 0 {
		r.listings = append(r.listings, ',')
	}
	var e cardEntry
	var err error
	if r.listings, r.extras, e.parts, err = splitCard(r.listings, r.extras, r.scratch, layout); err != nil {
		return fmt.Errorf("card %s: %w", c.ID, err)
	}
	e.setTag(binary.BigEndian.Uint64(h[:8]))
	r.extras = r.records.append(r.extras, c)
	if c.OnTCG() {
		gs.sources[ref>>2] |= flagTCG << sourcesShift(ref)
		if c.ImageCount > 0 {
			gs.images[ref] = uint32(c.TCGProductID)
		}
	}
	if c.OnCM() {
		gs.sources[ref>>2] |= flagCM << sourcesShift(ref)
	}
	gs.cards[ref] = e

	if err := ids.add(gs, c.ID, ref); err != nil {
		return err
	}
	if c.CMID != "" && c.CMID != c.ID {
		if err := ids.add(gs, c.CMID, ref); err != nil {
			return err
		}
	}
	return nil
}

// idIndexer collects a game's card ids as its snapshot is built, in maps
// (which find a repeated id as it comes), turned into the snapshot's
// tables once every card is in.
type idIndexer struct {
	tcg map[uint64]CardRef // byTCG's entries
	cm  map[uint64]uint32  // byCM's: position in gs.cmIDs as appended
}

// add makes id resolve to ref.
func (ids *idIndexer) add(gs *GameSnapshot, id string, ref CardRef) error {
	dup := func() error { return fmt.Errorf("%w: card id %q appears twice", ErrInvalidCatalog, id) }
	if hex, ok := strings.CutPrefix(id, gs.game.IDPrefix()); ok && len(hex) == TCGLen {
		if k, ok := parseHex64(hex); ok && hex == strings.ToLower(hex) {
			if _, taken := ids.tcg[k]; taken {
				return dup()
			}
			ids.tcg[k] = ref
			return nil
		}
	}
	if len(id) == CMLen && id == strings.ToLower(id) {
		if cm, ok := decodeCMID(id); ok {
			k := cmKey(&cm)
			i, taken := ids.cm[k]
			if !taken {
				ids.cm[k] = uint32(len(gs.cmIDs))
				gs.cmIDs = append(gs.cmIDs, cmID{id: cm, ref: ref})
				return nil
			}
			if gs.cmIDs[i].id == cm {
				// One Cardmarket product, two cards: which one it
				// answers would depend on the order of the catalogue.
				return dup()
			}
		}
	}
	if _, taken := gs.byOther[id]; taken {
		return dup()
	}
	gs.byOther[id] = ref
	return nil
}

// finish sets gs's id tables: cmIDs sorted by their keys, so that a
// position in byCM's keys is one in cmIDs.
func (ids *idIndexer) finish(gs *GameSnapshot) {
	gs.byTCG = idTableOf(ids.tcg)
	slices.SortFunc(gs.cmIDs, func(a, b cmID) int { return cmp.Compare(cmKey(&a.id), cmKey(&b.id)) })
	keys := make([]uint64, len(gs.cmIDs))
	for i := range gs.cmIDs {
		keys[i] = cmKey(&gs.cmIDs[i].id)
	}
	gs.byCM, _ = newIDTable(keys, nil) // distinct: one cmIDs entry per key
}

// parseHex64 parses 16 hex digits, either case.
func parseHex64(s string) (uint64, bool) {
	if len(s) != 16 {
		return 0, false
	}
	var v uint64
	for i := 0; i < 16; i++ {
		c := s[i]
		var d byte
		switch {
		case '0' <= c && c <= '9':
			d = c - '0'
		case 'a' <= c && c <= 'f':
			d = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		v = v<<4 | uint64(d)
	}
	return v, true
}

// decodeCMID decodes a 64-hex id, either case.
func decodeCMID(s string) (id [CMLen / 2]byte, ok bool) {
	if len(s) != CMLen {
		return id, false
	}
	for i := 0; i < CMLen; i += 16 {
		v, ok := parseHex64(s[i : i+16])
		if !ok {
			return id, false
		}
		binary.BigEndian.PutUint64(id[i/2:], v)
	}
	return id, true
}

// cmKey is the key of a decoded Cardmarket id in byCM: its first 8 bytes.
func cmKey(id *[CMLen / 2]byte) uint64 { return binary.BigEndian.Uint64(id[:8]) }
