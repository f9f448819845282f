package catalog

import (
	"cmp"
	"context"
	"encoding/binary"
	"math/bits"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/cardcat/cardcat/internal/pace"
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

	buf *searchBuf // the memory of Cards, reused after Release
}

// Release gives the result's memory back for another search to reuse;
// Cards must not be used after it. A result never released is collected
// as any other memory.
func (r *SearchResult) Release() {
	if r.buf != nil {
		r.buf.release()
		r.buf, r.Cards = nil, nil
	}
}

// searchBuf is the memory of one search: its answer, and the working
// lists that the next search through the pool reuses.
type searchBuf struct {
	out, nums, taken []uint32
	words            wordMatcher
}

var searchBufs = sync.Pool{New: func() any { return new(searchBuf) }}

func getSearchBuf() *searchBuf { return searchBufs.Get().(*searchBuf) }

// maxKeptRefs bounds the refs a pooled buffer keeps: a matcher's batch
// can take a run of block maps' refs far past a chunk.
const maxKeptRefs = 1 << 16

func (b *searchBuf) release() {
	if cap(b.words.cand) > maxKeptRefs {
		b.words.cand = nil
	}
	b.words = wordMatcher{cand: b.words.cand[:0], win: b.words.win, or: b.words.or} // drops the index and lists
	searchBufs.Put(b)
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
	return g.SearchBefore(ctx, q, time.Time{})
}

// SearchBefore is Search that also stops, with context.DeadlineExceeded,
// once the clock passes deadline (the zero time: never). It is a timeout
// without context.WithTimeout's timer, which was 0.65 µs of a 39 µs search
// at the wire.
func (g *GameSnapshot) SearchBefore(ctx context.Context, q string, deadline time.Time) (SearchResult, error) {
	st := stop{ctx, deadline}
	if err := st.err(); err != nil {
		return SearchResult{}, err
	}
	buf := getSearchBuf()
	refs, truncated, err := g.index.search(st, buf, Fold(q), MaxSearchMatches)
	if err != nil {
		buf.release()
		return SearchResult{}, err
	}
	// refs is the search's own slice, and a CardRef is a uint32: the
	// answer is refs itself, not a copy.
	res := SearchResult{Cards: unsafe.Slice((*CardRef)(unsafe.SliceData(refs)), len(refs)), Truncated: truncated, buf: buf}
	// Counted by the flags as an index: which marketplaces a card has is as
	// good as random, and a branch on it mispredicted about every other card.
	var bySources [flagTCG | flagCM + 1]int
	for _, r := range refs {
		bySources[g.sourcesOf(r)]++
	}
	res.Counts.Both = bySources[flagTCG|flagCM]
	res.Counts.TCGOnly = bySources[flagTCG]
	res.Counts.CMOnly = bySources[flagCM]
	res.Counts.TCG = res.Counts.TCGOnly + res.Counts.Both
	res.Counts.CM = res.Counts.CMOnly + res.Counts.Both
	return res, nil
}

// stop is what a search looks at between chunks of its work: its context,
// and its deadline when not zero.
type stop struct {
	ctx      context.Context
	deadline time.Time
}

func (s stop) err() error {
	if err := s.ctx.Err(); err != nil {
		return err
	}
	if !s.deadline.IsZero() && !time.Now().Before(s.deadline) {
		return context.DeadlineExceeded
	}
	return nil
}

