package catalog

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"maps"
	"slices"
	"time"
	"unsafe"

	"github.com/cardcat/cardcat/internal/binio"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/pace"
)

// SnapshotEncoding is the version of the binary form WriteBinary writes and
// ReadSnapshot reads. Any change to that form, or to what a snapshot holds
// or how it renders (a body, a record, the search index), must increase it:
// a file of another encoding is refused and the snapshot built again.
const SnapshotEncoding = 8 // 2: the cards' body tags (bodyTags); 3: the search index by tokens, the cards' sources apart; 4: Cardmarket ids in key order; 5: arrays aligned, the cards as rows; 6: the cards as listings and prices (cardParts); 7: the TCGplayer id table as its slots (idTable), the cards' sources 2 bits each; 8: the body tags in the cards' rows, aligned, the images apart

// The binary form of a snapshot is its own arrays written out: the
// pre-rendered bodies and records as they are in memory, the flat arrays as
// arrays of fixed-width integers aligned at 8 bytes (binio), the id tables as
// their sorted keys and values, and each other map as its sorted keys and
// values (rebuilt on reading; they are small). Read from a mapped file, the
// bodies and arrays are used where they are; reading thus costs about what
// checking the bytes costs, against rendering every card and building the
// search index again. Nothing in it is trusted: every offset, reference and
// record is checked before the snapshot is served, so that a corrupt file
// fails to read instead of failing a request later.

// WriteBinary writes s for ReadSnapshot.
func (s *Snapshot) WriteBinary(w *binio.Writer) {
	w.Varint(s.Version)
	t, _ := s.CreatedAt.MarshalBinary() // fails only for offsets no store gives
	w.Bytes(t)
	w.Uvarint(uint64(len(s.games)))
	for _, g := range s.games {
		g.writeBinary(w)
	}
}

// ReadSnapshot reads a snapshot written by WriteBinary for the games of reg
// (the same games, in the same order, or it is refused). Its checks over
// every card step p (nil: unpaced).
func ReadSnapshot(r *binio.Reader, reg *game.Registry, p *pace.Pacer) (*Snapshot, error) {
	s := &Snapshot{Version: r.Varint()}
	if t := r.Bytes(); r.Err() == nil {
		if err := s.CreatedAt.UnmarshalBinary(t); err != nil {
			r.Failf("created_at: %v", err)
		}
	}
	n := r.Len(1)
	if r.Err() == nil && n != len(reg.All()) {
		r.Failf("%d games, the registry has %d", n, len(reg.All()))
	}
	for i := 0; i < n && r.Err() == nil; i++ {
		g := readGameSnapshot(r, reg.All()[i], p)
		s.games = append(s.games, g)
	}
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("catalog: reading a snapshot: %w", err)
	}
	return s, nil
}

