package catalog

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/cardcat/cardcat/internal/pace"
)

// searchIndex answers searches without scanning the names: the folded names
// and card numbers in flat arenas; the words of the names (tokens: the
// space-separated pieces of a folded name), each distinct one once, with a
// posting list of the cards whose name has it; every suffix of every token,
// sorted, so that the tokens holding a query word are one range of them;
// a posting list of every 3-byte gram inside a token; and the refs sorted
// by folded name and by folded number for prefix and exact matches. Every
// list holds CardRefs in ascending order, which is the order of newer sets
// first.
//
// A query word holds no space, so it occurs in a folded name exactly when
// it occurs inside one of the name's tokens: the cards matching a word are
// the union of the posting lists of the tokens holding it, and no name has
// to be read to know it. A short word such as "son" is inside many tokens
// ("mason", "sonic", "season"); for a word of 3 bytes its gram's list is
// that union, made at build.
type searchIndex struct {
	names   string   // folded names, back to back
	nameOff []uint32 // name of ref i = names[nameOff[i]:nameOff[i+1]]
	nums    string   // folded card numbers, back to back ("" for none)
	numOff  []uint32

	toks   string   // the distinct tokens, back to back, in byte order
	tokOff []uint32 // token t = toks[tokOff[t]:tokOff[t+1]]
	// Posting lists: list k = post[postOff[k]:postOff[k+1]]. Lists 0 to
	// len(tokOff)-2 are the tokens'; then one per 3-byte gram, in the
	// order of gramKeys.
	postOff  []uint32
	post     []uint32
	gramKeys []uint32 // the grams' keys (gramKey), ascending
	// The suffixes of the tokens that start on a rune, sorted by their
	// bytes up to their token's end (ties by token): suffix i starts at
	// toks[sufAt[i]] and belongs to token sufTok[i].
	sufAt  []uint32
	sufTok []uint32

	byName []uint32 // refs sorted by (folded name, ref)
	byNum  []uint32 // refs with a number, sorted by (folded number, ref)

	// The keyPrefix of each key of byName, byNum and the suffixes, in their
	// order: a prefix range is found in them (prefixRange). Derived.
	namePfx, numPfx, sufPfx sortedPrefixes

	// Derived at build time for speed only (see search_heads.go and
	// search_dense.go): the smallest refs of the long prefix ranges of
	// byName (names longer than the prefix) and byNum, and bitsets of the
	// longest posting lists.
	nameHeads, numHeads prefixHeads
	dense               denseLists
	blocks              blockLists // made by derive, not stored (search_blocks.go)

	// wideWord is the most tokens a query word may be found in for its
	// posting lists to be used; a word in more (a letter or two, such as
	// "e") is checked on the names instead. Not stored: set by build and
	// by the snapshot's decoder (tests lower it).
	wideWord int
}

// defaultWideWord: a word found in more tokens than this is checked on the
// names (a union of more lists would cost more than reading the names of
// the candidates that the other words leave).
const defaultWideWord = 64

func (ix *searchIndex) name(r uint32) string {
	return ix.names[ix.nameOff[r]:ix.nameOff[r+1]]
}

func (ix *searchIndex) num(r uint32) string {
	return ix.nums[ix.numOff[r]:ix.numOff[r+1]]
}

// list returns posting list k.
func (ix *searchIndex) list(k uint32) []uint32 {
	return ix.post[ix.postOff[k]:ix.postOff[k+1]:ix.postOff[k+1]]
}

// tokens is the number of tokens (the first lists are theirs).
func (ix *searchIndex) tokens() uint32 { return uint32(max(len(ix.tokOff)-1, 0)) }

// gramList returns the number of the posting list of the 3-byte gram g,
// false when no token holds it.
func (ix *searchIndex) gramList(g string) (uint32, bool) {
	i, ok := slices.BinarySearch(ix.gramKeys, gramKey(g))
	return ix.tokens() + uint32(i), ok
}

// gramKey packs a 3-byte gram into a number, in the gram's byte order.
func gramKey(g string) uint32 { return uint32(g[0])<<16 | uint32(g[1])<<8 | uint32(g[2]) }

