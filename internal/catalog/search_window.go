package catalog

import (
	"math"
	"math/bits"
)

// Window ANDs. A query word is often inside a few tokens of the names
// ("trunks" in "trunks", "trunks,", "[trunks]", "trunkss"), and two such
// words of similar size ("xeno trunks": 2,382 and 4,257 refs at 1M cards)
// were intersected by walking the smaller and galloping in each list of
// the other, or, past maxCheckLists lists, by reading the names: 80-130 µs
// where the lists hold 7,000 refs. A window AND reads every list once: for
// a window of the ref space, each word's lists set the bits of their refs
// there (a list with a bitset gives its words), the words' bitmaps are
// ANDed and the bits left read out in order. It costs a load and a store a
// ref of all the words' lists, and a few word operations per 64 refs of
// the windows; matchWords takes it when that is less than the walk.

// windowAnd yields, ascending, the refs in one of the lists of every term.
type windowAnd struct {
	terms   []windowTerm
	acc, or []uint64 // the window's bitmaps: the AND so far, a term's OR
	n       uint32   // refs: every ref is below it
	next    uint32   // refs below next are read out
	done    bool
}

// windowTerm is a word's lists: those walked and those with a bitset.
type windowTerm struct {
	lists [][]uint32 // what is left of each walked list (empty ones dropped)
	bits  [][]uint64
}

// maxWindowWords bounds a window (of a union or an AND): 4,096 words,
// 262,144 refs.
const maxWindowWords = 4096

// windowWords is the length in words of a window over n refs that holds
// about a chunk of the sparse refs of a list or a union (an AND's window
// is sized for its shortest term, and holds fewer).
func windowWords(n, sparse int) int {
	return min(max(n/max(sparse, 1)*matchChunk/64, 1), maxWindowWords)
}

// take appends the refs of at least one more window, until k refs or the
// end; done says that none is left.
func (a *windowAnd) take(dst []uint32, k int) (_ []uint32, done bool) {
	start := len(dst)
	for !a.done && len(dst)-start < k {
		dst = a.window(dst)
	}
	return dst, a.done
}

// window reads out the AND of the next window. The window starts at the
// lowest ref every term may still hold: the highest of the walked terms'
// lowest refs left, so a stretch where one word has no ref costs nothing.
func (a *windowAnd) window(dst []uint32) []uint32 {
	lo := a.next
	for _, t := range a.terms {
		if len(t.bits) > 0 {
			continue // a bitset may hold any ref
		}
		m := uint32(math.MaxUint32)
		for _, l := range t.lists {
			m = min(m, l[0])
		}
		lo = max(lo, m)
	}
	lo &^= 63
	if lo >= a.n {
		a.done = true
		return dst
	}
	words := min(len(a.acc), int((a.n-lo+63)/64))
	acc := a.acc[:words]
	hi := uint64(lo) + 64*uint64(words)
	w0 := int(lo / 64)
	for i := range a.terms {
		t := &a.terms[i]
		m := acc // the first term's OR is the AND so far
		if i > 0 {
			m = a.or[:words]
			clear(m)
		}
		for _, b := range t.bits {
			b = b[w0 : w0+words]
			for j := range m {
				m[j] |= b[j]
			}
		}
		t.lists = markWindow(m, t.lists, lo, hi)
		if i > 0 {
			andInto(acc, m)
		}
		if len(t.lists) == 0 && len(t.bits) == 0 {
			a.done = true // no ref past this window holds the word
		}
	}
	dst = readWindow(dst, acc, lo)
	if hi >= uint64(a.n) {
		a.done = true
	}
	a.next = uint32(min(hi, uint64(a.n)))
	return dst
}

// markWindow sets in m, the bitmap of the window of refs [lo, hi), the bits
// of the lists' refs there (refs below lo are skipped: below the window's
// start no other term has a ref), and returns what is left of each list
// past the window, the ones used up dropped, in lists' own memory.
func markWindow(m []uint64, lists [][]uint32, lo uint32, hi uint64) [][]uint32 {
	kept := lists[:0]
	for _, l := range lists {
		j := 0
		if l[0] < lo {
			j = gallop(l, 0, lo)
		}
		for ; j < len(l) && uint64(l[j]) < hi; j++ {
			r := l[j] - lo
			m[r>>6] |= 1 << (r & 63)
		}
		if j < len(l) {
			kept = append(kept, l[j:])
		}
	}
	clear(lists[len(kept):])
	return kept
}

// readWindow appends the refs of the bits set in m, the bitmap of a window
// starting at ref lo, ascending, and clears m for the next window.
func readWindow(dst []uint32, m []uint64, lo uint32) []uint32 {
	for j, x := range m {
		for ; x != 0; x &= x - 1 {
			dst = append(dst, lo+uint32(j)<<6|uint32(bits.TrailingZeros64(x)))
		}
		m[j] = 0
	}
	return dst
}