// search returns up to max refs matching the folded query qn, and whether
// more matched. The refs are buf.out (Search hands it out as is).
func (ix *searchIndex) search(st stop, buf *searchBuf, qn string, max int) ([]uint32, bool, error) {
	if qn == "" {
		return nil, false, nil
	}
	// Names equal to qn and names starting with it are ranges of byName.
	lo, ex, hi := ix.nameRange(qn)
	exact, prefixed := ix.byName[lo:ex], ix.byName[ex:hi]
	// Room for the whole answer and the one ref past it that says it is
	// cut: appends never grow it (growing it from a guess, and clearing
	// each new array, was a fifth of a search's time).
	out := slices.Grow(buf.out[:0], max+1)
	buf.out = out
	if len(exact) > max {
		return append(out, exact[:max]...), true, nil
	}
	out = append(out, exact...)
	need := max - len(out)
	if len(prefixed) > need {
		return ix.nameHeads.appendSmallest(out, ix.byName, ex, hi, need), true, nil
	}
	out = ix.nameHeads.appendSmallest(out, ix.byName, ex, hi, len(prefixed))
	need -= len(prefixed)

	// The rest: card numbers starting with qn, and (for 3 characters or
	// more) names holding every word, minus the names already taken. Take
	// enough numbers that dropping the taken ones still leaves need+1.
	// The names taken are out, at most max of them: a sorted copy tells
	// whether a ref is one of them without reading its name (a cache miss
	// per ref in a large catalogue). The numbers and the words' refs come
	// in ascending order, so each is walked against it once.
	taken := out
	if len(exact) > 0 && len(prefixed) > 0 {
		buf.taken = mergeSorted(buf.taken[:0], out[:len(exact)], out[len(exact):])
		taken = buf.taken
	}
	nlo, nhi := ix.numRange(qn)
	buf.nums = ix.numHeads.appendSmallest(buf.nums[:0], ix.byNum, nlo, nhi, need+1+hi-lo)
	nums, _ := dropTaken(buf.nums, taken)
	var words *wordMatcher
	if utf8.RuneCountInString(qn) >= 3 {
		words = ix.matchWords(&buf.words, qn)
	}
	// Merge the numbers with the words' refs, a batch of them at a time.
	wordsLeft := words != nil
	var batch []uint32
	rest := 0
	wordsTaken := taken // the taken refs above the words' refs so far
	for rest <= need {
		if len(batch) == 0 && wordsLeft {
			var err error
			if batch, wordsLeft, err = words.nextBatch(st); err != nil {
				return nil, false, err
			}
			batch, wordsTaken = dropTaken(batch, wordsTaken)
			continue
		}
		room := need + 1 - rest
		switch {
		case len(batch) == 0 && len(nums) == 0:
		case len(nums) == 0:
			k := min(room, len(batch))
			out, batch, rest = append(out, batch[:k]...), batch[k:], rest+k
			continue
		case len(batch) == 0: // no word left
			k := min(room, len(nums))
			out, nums, rest = append(out, nums[:k]...), nums[k:], rest+k
			continue
		case batch[0] < nums[0]:
			out, batch, rest = append(out, batch[0]), batch[1:], rest+1
			continue
		case batch[0] == nums[0]:
			out, batch, nums, rest = append(out, batch[0]), batch[1:], nums[1:], rest+1
			continue
		default:
			out, nums, rest = append(out, nums[0]), nums[1:], rest+1
			continue
		}
		break
	}
	if rest > need {
		return out[:max], true, nil
	}
	return out, false, nil
}

// dropTaken removes from refs the refs in taken, both ascending, in one
// walk, and returns the rest of taken: the refs above the last of refs, to
// be given with the next refs when these continue in ascending order.
func dropTaken(refs, taken []uint32) ([]uint32, []uint32) {
	if len(refs) == 0 {
		return refs, taken
	}
	if len(taken) == 0 || taken[0] > refs[len(refs)-1] {
		return refs, taken // nothing to drop: the common case
	}
	kept := refs[:0]
	for _, r := range refs {
		for len(taken) > 0 && taken[0] < r {
			taken = taken[1:]
		}
		if len(taken) > 0 && taken[0] == r {
			continue // taken stays: a repeated r goes too, as it did by binary search
		}
		kept = append(kept, r)
	}
	return kept, taken
}