func (g *GameSnapshot) writeBinary(w *binio.Writer) {
	w.String(g.game.Code)

	w.Uvarint(uint64(len(g.sets)))
	for i := range g.sets {
		s := &g.sets[i]
		w.String(s.ID)
		w.String(s.Code)
		w.String(s.Name)
		w.String(s.Language)
		w.String(s.ReleaseDate)
		w.Uvarint(uint64(s.CardCount))
		w.Uvarint(uint64(s.SealedCount))
		w.Uvarint(uint64(s.Total))
		w.Uvarint(uint64(s.first))
		w.Uvarint(uint64(s.end))
		w.Bytes(s.header)
		w.String(s.folded)
	}
	w.Bytes(g.setList)

	w.Uvarint(uint64(len(g.chunks)))
	for _, c := range g.chunks {
		w.String(c)
	}
	w.U32sAligned(cardWords(g.cards), cardRowAlign)
	w.U32s(g.images)
	w.Bytes(g.sources)

	w.Uvarint(uint64(len(g.finishNames)))
	for _, n := range g.finishNames {
		w.String(n)
	}
	w.Uvarint(uint64(len(g.times)))
	for _, t := range g.times {
		b, _ := t.MarshalBinary()
		w.Bytes(b)
	}

	w.Uvarint(g.byTCG.homes)
	w.U32s(g.byTCG.words()) // read in place (idTableOfWords)
	ids := make([]byte, 0, len(g.cmIDs)*(CMLen/2))
	refs := make([]uint32, len(g.cmIDs))
	for i := range g.cmIDs {
		ids = append(ids, g.cmIDs[i].id[:]...)
		refs[i] = uint32(g.cmIDs[i].ref)
	}
	w.Bytes(ids)
	w.U32s(refs)
	others := slices.Sorted(maps.Keys(g.byOther))
	w.Uvarint(uint64(len(others)))
	for _, id := range others {
		w.String(id)
		w.U32(uint32(g.byOther[id]))
	}

	ix := &g.index
	w.String(ix.names)
	w.U32s(ix.nameOff)
	w.String(ix.nums)
	w.U32s(ix.numOff)
	w.String(ix.toks)
	w.U32s(ix.tokOff)
	w.U32s(ix.postOff)
	w.U32s(ix.post)
	w.U32s(ix.gramKeys)
	w.U32s(ix.sufAt)
	w.U32s(ix.sufTok)
	w.U32s(ix.byName)
	w.U32s(ix.byNum)
	for _, h := range []*prefixHeads{&ix.nameHeads, &ix.numHeads} {
		w.Uvarint(uint64(h.min))
		writeMap64(w, h.at)
		w.U32s(h.refs)
	}
	w.Uvarint(uint64(ix.dense.words))
	writeMap32(w, ix.dense.at)
	w.U64s(ix.dense.bits)
}

// The cards are written as their entries are in memory, 8 words each in
// cardEntry's field order (cardWords), so that a mapped artifact's cards
// are used in place (cardsOfWords) rather than copied at every start; from
// a multiple of their size, so that no card's row is across two cache
// lines of the mapping.
const (
	cardEntryWords = 8
	cardRowAlign   = 4 * cardEntryWords
)

// cardEntry must be exactly its 8 words, in their order (Go lays fields
// out in declaration order; TestCardWords checks the order).
var _ [0]struct{} = [unsafe.Sizeof(cardEntry{}) - 4*cardEntryWords]struct{}{}

// cardWords is cards as words: the same memory.
func cardWords(cards []cardEntry) []uint32 {
	if len(cards) == 0 {
		return nil
	}
	return unsafe.Slice(&cards[0].chunk, len(cards)*cardEntryWords)
}

// cardsOfWords is words as cards (the same memory); false unless they are
// whole entries.
func cardsOfWords(words []uint32) ([]cardEntry, bool) {
	if len(words)%cardEntryWords != 0 {
		return nil, false
	}
	if len(words) == 0 {
		return []cardEntry{}, true
	}
	return unsafe.Slice((*cardEntry)(unsafe.Pointer(&words[0])), len(words)/cardEntryWords), true
}

// writeMap64 writes a map as its sorted keys, then their values.
func writeMap64[V ~uint32](w *binio.Writer, m map[uint64]V) {
	keys := slices.Sorted(maps.Keys(m))
	vals := make([]uint32, len(keys))
	for i, k := range keys {
		vals[i] = uint32(m[k])
	}
	w.U64s(keys)
	w.U32s(vals)
}

func writeMap32(w *binio.Writer, m map[uint32]uint32) {
	keys := slices.Sorted(maps.Keys(m))
	vals := make([]uint32, len(keys))
	for i, k := range keys {
		vals[i] = m[k]
	}
	w.U32s(keys)
	w.U32s(vals)
}

// readMap64 and readMap32 read what writeMap64 and writeMap32 wrote.
func readMap64[V ~uint32](r *binio.Reader, limit uint32, what string) map[uint64]V {
	return sortedMap[uint64, V](r, r.U64s(), r.U32s(), limit, what) // keys, then values: the written order
}

