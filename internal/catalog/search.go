package catalog

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"unicode/utf8"
)

// MaxSearchMatches is the most matches one search returns; more set Truncated.
const MaxSearchMatches = 1000

// SearchResult is the outcome of a search: the matching cards in answer
// order, whether more matched than were returned, and how many of the
// returned cards each marketplace has.
type SearchResult struct {
	Cards     []CardRef
	Truncated bool
	Counts    SourceCounts
}

// SourceCounts counts cards by the marketplaces that have them.
type SourceCounts struct {
	TCG     int // with a TCGplayer product
	CM      int // with a Cardmarket product
	TCGOnly int
	CMOnly  int
	Both    int
}

// Search finds the game's cards that match q. The rules, on the folded forms
// of q and of the names (see Fold):
//
//   - every word of q occurs in the name, anywhere and in any order;
//   - or q equals or prefixes the card number;
//   - a q of fewer than 3 characters matches only names and card numbers
//     that start with it.
//
// Order: names equal to q, then names starting with q, then the rest; within
// each group newer sets first, then the sets' listing order. At most
// MaxSearchMatches cards are returned. Search stops with ctx's error when ctx
// ends first.
func (g *GameSnapshot) Search(ctx context.Context, q string) (SearchResult, error) {
	if err := ctx.Err(); err != nil {
		return SearchResult{}, err
	}
	refs, truncated, err := g.index.search(ctx, Fold(q), MaxSearchMatches)
	if err != nil {
		return SearchResult{}, err
	}
	res := SearchResult{Cards: make([]CardRef, len(refs)), Truncated: truncated}
	for i, r := range refs {
		res.Cards[i] = CardRef(r)
		tcg := g.cards[r].flags&flagTCG != 0
		cm := g.cards[r].flags&flagCM != 0
		switch {
		case tcg && cm:
			res.Counts.Both++
		case tcg:
			res.Counts.TCGOnly++
		case cm:
			res.Counts.CMOnly++
		}
	}
	res.Counts.TCG = res.Counts.TCGOnly + res.Counts.Both
	res.Counts.CM = res.Counts.CMOnly + res.Counts.Both
	return res, nil
}

// search returns up to max refs matching the folded query qn, and whether
// more matched.
func (ix *searchIndex) search(ctx context.Context, qn string, max int) ([]uint32, bool, error) {
	if qn == "" {
		return nil, false, nil
	}
	// Names equal to qn and names starting with it are ranges of byName.
	lo, ex, hi := ix.nameRange(qn)
	exact, prefixed := ix.byName[lo:ex], ix.byName[ex:hi]
	out := make([]uint32, 0, min(max, hi-lo)+16)
	if len(exact) > max {
		return append(out, exact[:max]...), true, nil
	}
	out = append(out, exact...)
	need := max - len(out)
	if len(prefixed) > need {
		return ix.nameHeads.appendSmallest(out, ix.byName, ex, hi, need), true, nil
	}
	out = appendSmallest(out, prefixed, len(prefixed))
	need -= len(prefixed)

	// The rest: card numbers starting with qn, and (for 3 characters or
	// more) names holding every word, minus the names already taken. Take
	// enough numbers that dropping the taken ones still leaves need+1.
	// The names taken are out, at most max of them: a sorted copy tells
	// whether a ref is one of them without reading its name (a cache miss
	// per ref in a large catalogue).
	taken := out
	if len(exact) > 0 && len(prefixed) > 0 {
		taken = mergeSorted(out[:len(exact)], out[len(exact):])
	}
	startsWithQ := func(r uint32) bool {
		_, found := slices.BinarySearch(taken, r)
		return found
	}
	nlo, nhi := ix.numRange(qn)
	nums := ix.numHeads.appendSmallest(nil, ix.byNum, nlo, nhi, need+1+hi-lo)
	nums = slices.DeleteFunc(nums, startsWithQ)
	var words *wordMatcher
	if utf8.RuneCountInString(qn) >= 3 {
		words = ix.matchWords(qn)
	}
	nextWord := func() (uint32, bool, error) {
		for words != nil {
			r, ok, err := words.next(ctx)
			if err != nil || !ok {
				return 0, false, err
			}
			if !startsWithQ(r) {
				return r, true, nil
			}
		}
		return 0, false, nil
	}
	w, wok, err := nextWord()
	if err != nil {
		return nil, false, err
	}
	rest := 0
	for rest <= need && (len(nums) > 0 || wok) {
		var r uint32
		switch {
		case wok && (len(nums) == 0 || w < nums[0]):
			r = w
			w, wok, err = nextWord()
		case wok && w == nums[0]:
			r = w
			nums = nums[1:]
			w, wok, err = nextWord()
		default:
			r = nums[0]
			nums = nums[1:]
		}
		if err != nil {
			return nil, false, err
		}
		out = append(out, r)
		rest++
	}
	if rest > need {
		return out[:max], true, nil
	}
	return out, false, nil
}