// mergeSorted appends the ascending merge of two ascending lists to m.
func mergeSorted(m, a, b []uint32) []uint32 {
	m = slices.Grow(m, len(a)+len(b))
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
	return prefixRange(&ix.namePfx, func(i int) string { return ix.name(ix.byName[i]) }, qn)
}

// numRange returns the bounds in byNum of the numbers starting with qn.
func (ix *searchIndex) numRange(qn string) (lo, hi int) {
	lo, _, hi = prefixRange(&ix.numPfx, func(i int) string { return ix.num(ix.byNum[i]) }, qn)
	return lo, hi
}

// keyPrefix is the first 8 bytes of s, big-endian, zero-padded: prefixes
// compare as the strings do as far as they go (folded text holds no NUL).
func keyPrefix(s string) uint64 {
	var b [8]byte
	copy(b[:], s)
	return binary.BigEndian.Uint64(b[:])
}

// sortedPrefixes is the keyPrefix of each key of an ascending array, and
// every prefixBlock-th of them apart (top): a search bisects top, a few kB
// that stay in the cache, then one block of prefixBlock (8 cache lines),
// where bisecting the whole array read a cold line, and at a million keys a
// cold page, at each of its first dozen steps.
type sortedPrefixes struct {
	pfx []uint64
	top []uint64 // pfx[j*prefixBlock]
}

const prefixBlock = 64

// keyPrefixes returns the keyPrefix of key(i) for i in [0, n), stepping p.
func keyPrefixes(n int, key func(int) string, p *pace.Pacer) sortedPrefixes {
	s := sortedPrefixes{pfx: make([]uint64, n), top: make([]uint64, (n+prefixBlock-1)/prefixBlock)}
	for i := range s.pfx {
		if i%pacedCards == 0 {
			p.Step()
		}
		s.pfx[i] = keyPrefix(key(i))
	}
	for j := range s.top {
		s.top[j] = s.pfx[j*prefixBlock]
	}
	return s
}

// first returns the first i whose prefix is at least v (len(s.pfx) if none).
func (s *sortedPrefixes) first(v uint64) int {
	j := searchFirst(len(s.top), func(j int) bool { return s.top[j] >= v })
	if j == 0 {
		return 0
	}
	// pfx[(j-1)*prefixBlock] < v, and v <= pfx[j*prefixBlock] when that is in range.
	lo, hi := (j-1)*prefixBlock+1, min(j*prefixBlock, len(s.pfx))
	return lo + searchFirst(hi-lo, func(i int) bool { return s.pfx[lo+i] >= v })
}

func (s *sortedPrefixes) bytes() int { return 8 * (cap(s.pfx) + cap(s.top)) }

// prefixRange returns the bounds, in an ascending array of keys whose
// keyPrefix are s, of the keys equal to p [lo, ex) and of those starting
// with p but longer [ex, hi). The search reads s, where the keys are each a
// load of an offset and one of the bytes; for a p of 8 bytes or more, the
// keys decide between equal prefixes.
func prefixRange(s *sortedPrefixes, keyAt func(int) string, p string) (lo, ex, hi int) {
	pfx, pp := s.pfx, keyPrefix(p)
	n := len(pfx)
	lo = s.first(pp)
	if len(p) < 8 {
		// A key whose prefix is pp is p itself (no NUL pads a key); one
		// starting with p has p's bytes under the mask.
		mask := ^uint64(0) << (64 - 8*uint(len(p)))
		ex = gallopFirst(lo, n, func(i int) bool { return pfx[i] != pp })
		hi = gallopFirst(ex, n, func(i int) bool { return pfx[i]&mask != pp })
		return lo, ex, hi
	}
	// Below lo every prefix is under pp; the keys with prefix pp follow it.
	lo = gallopFirst(lo, n, func(i int) bool { return pfx[i] > pp || keyAt(i) >= p })
	ex = gallopFirst(lo, n, func(i int) bool { return pfx[i] != pp || keyAt(i) != p })
	hi = gallopFirst(ex, n, func(i int) bool { return pfx[i] != pp || !strings.HasPrefix(keyAt(i), p) })
	return lo, ex, hi
}