func readMap32(r *binio.Reader, limit uint32, what string) map[uint32]uint32 {
	return sortedMap[uint32, uint32](r, r.U32s(), r.U32s(), limit, what)
}

// sortedMap makes a map of keys and vals, refusing keys out of order (the
// form is canonical) and values not below limit; nil when empty.
func sortedMap[K uint32 | uint64, V ~uint32](r *binio.Reader, keys []K, vals []uint32, limit uint32, what string) map[K]V {
	if r.Err() != nil {
		return nil
	}
	if len(keys) != len(vals) {
		r.Failf("%s: %d keys, %d values", what, len(keys), len(vals))
		return nil
	}
	if len(keys) == 0 {
		return nil
	}
	m := make(map[K]V, len(keys))
	for i, k := range keys {
		if (i > 0 && keys[i-1] >= k) || vals[i] >= limit {
			r.Failf("%s: entry %d out of order or out of range", what, i)
			return nil
		}
		m[k] = V(vals[i])
	}
	return m
}

// The text fields of a set in the binary form, in their order there (the
// counts and the card range come between ReleaseDate and the header).
const (
	setID = iota
	setCode
	setName
	setLanguage
	setReleaseDate
	setHeader
	setFolded
	setTextFields
)

// setText gathers the text of every set of a game, read into one string
// (and their headers into one array) rather than an allocation a field:
// some 30,000 at a million cards that lived as long as the snapshot, each
// marked by the collector at every cycle (bench/README.md, "Less to mark").
type setText []byte

type textSpan struct{ at, n uint32 }

func (t *setText) add(s string) textSpan {
	sp := textSpan{uint32(len(*t)), uint32(len(s))}
	*t = append(*t, s...)
	return sp
}

func (sp textSpan) in(all string) string { return all[sp.at : sp.at+sp.n] }

// count reads a uvarint that must not exceed limit.
func count(r *binio.Reader, limit uint64, what string) uint32 {
	v := r.Uvarint()
	if r.Err() == nil && v > limit {
		r.Failf("%s %d above %d", what, v, limit)
		return 0
	}
	return uint32(v)
}

// Backing is what keeps the memory of g's card bodies valid when they
// were read in place (binio.NewBytesReader's owner); nil when they are
// the heap's.
func (g *GameSnapshot) Backing() any { return g.backing }

