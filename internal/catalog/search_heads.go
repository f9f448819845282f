package catalog

import "unicode/utf8"

// Prefix heads. A short query such as "so" or "g" starts a range of
// hundreds of thousands of entries of byName (or byNum), and the answer
// needs only the smallest refs of it, which a heap selection finds in one
// pass over the whole range: at 1M cards that pass was most of the cost of
// a short query. The ranges that a prefix query can produce are few once
// they are long (at most len/headMin of them per prefix length, and they
// nest), so the build stores the answer-ordered head of every long range
// and the query reads it.

// headLen is the most refs a stored head holds: the MaxSearchMatches+1
// smallest refs of the range, enough for a full answer and for knowing it
// is cut. A shorter range's head is the whole range in ref order.
const headLen = MaxSearchMatches + 1

// Defaults of the build: ranges longer than defaultHeadMin get a head (a
// shorter range costs little to sort at query time), and the heads of one
// sorted array take at most defaultHeadBudget refs per card (a safety
// bound, 8 bytes per card).
const (
	defaultHeadMin    = 64
	defaultHeadBudget = 2
)

// prefixHeads holds the heads of the long prefix ranges of one sorted
// array, found by the range's bounds in the array.
type prefixHeads struct {
	min  int               // ranges longer than min may have a head
	at   map[uint64]uint32 // rangeKey(lo, hi) -> offset of the head in refs
	refs []uint32          // heads of headLen refs, back to back, each ascending
}

func rangeKey(lo, hi int) uint64 { return uint64(lo)<<32 | uint64(uint32(hi)) }

// head returns the stored head of sorted[lo:hi], nil when there is none.
func (h *prefixHeads) head(lo, hi int) []uint32 {
	if hi-lo <= h.min || h.at == nil {
		return nil
	}
	off, ok := h.at[rangeKey(lo, hi)]
	if !ok {
		return nil
	}
	end := off + uint32(min(hi-lo, headLen))
	return h.refs[off:end:end]
}

// appendSmallest appends the k smallest refs of sorted[lo:hi] to dst,
// ascending: from the stored head when it holds them, else by selection.
func (h *prefixHeads) appendSmallest(dst, sorted []uint32, lo, hi, k int) []uint32 {
	if head := h.head(lo, hi); head != nil && (k <= len(head) || len(head) == hi-lo) {
		return append(dst, head[:min(k, len(head))]...)
	}
	return appendSmallest(dst, sorted[lo:hi], k)
}

// buildPrefixHeads stores a head for every prefix range of sorted longer
// than longer, the kind of range prefixRange returns for a query p: when
// skipExact, the keys starting with p but longer than it (the exact keys
// are their own range, already in ref order); else every key starting
// with p. Only prefixes ending on a rune boundary are queries. The heads
// take at most budget refs; ranges are visited shortest prefix first, so
// when the budget runs out the deepest, least likely ranges are the ones
// left to selection.
func buildPrefixHeads(sorted []uint32, key func(uint32) string, skipExact bool, longer, budget int) prefixHeads {
	h := prefixHeads{min: longer}
	type span struct{ lo, hi, d int } // sorted[lo:hi] share their first d bytes
	var queue []span
	if len(sorted) > h.min {
		queue = append(queue, span{0, len(sorted), 0})
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		// Keys of exactly d bytes sort first in the span.
		ex := s.lo + searchFirst(s.hi-s.lo, func(i int) bool { return len(key(sorted[s.lo+i])) > s.d })
		last := key(sorted[s.hi-1])
		if s.d > 0 && (len(last) == s.d || utf8.RuneStart(last[s.d])) {
			lo := s.lo
			if skipExact {
				lo = ex
			}
			if s.hi-lo > h.min {
				k := rangeKey(lo, s.hi)
				if _, ok := h.at[k]; !ok {
					if len(h.refs)+min(s.hi-lo, headLen) > budget {
						break
					}
					if h.at == nil {
						h.at = map[uint64]uint32{}
					}
					h.at[k] = uint32(len(h.refs))
					h.refs = appendSmallest(h.refs, sorted[lo:s.hi], min(s.hi-lo, headLen))
				}
			}
		}
		// The children: the runs of ex..hi with the same byte at d.
		for lo := ex; lo < s.hi; {
			b := key(sorted[lo])[s.d]
			hi := lo + searchFirst(s.hi-lo, func(i int) bool { return key(sorted[lo+i])[s.d] != b })
			if hi-lo > h.min {
				queue = append(queue, span{lo, hi, s.d + 1})
			}
			lo = hi
		}
	}
	return h
}

// bytes is the memory the heads take, roughly.
func (h *prefixHeads) bytes() int {
	return 4*cap(h.refs) + 16*len(h.at)*2 // map: key, value and overhead
}
