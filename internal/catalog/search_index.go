package catalog

import (
	"cmp"
	"slices"
	"strings"
)

// searchIndex answers searches without scanning the names: the folded names
// and card numbers in flat arenas, posting lists of card refs for every
// 1-, 2- and 3-byte gram inside a word of a folded name (a query word of n
// bytes looks up its grams of min(n, 3) bytes), and the refs sorted by
// folded name and by folded number for prefix and exact matches. Every list
// holds CardRefs in ascending order, which is the order of newer sets first.
type searchIndex struct {
	names   string   // folded names, back to back
	nameOff []uint32 // name of ref i = names[nameOff[i]:nameOff[i+1]]
	nums    string   // folded card numbers, back to back ("" for none)
	numOff  []uint32

	trigrams map[uint32]uint32 // 3-byte gram -> its list's number (from smallGrams on)
	postOff  []uint32          // list k = post[postOff[k]:postOff[k+1]]
	post     []uint32

	byName []uint32 // refs sorted by (folded name, ref)
	byNum  []uint32 // refs with a number, sorted by (folded number, ref)

	// Derived at build time for speed only (see search_heads.go and
	// search_dense.go): the smallest refs of the long prefix ranges of
	// byName (names longer than the prefix) and byNum, and bitsets of the
	// longest posting lists.
	nameHeads, numHeads prefixHeads
	dense               denseLists
}

// smallGrams is the number of 1- and 2-byte grams; their key is their list number.
const smallGrams = 1 << 16

// gram keys: 1 byte b0 -> b0; 2 bytes -> b0<<8|b1; 3 bytes -> b0<<16|b1<<8|b2.
// Folded text holds no NUL byte, so the three kinds never collide.
func gramKey(w string) uint32 {
	switch len(w) {
	case 1:
		return uint32(w[0])
	case 2:
		return uint32(w[0])<<8 | uint32(w[1])
	default:
		return uint32(w[0])<<16 | uint32(w[1])<<8 | uint32(w[2])
	}
}

func (ix *searchIndex) name(r uint32) string {
	return ix.names[ix.nameOff[r]:ix.nameOff[r+1]]
}

func (ix *searchIndex) num(r uint32) string {
	return ix.nums[ix.numOff[r]:ix.numOff[r+1]]
}

// list returns the posting list of a gram, nil when no name has it, and
// the list's number (meaningful only when the list is not empty).
func (ix *searchIndex) list(g string) ([]uint32, uint32) {
	k := gramKey(g)
	if len(g) == 3 {
		id, ok := ix.trigrams[k]
		if !ok {
			return nil, 0
		}
		k = id
	}
	if int(k)+1 >= len(ix.postOff) {
		return nil, 0
	}
	return ix.post[ix.postOff[k]:ix.postOff[k+1]], k
}

// bytes is the memory the index takes, roughly (maps at 16 bytes an entry).
func (ix *searchIndex) bytes() int {
	return len(ix.names) + len(ix.nums) + 4*(cap(ix.nameOff)+cap(ix.numOff)+cap(ix.postOff)+cap(ix.post)+
		cap(ix.byName)+cap(ix.byNum)) + 16*len(ix.trigrams) + ix.extraBytes()
}

// extraBytes is the memory of the parts derived for speed only.
func (ix *searchIndex) extraBytes() int {
	return ix.nameHeads.bytes() + ix.numHeads.bytes() + ix.dense.bytes()
}

type indexBuilder struct {
	names, nums     []byte
	nameOff, numOff []uint32

	// Sizes of the parts derived for speed (defaults from newIndexBuilder;
	// tests lower them to reach those parts with small catalogues).
	headMin, headRefs    int // see buildPrefixHeads
	denseDiv, denseLists int // see buildDenseLists
}

func newIndexBuilder(n int) *indexBuilder {
	return &indexBuilder{
		names:      make([]byte, 0, n*20),
		nameOff:    append(make([]uint32, 0, n+1), 0),
		numOff:     append(make([]uint32, 0, n+1), 0),
		headMin:    defaultHeadMin,
		headRefs:   defaultHeadBudget * n,
		denseDiv:   defaultDenseDiv,
		denseLists: defaultDenseBudget * 8,
	}
}