func readGameSnapshot(r *binio.Reader, g game.Game, p *pace.Pacer) *GameSnapshot {
	gs := &GameSnapshot{game: g, byOther: map[string]CardRef{}}
	if code := r.String(); r.Err() == nil && code != g.Code {
		r.Failf("game %q where the registry has %q", code, g.Code)
	}

	// The sets, then the cards, whose count bounds the sets' ranges.
	nsets := r.Len(8)
	gs.sets = make([]ListedSet, nsets)
	var text, headers setText
	spans := make([][setTextFields]textSpan, nsets)
	for i := 0; i < nsets && r.Err() == nil; i++ {
		s, sp := &gs.sets[i], &spans[i]
		s.pos = int32(i)
		for f := range setHeader {
			sp[f] = text.add(r.StringRef())
		}
		s.CardCount = int(count(r, 1<<32-1, "card count"))
		s.SealedCount = int(count(r, 1<<32-1, "sealed count"))
		s.Total = int(count(r, 1<<32-1, "total"))
		s.first = CardRef(count(r, 1<<32-1, "first card"))
		s.end = CardRef(count(r, 1<<32-1, "end card"))
		sp[setHeader] = headers.add(r.StringRef())
		sp[setFolded] = text.add(r.StringRef())
	}
	all := string(text)
	for i := 0; i < nsets && r.Err() == nil; i++ {
		s, sp := &gs.sets[i], &spans[i]
		s.ID, s.Code, s.Name, s.Language, s.ReleaseDate = sp[setID].in(all), sp[setCode].in(all),
			sp[setName].in(all), sp[setLanguage].in(all), sp[setReleaseDate].in(all)
		h := sp[setHeader]
		s.header = headers[h.at : h.at+h.n : h.at+h.n]
		s.folded = sp[setFolded].in(all)
	}
	gs.indexSets()
	if id, dup := gs.setByID.repeated(func(p int32) string { return gs.sets[p].ID }); dup {
		r.Failf("set_id %q twice", id)
	}
	gs.setList = r.Bytes()

	// The bodies may share the reader's memory (a mapped file): gs keeps
	// its owner, so that the memory stays valid while gs is referenced.
	nchunks := r.Len(1)
	gs.chunks = make([]string, nchunks)
	for i := 0; i < nchunks && r.Err() == nil; i++ {
		gs.chunks[i] = r.StringRef()
	}
	gs.backing = r.Owner()
	if words := r.U32sRefAligned(cardRowAlign); r.Err() == nil {
		var ok bool
		if gs.cards, ok = cardsOfWords(words); !ok {
			r.Failf("%d card words, not whole cards", len(words))
		}
	}
	ncards := uint32(len(gs.cards))
	if gs.images = r.U32sRef(); r.Err() == nil && len(gs.images) != len(gs.cards) {
		r.Failf("%d images for %d cards", len(gs.images), len(gs.cards))
	}
	if gs.sources = r.Bytes(); r.Err() == nil && len(gs.sources) != sourcesLen(len(gs.cards)) {
		r.Failf("%d bytes of sources for %d cards", len(gs.sources), len(gs.cards))
	}

	nnames := r.Len(1)
	gs.finishNames = make([]string, nnames)
	for i := 0; i < nnames && r.Err() == nil; i++ {
		gs.finishNames[i] = r.String()
	}
	ntimes := r.Len(1)
	gs.times = make([]time.Time, ntimes)
	for i := 0; i < ntimes && r.Err() == nil; i++ {
		if err := gs.times[i].UnmarshalBinary(r.Bytes()); err != nil && r.Err() == nil {
			r.Failf("time %d: %v", i, err)
		}
	}

	if homes, words := r.Uvarint(), r.U32sRef(); r.Err() == nil {
		var ok bool
		if gs.byTCG, ok = idTableOfWords(words, homes, ncards); !ok {
			r.Failf("TCGplayer ids out of order or out of range")
		}
	}
	cmBytes, cmRefs := r.Bytes(), r.U32s()
	if r.Err() == nil && len(cmBytes) != len(cmRefs)*(CMLen/2) {
		r.Failf("%d bytes of Cardmarket ids for %d cards", len(cmBytes), len(cmRefs))
	}
	if r.Err() == nil {
		gs.cmIDs = make([]cmID, len(cmRefs))
		keys := make([]uint64, len(cmRefs))
		for i, ref := range cmRefs {
			c := &gs.cmIDs[i]
			copy(c.id[:], cmBytes[i*(CMLen/2):])
			c.ref = CardRef(ref)
			keys[i] = cmKey(&c.id)
			if ref >= ncards {
				r.Failf("Cardmarket id %d out of range", i)
				break
			}
		}
		var ok bool
		if gs.byCM, ok = newIDTable(keys, nil); !ok && r.Err() == nil {
			r.Failf("Cardmarket ids out of order or repeated")
		}
	}
	nothers := r.Len(5)
	prev := ""
	for i := 0; i < nothers && r.Err() == nil; i++ {
		id, ref := r.String(), r.U32()
		if r.Err() == nil && ((i > 0 && id <= prev) || ref >= ncards) {
			r.Failf("other id %d out of order or out of range", i)
		}
		gs.byOther[id] = CardRef(ref)
		prev = id
	}

	ix := &gs.index
	// The index's arrays and texts, like the bodies, stay in the reader's
	// memory where it is a mapping (gs.backing keeps it).
	ix.names, ix.nameOff = r.StringRef(), r.U32sRef()
	ix.nums, ix.numOff = r.StringRef(), r.U32sRef()
	ix.toks, ix.tokOff = r.StringRef(), r.U32sRef()
	ix.postOff, ix.post, ix.gramKeys = r.U32sRef(), r.U32sRef(), r.U32sRef()
	ix.sufAt, ix.sufTok = r.U32sRef(), r.U32sRef()
	ix.wideWord = defaultWideWord
	ix.byName, ix.byNum = r.U32sRef(), r.U32sRef()
	for _, h := range []*prefixHeads{&ix.nameHeads, &ix.numHeads} {
		h.min = int(count(r, 1<<31-1, "head minimum"))
		h.at = readMap64[uint32](r, 1<<32-1, "prefix heads")
		h.refs = r.U32sRef()
	}
	ix.dense.words = int(count(r, 1<<31-1, "bitset words"))
	ix.dense.at = readMap32(r, 1<<32-1, "bitsets")
	ix.dense.bits = r.U64sRef()

	if r.Err() == nil {
		if err := gs.check(p); err != nil {
			r.Failf("game %s: %v", g.Code, err)
		} else {
			ix.derive(p)
		}
	}
	return gs
}