// mergeSorted returns the ascending merge of two ascending lists.
func mergeSorted(a, b []uint32) []uint32 {
	m := make([]uint32, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if a[0] <= b[0] {
			m, a = append(m, a[0]), a[1:]
		} else {
			m, b = append(m, b[0]), b[1:]
		}
	}
	m = append(m, a...)
	return append(m, b...)
}

// nameRange returns the bounds in byName of the names equal to qn [lo, ex)
// and starting with qn but longer [ex, hi).
func (ix *searchIndex) nameRange(qn string) (lo, ex, hi int) {
	return prefixRange(ix.byName, ix.name, qn)
}

// numRange returns the bounds in byNum of the numbers starting with qn.
func (ix *searchIndex) numRange(qn string) (lo, hi int) {
	lo, _, hi = prefixRange(ix.byNum, ix.num, qn)
	return lo, hi
}

func prefixRange(sorted []uint32, key func(uint32) string, p string) (lo, ex, hi int) {
	n := len(sorted)
	lo = searchFirst(n, func(i int) bool { return key(sorted[i]) >= p })
	ex = lo + searchFirst(n-lo, func(i int) bool { return key(sorted[lo+i]) != p })
	hi = ex + searchFirst(n-ex, func(i int) bool { return !strings.HasPrefix(key(sorted[ex+i]), p) })
	return lo, ex, hi
}

// searchFirst returns the first i in [0, n) for which f is true (n if none);
// f must be false then true.
func searchFirst(n int, f func(int) bool) int {
	i, j := 0, n
	for i < j {
		h := int(uint(i+j) >> 1)
		if !f(h) {
			i = h + 1
		} else {
			j = h
		}
	}
	return i
}

// appendSmallest appends the k smallest values of src to dst, ascending.
// It selects with a bounded max-heap, so a long src costs one pass.
func appendSmallest(dst, src []uint32, k int) []uint32 {
	if k <= 0 {
		return dst
	}
	if k >= len(src) {
		start := len(dst)
		dst = append(dst, src...)
		slices.Sort(dst[start:])
		return dst
	}
	h := make([]uint32, k)
	copy(h, src[:k])
	for i := k/2 - 1; i >= 0; i-- {
		siftDown(h, i)
	}
	for _, v := range src[k:] {
		if v < h[0] {
			h[0] = v
			siftDown(h, 0)
		}
	}
	slices.Sort(h)
	return append(dst, h...)
}

