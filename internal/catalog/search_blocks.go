package catalog

import (
	"cmp"
	"slices"
)

// Block maps. A query of two frequent words ("patrol tenth") intersects two
// posting lists of about 1% of the cards each, whose common refs are a
// hundredth of either: walking one and galloping in the other costs a
// step per ref of both (at 1M cards ~100 µs), and a full bitset per list
// (search_dense.go) costs n/8 bytes, too much to give to every frequent
// token. A block map of a list is a bitmap of the blocks of 4 refs that hold
// one of its refs (n/32 bytes) and the list's position at every group of
// 256 refs (one word of the bitmap): the AND of the words' maps, 64 blocks
// a load, leaves about one group in ten, and in each the few refs of the
// lists are compared. Made from the posting lists at build and when a
// snapshot is read (derive); not stored.

const (
	blockShift = 2 // a block holds 1<<blockShift refs
	groupShift = 8 // a group, one word of a block map, 64 blocks
)

// defaultBlockBudget is the most bytes per card that block maps take in all.
const defaultBlockBudget = 9

// blockLists holds the block maps of the posting lists that query words are
// most likely to be: the tokens' (a 3-byte token's gram's), longest first.
type blockLists struct {
	groups int               // words per bitmap: groups of 256 refs
	at     map[uint32]uint32 // list number -> its map's number i
	bits   []uint64          // map i's bitmap: bits[i*groups:][:groups]
	// The position in the list of its first ref at or after group g is
	// base[i*bases+g>>6] + pos[i*(groups+1)+g], for g in [0, groups]; 64
	// groups hold at most 16,384 refs, so the offset fits 16 bits.
	pos  []uint16
	base []uint32
}

// bases is the number of base entries per map.
func (b *blockLists) bases() int { return b.groups>>6 + 1 }

// blockList is one list's block map with the list.
type blockList struct {
	bits []uint64
	pos  []uint16
	base []uint32
	list []uint32
}

// get returns list k's block map, false when it has none.
func (b *blockLists) get(ix *searchIndex, k uint32) (blockList, bool) {
	i, ok := b.at[k]
	if !ok {
		return blockList{}, false
	}
	g, nb := b.groups, b.bases()
	return blockList{
		bits: b.bits[int(i)*g : int(i+1)*g : int(i+1)*g],
		pos:  b.pos[int(i)*(g+1) : int(i+1)*(g+1) : int(i+1)*(g+1)],
		base: b.base[int(i)*nb : int(i+1)*nb : int(i+1)*nb],
		list: ix.list(k),
	}, true
}

// group returns the list's refs in group g.
func (l *blockList) group(g int) []uint32 {
	lo := l.base[g>>6] + uint32(l.pos[g])
	hi := l.base[(g+1)>>6] + uint32(l.pos[g+1])
	return l.list[lo:hi]
}

// buildBlockLists makes block maps, within budget bytes, of the lists of
// ix's tokens (for a 3-byte token, its gram's list, which a query word of 3
// bytes uses) that hold at least one ref per group on average (a shorter
// list is walked as cheaply as the maps are ANDed), those without a bitset
// first. ix.dense must be made.
func buildBlockLists(ix *searchIndex, n, budget int) blockLists {
	b := blockLists{groups: (n + 1<<groupShift - 1) >> groupShift}
	per := 8*b.groups + 2*(b.groups+1) + 4*b.bases()
	if n == 0 || per > budget {
		return b
	}
	size := func(k uint32) int { return int(ix.postOff[k+1] - ix.postOff[k]) }
	var chosen []uint32
	for t := range ix.tokens() {
		k := t
		if tok := ix.toks[ix.tokOff[t]:ix.tokOff[t+1]]; len(tok) == 3 {
			var ok bool
			if k, ok = ix.gramList(tok); !ok {
				continue
			}
		}
		if size(k) >= max(b.groups, 64) {
			chosen = append(chosen, k)
		}
	}
	// A list with a bitset is checked by it, a load a ref; it needs a map
	// only as one of a word's several lists ("river" is in "river" and
	// "screwdriver"), so those come last.
	dense := func(k uint32) int { return b2i(ix.dense.bitset(k) != nil) }
	slices.SortFunc(chosen, func(a, c uint32) int {
		return cmp.Or(cmp.Compare(dense(a), dense(c)), cmp.Compare(size(c), size(a)), cmp.Compare(a, c))
	})
	chosen = slices.Compact(chosen)
	chosen = chosen[:min(len(chosen), budget/per)]
	if len(chosen) == 0 {
		return b
	}
	nb := b.bases()
	b.at = make(map[uint32]uint32, len(chosen))
	b.bits = make([]uint64, len(chosen)*b.groups)
	b.pos = make([]uint16, len(chosen)*(b.groups+1))
	b.base = make([]uint32, len(chosen)*nb)
	for i, k := range chosen {
		b.at[k] = uint32(i)
		bits := b.bits[i*b.groups : (i+1)*b.groups]
		pos := b.pos[i*(b.groups+1) : (i+1)*(b.groups+1)]
		base := b.base[i*nb : (i+1)*nb]
		list := ix.list(k)
		p := 0
		for g := 0; g <= b.groups; g++ {
			for p < len(list) && int(list[p]>>groupShift) < g {
				p++
			}
			if g&63 == 0 {
				base[g>>6] = uint32(p)
			}
			pos[g] = uint16(uint32(p) - base[g>>6])
		}
		for _, r := range list {
			bits[r>>groupShift] |= 1 << (r >> blockShift & 63)
		}
	}
	return b
}