// check verifies every offset and reference that a request would follow,
// and every card's record, so that a snapshot read from a file cannot fail
// a request however its bytes were damaged.
func (gs *GameSnapshot) check(p *pace.Pacer) error {
	n := uint32(len(gs.cards))
	for i := range gs.sets {
		s := &gs.sets[i]
		if s.first > s.end || uint32(s.end) > n {
			return fmt.Errorf("set %d: cards [%d, %d) of %d", i, s.first, s.end, n)
		}
	}
	for i := range gs.cards {
		if i%pacedCards == 0 {
			p.Step()
		}
		e := &gs.cards[i]
		if int(e.chunk) >= len(gs.chunks) {
			return fmt.Errorf("card %d: chunk %d of %d", i, e.chunk, len(gs.chunks))
		}
		c := gs.chunks[e.chunk]
		if !e.parts.valid(len(c)) {
			return fmt.Errorf("card %d: body out of range", i)
		}
		if !gs.checkRecord(c[e.parts.recordOff():]) {
			return fmt.Errorf("card %d: record damaged", i)
		}
	}
	// A page of a set is one slice from its first card's listing to its
	// last's (SetRun): each set's listings must follow one another in one
	// chunk, a comma between.
	for i := range gs.sets {
		s := &gs.sets[i]
		for r := s.first + 1; r < s.end; r++ {
			p, e := &gs.cards[r-1], &gs.cards[r]
			if end := uint64(p.parts.off) + uint64(p.parts.n); e.chunk != p.chunk || uint64(e.parts.off) != end+1 || gs.chunks[p.chunk][end] != ',' {
				return fmt.Errorf("set %d: card %d's listing does not follow card %d's", i, r, r-1)
			}
		}
	}
	ix := &gs.index
	if !offsets(ix.nameOff, n, len(ix.names)) || !offsets(ix.numOff, n, len(ix.nums)) {
		return fmt.Errorf("name or number offsets out of range")
	}
	ntoks := uint32(max(len(ix.tokOff)-1, 0))
	if !offsets(ix.tokOff, ntoks, len(ix.toks)) || !offsets(ix.postOff, ntoks+uint32(len(ix.gramKeys)), len(ix.post)) {
		return fmt.Errorf("token or posting list offsets out of range")
	}
	if len(ix.sufAt) != len(ix.sufTok) {
		return fmt.Errorf("%d suffixes with %d tokens", len(ix.sufAt), len(ix.sufTok))
	}
	for i, t := range ix.sufTok {
		if t >= ntoks || ix.sufAt[i] < ix.tokOff[t] || ix.sufAt[i] >= ix.tokOff[t+1] {
			return fmt.Errorf("suffix %d out of its token", i)
		}
	}
	if !refsBelow(ix.post, n) || !refsBelow(ix.byName, n) || !refsBelow(ix.byNum, n) || len(ix.byName) != int(n) || len(ix.byNum) > int(n) {
		return fmt.Errorf("search references out of range")
	}
	for _, h := range []*prefixHeads{&ix.nameHeads, &ix.numHeads} {
		if !refsBelow(h.refs, n) {
			return fmt.Errorf("prefix heads out of range")
		}
		for k, off := range h.at {
			lo, hi := k>>32, k&(1<<32-1)
			if lo > hi || uint64(off)+min(hi-lo, headLen) > uint64(len(h.refs)) {
				return fmt.Errorf("prefix head at %d of %d", off, len(h.refs))
			}
		}
	}
	d := &ix.dense
	if d.words != int(n+63)/64 {
		return fmt.Errorf("bitsets of %d words for %d cards", d.words, n)
	}
	for k, off := range d.at {
		if int(k)+1 >= len(ix.postOff) || uint64(off)+uint64(d.words) > uint64(len(d.bits)) {
			return fmt.Errorf("bitset of list %d out of range", k)
		}
	}
	return nil
}