// suffix returns suffix i of the sorted suffixes.
func (ix *searchIndex) suffix(i int) string {
	return ix.toks[ix.sufAt[i]:ix.tokOff[ix.sufTok[i]+1]]
}

// suffixRange returns the bounds of the suffixes starting with w: their
// tokens are the tokens holding w.
func (ix *searchIndex) suffixRange(w string) (lo, hi int) {
	lo, _, hi = prefixRange(&ix.sufPfx, ix.suffix, w)
	return lo, hi
}

// derive makes the arrays derived from the others (not stored in the
// snapshot's binary form): the key prefixes of the sorted arrays, and the
// block maps of the tokens' lists (which need the lists' bitsets made),
// stepping p.
func (ix *searchIndex) derive(p *pace.Pacer) {
	ix.namePfx = keyPrefixes(len(ix.byName), func(i int) string { return ix.name(ix.byName[i]) }, p)
	ix.numPfx = keyPrefixes(len(ix.byNum), func(i int) string { return ix.num(ix.byNum[i]) }, p)
	ix.sufPfx = keyPrefixes(len(ix.sufAt), ix.suffix, p)
	n := max(len(ix.nameOff)-1, 0)
	ix.blocks = buildBlockLists(ix, n, defaultBlockBudget*n)
}

// bytes is the memory the index takes, roughly.
func (ix *searchIndex) bytes() int {
	return len(ix.names) + len(ix.nums) + len(ix.toks) + 4*(cap(ix.nameOff)+cap(ix.numOff)+cap(ix.tokOff)+
		cap(ix.postOff)+cap(ix.post)+cap(ix.gramKeys)+cap(ix.sufAt)+cap(ix.sufTok)+cap(ix.byName)+cap(ix.byNum)) +
		ix.namePfx.bytes() + ix.numPfx.bytes() + ix.sufPfx.bytes() + ix.extraBytes()
}

// extraBytes is the memory of the parts derived for speed only.
func (ix *searchIndex) extraBytes() int {
	return ix.nameHeads.bytes() + ix.numHeads.bytes() + ix.dense.bytes() + ix.blocks.bytes()
}

type indexBuilder struct {
	names, nums     []byte
	nameOff, numOff []uint32

	// Sizes of the parts derived for speed (defaults from newIndexBuilder;
	// tests lower them to reach those parts with small catalogues).
	headMin, headRefs    int // see buildPrefixHeads
	denseDiv, denseLists int // see buildDenseLists
	wideWord             int // see searchIndex.wideWord
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
		wideWord:   defaultWideWord,
	}
}

// add appends the next card's name and number; cards come in CardRef order.
func (b *indexBuilder) add(name, number string) {
	b.names = appendFolded(b.names, name)
	b.nameOff = append(b.nameOff, uint32(len(b.names)))
	b.nums = appendFolded(b.nums, number)
	b.numOff = append(b.numOff, uint32(len(b.nums)))
}

// forEachToken calls f with every space-separated token of the folded s.
func forEachToken(s string, f func(tok string)) {
	for len(s) > 0 {
		i := strings.IndexByte(s, ' ')
		if i < 0 {
			f(s)
			return
		}
		if i > 0 {
			f(s[:i])
		}
		s = s[i+1:]
	}
}

func (b *indexBuilder) build() searchIndex {
	ix := searchIndex{
		names:    string(b.names),
		nameOff:  b.nameOff,
		nums:     string(b.nums),
		numOff:   b.numOff,
		wideWord: b.wideWord,
	}
	n := uint32(len(b.nameOff) - 1)
	ix.buildTokens(n)

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
	ix.derive(nil)
	return ix
}