// add appends the next card's name and number; cards come in CardRef order.
func (b *indexBuilder) add(name, number string) {
	b.names = appendFolded(b.names, name)
	b.nameOff = append(b.nameOff, uint32(len(b.names)))
	b.nums = appendFolded(b.nums, number)
	b.numOff = append(b.numOff, uint32(len(b.nums)))
}

// forEachGram calls f with the key of every gram of every word of s.
func forEachGram(s string, f func(key uint32, n int)) {
	for len(s) > 0 {
		i := strings.IndexByte(s, ' ')
		w := s
		if i >= 0 {
			w, s = s[:i], s[i+1:]
		} else {
			s = ""
		}
		for j := 0; j < len(w); j++ {
			f(uint32(w[j]), 1)
			if j+1 < len(w) {
				f(uint32(w[j])<<8|uint32(w[j+1]), 2)
			}
			if j+2 < len(w) {
				f(uint32(w[j])<<16|uint32(w[j+1])<<8|uint32(w[j+2]), 3)
			}
		}
	}
}

func (b *indexBuilder) build() searchIndex {
	ix := searchIndex{
		names:    string(b.names),
		nameOff:  b.nameOff,
		nums:     string(b.nums),
		numOff:   b.numOff,
		trigrams: map[uint32]uint32{},
	}
	n := uint32(len(b.nameOff) - 1)

	// Two passes over the grams: count each list's length, then fill. A
	// gram repeated inside one name counts once (last[k] remembers the
	// last ref that counted it).
	counts := make([]uint32, smallGrams, smallGrams+1<<14)
	last := make([]uint32, smallGrams, smallGrams+1<<14)
	listOf := func(key uint32, size int) uint32 {
		if size < 3 {
			return key
		}
		id, ok := ix.trigrams[key]
		if !ok {
			id = uint32(len(counts))
			ix.trigrams[key] = id
			counts = append(counts, 0)
			last = append(last, 0)
		}
		return id
	}
	for r := uint32(0); r < n; r++ {
		forEachGram(ix.name(r), func(key uint32, size int) {
			k := listOf(key, size)
			if last[k] != r+1 {
				last[k] = r + 1
				counts[k]++
			}
		})
	}
	ix.postOff = make([]uint32, len(counts)+1)
	for k, c := range counts {
		ix.postOff[k+1] = ix.postOff[k] + c
	}
	ix.post = make([]uint32, ix.postOff[len(counts)])
	fill := counts // reused as each list's fill position
	copy(fill, ix.postOff[:len(counts)])
	clear(last)
	for r := uint32(0); r < n; r++ {
		forEachGram(ix.name(r), func(key uint32, size int) {
			k := listOf(key, size)
			if last[k] != r+1 {
				last[k] = r + 1
				ix.post[fill[k]] = r
				fill[k]++
			}
		})
	}

	ix.byName = make([]uint32, n)
	var withNum uint32
	for r := uint32(0); r < n; r++ {
		ix.byName[r] = r
		if ix.numOff[r+1] > ix.numOff[r] {
			withNum++
		}
	}
	slices.SortFunc(ix.byName, func(a, b uint32) int {
		if c := strings.Compare(ix.name(a), ix.name(b)); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	ix.byNum = make([]uint32, 0, withNum)
	for r := uint32(0); r < n; r++ {
		if ix.numOff[r+1] > ix.numOff[r] {
			ix.byNum = append(ix.byNum, r)
		}
	}
	slices.SortFunc(ix.byNum, func(a, b uint32) int {
		if c := strings.Compare(ix.num(a), ix.num(b)); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})

	ix.nameHeads = buildPrefixHeads(ix.byName, ix.name, true, b.headMin, b.headRefs)
	ix.numHeads = buildPrefixHeads(ix.byNum, ix.num, false, b.headMin, b.headRefs)
	ix.dense = buildDenseLists(&ix, int(n), b.denseDiv, b.denseLists)
	return ix
}