// pacedCards is how many cards (or keys) a loop over them handles between
// two steps of its Pacer: a few microseconds of work.
const pacedCards = 256

// offsets reports whether off is n+1 ascending offsets from 0 to size.
func offsets(off []uint32, n uint32, size int) bool {
	if len(off) != int(n)+1 || off[0] != 0 || int(off[n]) != size {
		return false
	}
	return slices.IsSortedFunc(off, cmp.Compare[uint32])
}

func refsBelow(refs []uint32, n uint32) bool {
	for _, r := range refs {
		if r >= n {
			return false
		}
	}
	return true
}

// checkRecord reports whether s starts with a whole record (see
// snapshot_record.go) whose finish names and times exist.
func (gs *GameSnapshot) checkRecord(s string) bool {
	uv := func() (uint64, bool) {
		var v uint64
		for i := 0; i < len(s) && i < binary.MaxVarintLen64; i++ {
			c := s[i]
			v |= uint64(c&0x7f) << (7 * i)
			if c < 0x80 {
				s = s[i+1:]
				return v, true
			}
		}
		return 0, false
	}
	skip := func(n uint64) bool {
		if n > uint64(len(s)) {
			return false
		}
		s = s[n:]
		return true
	}
	text := func() bool {
		n, ok := uv()
		return ok && skip(n)
	}
	if len(s) == 0 {
		return false
	}
	kind := s[0]
	s = s[1:]
	switch kind {
	case idTCG:
		if !skip(8) {
			return false
		}
	case idCM:
		if !skip(CMLen / 2) {
			return false
		}
	case idText:
		if !text() {
			return false
		}
	default:
		return false
	}
	name, number := text(), text() // each call consumes one field
	if !name || !number || len(s) == 0 {
		return false
	}
	switch pt := s[0]; {
	case pt == typeText:
		s = s[1:]
		if !text() {
			return false
		}
	case pt <= typeSealed:
		s = s[1:]
	default:
		return false
	}
	for _, amounts := range []int{5, 6} { // TCGplayer, Cardmarket
		finishes, ok := uv()
		if !ok || finishes > uint64(len(s)) {
			return false
		}
		for range finishes {
			name, ok := uv()
			if !ok || name >= uint64(len(gs.finishNames)) || len(s) == 0 {
				return false
			}
			present := s[0]
			s = s[1:]
			if present>>amounts != 0 {
				return false
			}
			for i := range amounts {
				if present&(1<<i) != 0 {
					if _, ok := uv(); !ok {
						return false
					}
				}
			}
			if t, ok := uv(); !ok || t >= uint64(len(gs.times)) {
				return false
			}
		}
	}
	return true
}