func siftDown(h []uint32, i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && h[r] > h[l] {
			m = r
		}
		if h[i] >= h[m] {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// wordMatcher yields, in ascending order, the refs whose name holds every
// word: it walks the shortest posting list of the words' grams, a chunk at
// a time, keeps the refs that the dense lists' bitsets and the other lists
// (galloping) hold, and checks the surviving names when a word is longer
// than 3 bytes (for shorter words the lists are the answer; for longer
// ones the lists are only a filter, so the least useful are left out).
type wordMatcher struct {
	ix     *searchIndex
	words  []string
	drive  []uint32    // the shortest list, walked
	at     int         // position in drive
	checks []gramCheck // the other lists, the most telling first
	cand   []uint32    // refs of drive that passed every check, to verify
	candAt int
	// touched keeps the loads of touchNames from being optimized away.
	touched byte
	// verify is set when a word is longer than a gram, so that holding
	// all its grams does not prove that a name holds the word.
	verify bool
}

// gramCheck tells whether a ref is in a posting list: by the list's bitset
// when it has one, else by galloping on from the last position.
type gramCheck struct {
	bits []uint64
	list []uint32
	pos  int
}

func (ix *searchIndex) matchWords(qn string) *wordMatcher {
	m := &wordMatcher{ix: ix}
	type gramList struct {
		l    []uint32
		id   uint32
		word int
	}
	var all []gramList
	add := func(g string) {
		l, id := ix.list(g)
		if len(l) > 0 && slices.ContainsFunc(all, func(o gramList) bool { return len(o.l) > 0 && o.id == id }) {
			return // a gram repeated in the query
		}
		all = append(all, gramList{l, id, len(m.words) - 1})
	}
	for _, w := range strings.Split(qn, " ") {
		if w == "" || slices.Contains(m.words, w) {
			continue
		}
		m.words = append(m.words, w)
		m.verify = m.verify || len(w) > 3
		if len(w) < 3 {
			add(w)
			continue
		}
		for i := 0; i+3 <= len(w); i++ {
			add(w[i : i+3])
		}
	}
	if len(all) == 0 {
		return m
	}
	// Walk the shortest list. The grams of the walked list's own word
	// mostly come together with it (every gram of "gohan" is in the same
	// names), so the other words' lists, shortest first, reject sooner.
	slices.SortStableFunc(all, func(a, b gramList) int { return len(a.l) - len(b.l) })
	m.drive = all[0].l
	if len(m.drive) == 0 {
		return m // a gram no name holds
	}
	rest := all[1:]
	slices.SortStableFunc(rest, func(a, b gramList) int {
		return cmp.Compare(b2i(a.word == all[0].word), b2i(b.word == all[0].word))
	})
	// When the names are verified, the lists only spare verifications:
	// past the two shortest lists of a word, a gram adds little (the
	// names holding two grams of a word mostly hold the word) and a list
	// without a bitset costs a gallop per ref, so it is left out.
	galloped := make([]int, len(m.words))
	galloped[all[0].word]++
	for _, g := range rest {
		c := gramCheck{bits: ix.dense.bitset(g.id), list: g.l}
		if c.bits == nil {
			if m.verify && galloped[g.word] >= 2 {
				continue
			}
			galloped[g.word]++
		}
		m.checks = append(m.checks, c)
	}
	return m
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// matchChunk is how many refs of the walked list the matcher takes at a
// time: it runs each check over the whole chunk in a tight loop, which
// costs less per ref than taking every check for each ref, and it looks at
// ctx once a chunk.
const matchChunk = 256

func (m *wordMatcher) next(ctx context.Context) (uint32, bool, error) {
	for {
		for m.candAt < len(m.cand) {
			r := m.cand[m.candAt]
			m.candAt++
			if !m.verify || containsAll(m.ix.name(r), m.words) {
				return r, true, nil
			}
		}
		if m.at >= len(m.drive) {
			return 0, false, nil
		}
		if err := ctx.Err(); err != nil {
			return 0, false, err
		}
		end := min(m.at+matchChunk, len(m.drive))
		cand := append(m.cand[:0], m.drive[m.at:end]...)
		m.at = end
		for i := range m.checks {
			c := &m.checks[i]
			cand = c.filter(cand)
			if c.bits == nil && c.pos == len(c.list) {
				m.at = len(m.drive) // no later ref is in this list
			}
			if len(cand) == 0 {
				break
			}
		}
		m.cand, m.candAt = cand, 0
		if m.verify {
			m.touchNames(cand)
		}
	}
}

// touchNames reads the first byte of the name of every ref before the
// names are verified one by one. In a large catalogue each name is a cache
// miss (two: its offset, then its bytes); these loads do not depend on one
// another, so the CPU overlaps them, where the verification would wait for
// one miss after the other. At 1M cards it took a third off queries such
// as "hidden (alternate art)" that verify about 1,000 names.
func (m *wordMatcher) touchNames(refs []uint32) {
	ix := m.ix
	var sum byte
	for _, r := range refs {
		if off := ix.nameOff[r]; int(off) < len(ix.names) {
			sum += ix.names[off]
		}
	}
	m.touched += sum
}

// filter keeps the refs of cand, ascending, that are in the check's list.
func (c *gramCheck) filter(cand []uint32) []uint32 {
	k := 0
	if b := c.bits; b != nil {
		for _, r := range cand {
			cand[k] = r
			k += int(b[r>>6] >> (r & 63) & 1)
		}
		return cand[:k]
	}
	l, p := c.list, c.pos
	for _, r := range cand {
		if p = gallop(l, p, r); p == len(l) {
			break
		}
		if l[p] == r {
			cand[k] = r
			k++
		}
	}
	c.pos = p
	return cand[:k]
}

// gallop returns the first position at or after from where l[p] >= v.
// In an intersection that position is most often a few entries on, so it
// looks at the next entries one by one before it doubles its steps and
// bisects.
func gallop(l []uint32, from int, v uint32) int {
	n := len(l)
	if from+8 <= n {
		// Count without branching: l is ascending, so the count of
		// entries below v is the offset of the first one at or above it,
		// and a count that varies from call to call costs no mispredicted
		// branch.
		k := 0
		for _, x := range l[from : from+8] {
			if x < v {
				k++
			}
		}
		if k < 8 {
			return from + k
		}
		from += 8
	} else {
		for ; from < n; from++ {
			if l[from] >= v {
				return from
			}
		}
		return n
	}
	// l[lo] < v, and l[hi] >= v or hi == n.
	lo, step := from-1, 8
	for lo+step < n && l[lo+step] < v {
		lo += step
		step *= 2
	}
	hi := min(lo+step, n)
	for lo+1 < hi {
		m := int(uint(lo+hi) >> 1)
		if l[m] < v {
			lo = m
		} else {
			hi = m
		}
	}
	return hi
}