// gallopFirst returns the first i in [lo, n) for which f is true (n if
// none); f must be false then true. It looks at lo, lo+1, lo+3, ... before
// it bisects: the ends of a prefix range are most often near its start,
// in the cache lines the search for the start has just read, where a
// bisection over [lo, n) would read a cold line at each of its last steps.
func gallopFirst(lo, n int, f func(int) bool) int {
	a, step := lo, 1 // f is false below a
	for {
		b := a + step - 1
		if b >= n {
			return a + searchFirst(n-a, func(i int) bool { return f(a + i) })
		}
		if f(b) {
			return a + searchFirst(b-a, func(i int) bool { return f(a + i) })
		}
		a, step = b+1, step*2
	}
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
// word. Each word gives posting lists (see searchIndex): a word of 3 bytes
// its gram's list, another word the lists of the tokens holding it; either
// way the refs in them are exactly the refs holding the word. A word of
// more than 3 bytes inside too many tokens (more than wideWord) gives the
// lists of its two rarest grams instead, which every name holding it is in,
// and is checked on the names the lists leave; a wide word of 1 or 2 bytes
// is only checked on the names. The matcher walks the lists of the word
// with the fewest refs, a chunk at a time, keeps the refs that the other
// words' lists hold (by bitset or galloping), then checks the names; or,
// when it costs less, it ANDs the words' block maps (search_blocks.go) or
// their lists a window of refs at a time (search_window.go) and checks
// what is left.
type wordMatcher struct {
	ix     *searchIndex
	drive  refUnion
	checks []wordCheck // the other words' lists, the most telling first
	verify []string    // words checked on the names
	cand   []uint32    // the buffer of the refs of drive that pass the checks
	win    []uint64    // the buffer of drive's window, when it unites lists or ANDs windows
	or     []uint64    // the buffer of a window AND's term
	wand   windowAnd   // drive's window AND, when it is one
	done   bool
	// touched keeps the loads of touchNames from being optimized away.
	touched byte
}

// wordLists is lists that hold every ref holding a word: a ref holding the
// word is in one of them.
type wordLists struct {
	word  string
	lists []uint32 // list numbers
	size  int      // refs in all of them
}

// maxCheckLists is the most lists a word other than the walked one may have
// for them to be checked; a word in more tokens is checked on the names.
const maxCheckLists = 4

// matchWords returns the matcher of the words of qn: m, made anew but for
// its buffers, which it keeps.
func (ix *searchIndex) matchWords(m *wordMatcher, qn string) *wordMatcher {
	*m = wordMatcher{ix: ix, done: true, cand: m.cand[:0], win: m.win, or: m.or}
	words := strings.Split(qn, " ")
	words = slices.DeleteFunc(words, func(w string) bool { return w == "" })
	slices.SortFunc(words, func(a, b string) int { return cmp.Or(len(b)-len(a), strings.Compare(a, b)) })
	words = slices.Compact(words)
	var terms []wordLists
	size := func(k uint32) int { return int(ix.postOff[k+1] - ix.postOff[k]) }
	for i, w := range words {
		// A word inside a longer word of the query adds nothing.
		if slices.ContainsFunc(words[:i], func(o string) bool { return strings.Contains(o, w) }) {
			continue
		}
		if len(w) == 3 {
			k, ok := ix.gramList(w)
			if !ok {
				return m // no name holds w
			}
			terms = append(terms, wordLists{word: w, lists: []uint32{k}, size: size(k)})
			continue
		}
		lo, hi := ix.suffixRange(w)
		if lo == hi {
			return m
		}
		if hi-lo <= ix.wideWord {
			t := wordLists{word: w, lists: slices.Compact(slices.Sorted(slices.Values(ix.sufTok[lo:hi])))}
			for _, k := range t.lists {
				t.size += size(k)
			}
			terms = append(terms, t)
			continue
		}
		m.verify = append(m.verify, w)
		if len(w) < 3 {
			continue
		}
		var grams []uint32
		for j := 0; j+3 <= len(w); j++ {
			k, ok := ix.gramList(w[j : j+3])
			if !ok {
				return m
			}
			grams = append(grams, k)
		}
		slices.SortFunc(grams, func(a, b uint32) int { return cmp.Or(cmp.Compare(size(a), size(b)), cmp.Compare(a, b)) })
		grams = slices.Compact(grams)
		for _, k := range grams[:min(2, len(grams))] {
			terms = append(terms, wordLists{word: w, lists: []uint32{k}, size: size(k)})
		}
	}
	m.done = false
	if len(terms) == 0 {
		m.drive.all = uint32(len(ix.nameOff) - 1) // only short wide words: read every name
		return m
	}
	// Walk the lists with the fewest refs; check the others, fewest
	// first: they reject the most at the least cost.
	slices.SortStableFunc(terms, func(a, b wordLists) int { return cmp.Compare(a.size, b.size) })
	if m.matchBlocks(terms) || m.matchWindow(terms) {
		return m
	}
	lists := make([][]uint32, len(terms[0].lists))
	for i, k := range terms[0].lists {
		lists[i] = ix.list(k)
	}
	m.drive.init(lists, len(ix.nameOff)-1, m.win)
	m.win = m.drive.win
	// When the walked list has a bitset, so have the lists of the words
	// that are checked by one list (they are as long or longer, and the
	// longest get bitsets first): their AND is the candidates, 64 refs a
	// load, where a walk costs a check per ref of a list holding more than
	// 1/128 of the cards (search_dense.go).
	if len(terms[0].lists) == 1 {
		if b := ix.dense.bitset(terms[0].lists[0]); b != nil {
			m.drive.bits = [][]uint64{b}
		}
	}
	for _, t := range terms[1:] {
		if len(t.lists) > maxCheckLists { // a word of many tokens (a gram filter has one list)
			m.verify = append(m.verify, t.word) // cheaper on the names than by many lists
			continue
		}
		if b := ix.dense.bitset(t.lists[0]); len(t.lists) == 1 && b != nil && m.drive.bits != nil {
			m.drive.bits = append(m.drive.bits, b)
			continue
		}
		c := wordCheck{}
		for _, k := range t.lists {
			c.lists = append(c.lists, listCheck{bits: ix.dense.bitset(k), list: ix.list(k)})
		}
		m.checks = append(m.checks, c)
	}
	if len(m.drive.bits) == 1 {
		m.drive.bits = nil // one list: walking it is as cheap
	}
	return m
}

// matchBlocks makes the matcher AND the block maps of the terms that have
// them (search_blocks.go) when the two shortest do and the shortest is long
// enough that the AND costs less than walking it; the other terms are
// checked as matchWords does. It reports whether it did.
func (m *wordMatcher) matchBlocks(terms []wordLists) bool {
	ix := m.ix
	if len(terms) < 2 || terms[0].size < ix.blocks.groups {
		return false
	}
	maps := func(t wordLists) []blockList {
		if len(t.lists) > maxCheckLists {
			return nil
		}
		if len(t.lists) == 1 && ix.dense.bitset(t.lists[0]) != nil {
			return nil // checked by its bitset, a load a ref
		}
		ls := make([]blockList, 0, len(t.lists))
		for _, k := range t.lists {
			l, ok := ix.blocks.get(ix, k)
			if !ok {
				return nil
			}
			ls = append(ls, l)
		}
		return ls
	}
	// The words with maps are ANDed, the others checked on what the AND
	// leaves: those with a bitset by it, any other must be longer than two
	// words with maps, or walking it would cost less.
	var and [][]blockList
	var rest []wordLists
	for _, t := range terms {
		if ls := maps(t); ls != nil {
			and = append(and, ls)
			continue
		}
		if len(and) < 2 && (len(t.lists) != 1 || ix.dense.bitset(t.lists[0]) == nil) {
			return false
		}
		rest = append(rest, t)
	}
	if len(and) < 2 {
		return false
	}
	m.drive.blocks = newBlockAnd(and, ix.blocks.groups)
	for _, t := range rest {
		if len(t.lists) > maxCheckLists {
			m.verify = append(m.verify, t.word)
			continue
		}
		c := wordCheck{}
		for _, k := range t.lists {
			c.lists = append(c.lists, listCheck{bits: ix.dense.bitset(k), list: ix.list(k)})
		}
		m.checks = append(m.checks, c)
	}
	return true
}

// matchWindow makes the matcher AND the terms' lists a window of refs at a
// time (search_window.go) when that costs less than the walk: a step per
// ref of the shortest term and, per step, a load for each word of one list
// with a bitset, a gallop (about three loads) per list of a word of up to
// maxCheckLists lists, a name read for a word of more (about six: the
// refs of a word are mostly of a few sets, whose names are near one
// another). The window AND costs a load and a store per ref of the
// walked lists and, over the windows, a word operation per 64 refs per
// term and a few per bitset, whose reads of cold memory the walk mostly
// does without. A walked word of several lists is itself a union made a
// window at a time (refUnion.takeWindow): the walk then pays those marks
// and a window's words too, and reads out every ref of the union where the
// AND reads out only the matches; counted twice (unionWeight), as measured.
// It reports whether it did.
func (m *wordMatcher) matchWindow(terms []wordLists) bool {
	if len(terms) < 2 {
		return false
	}
	ix := m.ix
	n := len(ix.nameOff) - 1
	per, plain, words := 1.0, 0, 0.5*float64(len(terms))
	allBits := true
	for i, t := range terms {
		oneBitset := len(t.lists) == 1 && ix.dense.bitset(t.lists[0]) != nil
		allBits = allBits && oneBitset
		for _, k := range t.lists {
			if ix.dense.bitset(k) != nil {
				words += 2 // read where the walk reads a word per step
			} else {
				plain += int(ix.postOff[k+1] - ix.postOff[k])
			}
		}
		switch {
		case i == 0:
		case oneBitset:
			per++
		case len(t.lists) <= maxCheckLists:
			per += 3 * float64(len(t.lists))
		default:
			per += 6
		}
	}
	walk := per * float64(terms[0].size)
	if len(terms[0].lists) > 1 {
		walk += unionWeight * (float64(terms[0].size) + float64(n)/64)
	}
	// Every word one list with a bitset: the walk ANDs the bitsets.
	if allBits || float64(plain)+words*float64(n)/64 >= walk {
		return false
	}
	a := &m.wand
	a.n = uint32(n)
	for _, t := range terms {
		var wt windowTerm
		for _, k := range t.lists {
			if b := ix.dense.bitset(k); b != nil {
				wt.bits = append(wt.bits, b)
			} else if l := ix.list(k); len(l) > 0 {
				wt.lists = append(wt.lists, l)
			}
		}
		if len(wt.lists) == 0 && len(wt.bits) == 0 {
			m.done = true // no name holds the word
			return true
		}
		a.terms = append(a.terms, wt)
	}
	w := windowWords(n, terms[0].size)
	m.win = slices.Grow(m.win[:0], w)[:w]
	m.or = slices.Grow(m.or[:0], w)[:w]
	clear(m.win)
	a.acc, a.or = m.win, m.or
	m.drive.window = a
	return true
}

// unionWeight is what the walk of a word of several lists pays for their
// union, per ref of it and per 64 refs of the catalogue, in the units above.
// On the 1M load harness's store ("Awakened Krillin": 4 lists, 4,213 refs,
// and a word with a bitset) 2 sent 27 of 1,200 queries of its mix to the
// window AND, in 0.77 of their time and none slower; 1 sent 15, 4 sent 28
// (bench/README.md, "The walk's union in the window AND's cost").
const unionWeight = 2

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// matchChunk is how many refs of the walked lists the matcher takes at a
// time: it runs each check over the whole chunk in a tight loop, which
// costs less per ref than taking every check for each ref, and it looks at
// its stop once a chunk.
const matchChunk = 256

// nextBatch returns the next refs, ascending, that hold every word, and
// whether more may follow; none and false at the end. The batch is the
// matcher's buffer, valid until the next call.
func (m *wordMatcher) nextBatch(st stop) ([]uint32, bool, error) {
	for !m.done {
		if err := st.err(); err != nil {
			return nil, false, err
		}
		var cand []uint32
		cand, m.done = m.drive.take(m.cand[:0], matchChunk)
		m.cand = cand
		for i := range m.checks {
			var exhausted bool
			cand, exhausted = m.checks[i].filter(cand)
			if exhausted {
				m.done = true // no later ref is in this word's lists
			}
			if len(cand) == 0 {
				break
			}
		}
		if len(m.verify) > 0 {
			m.touchNames(cand)
			cand = slices.DeleteFunc(cand, func(r uint32) bool { return !containsAll(m.ix.name(r), m.verify) })
		}
		if len(cand) > 0 {
			return cand, !m.done, nil
		}
	}
	return nil, false, nil
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

// refUnion yields the union of ascending posting lists in ascending order,
// each ref once: one list is read in place, several are merged a window of
// refs at a time (see takeWindow); with all set, it yields 0..all-1. With
// bits set it yields instead the refs in every one of those bitsets.
type refUnion struct {
	list  []uint32   // one list: what is left of it
	lists [][]uint32 // several: what is left of each (empty ones dropped)
	win   []uint64   // several: the window's bitmap, clear between takes
	all   uint32     // every ref below all (when no list is given)
	next  uint32     // with all: the next ref; with bits: the next word; with lists: the window's start
	bits  [][]uint64
	// With blocks set it yields the refs that the block maps' AND finds;
	// with window, the refs of a window AND (search_window.go).
	blocks *blockAnd
	window *windowAnd
}

// bitsWords is the most bitset words take reads in one call, so that a
// sparse AND still returns to look at the search's stop.
const bitsWords = 4096

// init sets the lists to unite; n is the number of refs (every ref is
// below it). win is a buffer the union may use for its window.
func (u *refUnion) init(lists [][]uint32, n int, win []uint64) {
	if len(lists) == 1 {
		u.list = lists[0]
		return
	}
	total := 0
	for _, l := range lists {
		if len(l) > 0 {
			u.lists = append(u.lists, l)
			total += len(l)
		}
	}
	words := windowWords(n, total) // about a chunk's worth of refs
	u.win = slices.Grow(win[:0], words)[:words]
	clear(u.win)
}

// take appends up to k more refs to dst; done says that none is left.
func (u *refUnion) take(dst []uint32, k int) (_ []uint32, done bool) {
	start := len(dst)
	switch {
	case u.blocks != nil:
		return u.blocks.take(dst, k)
	case u.window != nil:
		return u.window.take(dst, k)
	case u.bits != nil:
		first, n := u.bits[0], uint32(len(u.bits[0]))
		end := min(u.next+bitsWords, n)
		if len(u.bits) == 2 { // the most common: no loop over the bitsets
			second := u.bits[1][:n]
			for ; u.next < end && len(dst)-start < k; u.next++ {
				for x := first[u.next] & second[u.next]; x != 0; x &= x - 1 {
					dst = append(dst, u.next<<6|uint32(bits.TrailingZeros64(x)))
				}
			}
			return dst, u.next == n
		}
		for ; u.next < end && len(dst)-start < k; u.next++ {
			x := first[u.next]
			for _, b := range u.bits[1:] {
				x &= b[u.next]
			}
			for ; x != 0; x &= x - 1 {
				dst = append(dst, u.next<<6|uint32(bits.TrailingZeros64(x)))
			}
		}
		return dst, u.next == n
	case u.win != nil:
		for len(u.lists) > 0 && len(dst)-start < k {
			dst = u.takeWindow(dst)
		}
		return dst, len(u.lists) == 0
	case u.all > 0:
		end := min(u.next+uint32(k), u.all)
		for r := u.next; r < end; r++ {
			dst = append(dst, r)
		}
		u.next = end
		return dst, end == u.all
	default:
		k = min(k, len(u.list))
		dst = append(dst, u.list[:k]...)
		u.list = u.list[k:]
		return dst, len(u.list) == 0
	}
}

// takeWindow appends the union's refs in its next window, ascending: each
// list sets the bits of its refs there, and the bits are read out in order.
// A merge by a heap of the lists' heads cost a few compares and a
// mispredicted branch a ref (a third of a one-word search with a word in
// several tokens); this is a load and a store a ref, and a ref in two lists
// (a name with two tokens holding the word) is one bit. The window starts
// at the lowest ref left, so a sparse stretch costs nothing.
func (u *refUnion) takeWindow(dst []uint32) []uint32 {
	lo := u.lists[0][0]
	for _, l := range u.lists[1:] {
		lo = min(lo, l[0])
	}
	lo &^= 63
	win := u.win
	hi := uint64(lo) + 64*uint64(len(win)) // may pass the refs' range
	u.lists = markWindow(win, u.lists, lo, hi)
	dst = readWindow(dst, win, lo)
	return dst
}

// wordCheck tells whether a ref is in one of a word's lists.
type wordCheck struct {
	lists []listCheck
	marks []uint64 // with several lists: which refs of a filter's cand one holds
}

// filter keeps the refs of cand, ascending, that are in one of the word's
// lists; exhausted says that no ref after cand's last can be.
func (w *wordCheck) filter(cand []uint32) (kept []uint32, exhausted bool) {
	if len(w.lists) == 1 {
		c := &w.lists[0]
		return c.filter(cand), c.bits == nil && c.pos == len(c.list)
	}
	// Each list marks the refs it holds in one pass (a pass per list costs
	// less than asking every list about every ref).
	words := (len(cand) + 63) / 64
	w.marks = slices.Grow(w.marks[:0], words)[:words]
	clear(w.marks)
	for i := range w.lists {
		w.lists[i].mark(cand, w.marks)
	}
	k := 0
	for i, r := range cand {
		cand[k] = r
		k += int(w.marks[i>>6] >> (i & 63) & 1)
	}
	exhausted = true
	for i := range w.lists {
		c := &w.lists[i]
		exhausted = exhausted && c.bits == nil && c.pos == len(c.list)
	}
	return cand[:k], exhausted
}

// listCheck tells whether a ref is in a posting list: by the list's bitset
// when it has one, else by galloping on from the last position (refs are
// asked in ascending order).
type listCheck struct {
	bits []uint64
	list []uint32
	pos  int
}

// mark sets bit i of marks for every cand[i] that is in the list; cand is
// ascending.
func (c *listCheck) mark(cand []uint32, marks []uint64) {
	if b := c.bits; b != nil {
		for i, r := range cand {
			marks[i>>6] |= (b[r>>6] >> (r & 63) & 1) << (i & 63)
		}
		return
	}
	l, p := c.list, c.pos
	for i, r := range cand {
		if p = gallop(l, p, r); p == len(l) {
			break
		}
		if l[p] == r {
			marks[i>>6] |= 1 << (i & 63)
		}
	}
	c.pos = p
}

// filter keeps the refs of cand, ascending, that are in the list.
func (c *listCheck) filter(cand []uint32) []uint32 {
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