// bytes is the memory the block maps take, roughly.
func (b *blockLists) bytes() int {
	return 8*cap(b.bits) + 2*cap(b.pos) + 4*cap(b.base) + 16*len(b.at)*2
}

// blockAnd yields, ascending, the refs in one of the lists of every term
// (a query word: the lists of the tokens holding it) by their block maps.
type blockAnd struct {
	terms  [][]blockList
	next   int // next group
	groups int
	acc    []uint64 // scratch: the AND of a run of groups
	or     []uint64 // scratch: the OR of a term's maps
}

// blockRun is how many groups take ANDs at a time (the search looks at its
// stop between runs): 512 groups, 131,072 refs.
const blockRun = 512

func newBlockAnd(terms [][]blockList, groups int) *blockAnd {
	return &blockAnd{terms: terms, groups: groups}
}

// take appends the refs of at least one more run, until k refs or the end
// are reached; done says that none is left.
func (b *blockAnd) take(dst []uint32, k int) (_ []uint32, done bool) {
	start := len(dst)
	for b.next < b.groups && len(dst)-start < k {
		end := min(b.next+blockRun, b.groups)
		if len(b.terms) == 2 && len(b.terms[0]) == 1 && len(b.terms[1]) == 1 {
			// Two words of one list each, the most common: no pass to
			// keep the AND.
			x, y := b.terms[0][0].bits[b.next:end], b.terms[1][0].bits[b.next:end]
			y = y[:len(x)]
			for i := range x {
				if w := x[i] & y[i]; w != 0 {
					dst = b.appendGroup(dst, b.next+i, w)
				}
			}
			b.next = end
			continue
		}
		if b.acc == nil {
			b.acc = make([]uint64, blockRun)
		}
		acc := b.acc[:end-b.next]
		b.termMap(acc, b.terms[0], b.next, end)
		for _, t := range b.terms[1:] {
			if len(t) == 1 {
				andInto(acc, t[0].bits[b.next:end])
				continue
			}
			if b.or == nil {
				b.or = make([]uint64, blockRun)
			}
			or := b.or[:len(acc)]
			b.termMap(or, t, b.next, end)
			andInto(acc, or)
		}
		for i, x := range acc {
			if x != 0 {
				dst = b.appendGroup(dst, b.next+i, x)
			}
		}
		b.next = end
	}
	return dst, b.next == b.groups
}

// termMap sets dst to the OR of term t's maps over groups [from, to).
func (b *blockAnd) termMap(dst []uint64, t []blockList, from, to int) {
	copy(dst, t[0].bits[from:to])
	for _, l := range t[1:] {
		src := l.bits[from:to]
		for i := range dst {
			dst[i] |= src[i]
		}
	}
}

func andInto(dst, src []uint64) {
	src = src[:len(dst)]
	for i := range dst {
		dst[i] &= src[i]
	}
}

// appendGroup appends the refs of group g, ascending, that are in every
// term; x is the AND of the terms' maps over the group's blocks.
func (b *blockAnd) appendGroup(dst []uint32, g int, x uint64) []uint32 {
	start := len(dst)
	first := b.terms[0]
	if len(b.terms) == 2 && len(first) == 1 && len(b.terms[1]) == 1 {
		// Two words of one list each: merge the group's refs.
		l, o := first[0].group(g), b.terms[1][0].group(g)
		j := 0
		for _, r := range l {
			if x>>(r>>blockShift&63)&1 == 0 {
				continue
			}
			for j < len(o) && o[j] < r {
				j++
			}
			if j == len(o) {
				break
			}
			if o[j] == r {
				dst = append(dst, r)
			}
		}
		return dst
	}
	for i := range first {
		for _, r := range first[i].group(g) {
			if x>>(r>>blockShift&63)&1 != 0 {
				dst = append(dst, r)
			}
		}
	}
	if len(first) > 1 {
		slices.Sort(dst[start:])
		dst = dst[:start+len(slices.Compact(dst[start:]))]
	}
	for _, t := range b.terms[1:] {
		if len(dst) == start {
			break
		}
		var groups [maxCheckLists][]uint32
		for i := range t {
			groups[i] = t[i].group(g)
		}
		k := start
		for _, r := range dst[start:] {
			in := false
			for _, l := range groups[:len(t)] {
				if slices.Contains(l, r) {
					in = true
					break
				}
			}
			dst[k] = r
			k += b2i(in)
		}
		dst = dst[:k]
	}
	return dst
}