// buildTokens makes the tokens, their posting lists and their sorted
// suffixes from the names of refs 0..n-1.
func (ix *searchIndex) buildTokens(n uint32) {
	// First pass: number the tokens as they come, and keep each name's
	// token numbers (a token repeated in one name once).
	ids := map[string]uint32{}
	var first []string // token of each number
	named := make([]uint32, 0, len(ix.names)/5)
	namedOff := make([]uint32, 1, n+1)
	for r := uint32(0); r < n; r++ {
		start := len(named)
		forEachToken(ix.name(r), func(tok string) {
			id, ok := ids[tok]
			if !ok {
				id = uint32(len(first))
				ids[tok] = id
				first = append(first, tok)
			}
			if !slices.Contains(named[start:], id) {
				named = append(named, id)
			}
		})
		namedOff = append(namedOff, uint32(len(named)))
	}

	// Tokens in byte order; rank maps a first-pass number to its token.
	order := make([]uint32, len(first))
	for i := range order {
		order[i] = uint32(i)
	}
	slices.SortFunc(order, func(a, b uint32) int { return strings.Compare(first[a], first[b]) })
	rank := make([]uint32, len(first))
	var toks []byte
	ix.tokOff = make([]uint32, 1, len(first)+1)
	for t, id := range order {
		rank[id] = uint32(t)
		toks = append(toks, first[id]...)
		ix.tokOff = append(ix.tokOff, uint32(len(toks)))
	}
	ix.toks = string(toks)

	// The 3-byte grams of the tokens, numbered in key order.
	var keys []uint32
	for _, tok := range first {
		for j := 0; j+3 <= len(tok); j++ {
			keys = append(keys, gramKey(tok[j:]))
		}
	}
	slices.Sort(keys)
	ix.gramKeys = slices.Clip(slices.Compact(keys))
	grams := make([]uint32, 0, len(first)) // each token's grams' lists, by first-pass number
	gramsOff := make([]uint32, 1, len(first)+1)
	ntoks := uint32(len(first))
	for _, tok := range first {
		start := len(grams)
		for j := 0; j+3 <= len(tok); j++ {
			k, _ := slices.BinarySearch(ix.gramKeys, gramKey(tok[j:]))
			if !slices.Contains(grams[start:], ntoks+uint32(k)) {
				grams = append(grams, ntoks+uint32(k))
			}
		}
		gramsOff = append(gramsOff, uint32(len(grams)))
	}

	// Posting lists: count, then fill in ref order. A name holds a gram
	// once however many of its tokens hold it (last: the last ref counted).
	nlists := int(ntoks) + len(ix.gramKeys)
	ix.postOff = make([]uint32, nlists+1)
	last := make([]uint32, nlists)
	each := func(r uint32, f func(k uint32)) {
		for _, id := range named[namedOff[r]:namedOff[r+1]] {
			f(rank[id])
			for _, k := range grams[gramsOff[id]:gramsOff[id+1]] {
				if last[k] != r+1 {
					last[k] = r + 1
					f(k)
				}
			}
		}
	}
	for r := uint32(0); r < n; r++ {
		each(r, func(k uint32) { ix.postOff[k+1]++ })
	}
	for k := range nlists {
		ix.postOff[k+1] += ix.postOff[k]
	}
	ix.post = make([]uint32, ix.postOff[nlists])
	fill := slices.Clone(ix.postOff[:nlists])
	clear(last)
	for r := uint32(0); r < n; r++ {
		each(r, func(k uint32) {
			ix.post[fill[k]] = r
			fill[k]++
		})
	}

	// Suffixes: every rune start of every token (a query word starts on a
	// rune, so no suffix starting inside one can hold it).
	for t := range ntoks {
		for j := ix.tokOff[t]; j < ix.tokOff[t+1]; j++ {
			if utf8.RuneStart(ix.toks[j]) {
				ix.sufAt = append(ix.sufAt, j)
				ix.sufTok = append(ix.sufTok, t)
			}
		}
	}
	idx := make([]uint32, len(ix.sufAt))
	for i := range idx {
		idx[i] = uint32(i)
	}
	slices.SortFunc(idx, func(a, b uint32) int {
		return cmp.Or(strings.Compare(ix.suffix(int(a)), ix.suffix(int(b))), cmp.Compare(ix.sufTok[a], ix.sufTok[b]))
	})
	at, tok := make([]uint32, len(idx)), make([]uint32, len(idx))
	for i, k := range idx {
		at[i], tok[i] = ix.sufAt[k], ix.sufTok[k]
	}
	ix.sufAt, ix.sufTok = at, tok
}
