package catalog

import (
	"cmp"
	"slices"
)

// Dense posting lists. A query of frequent words intersects long posting
// lists: the matcher walks the shortest and, for every ref of it, gallops
// ahead in each other list. When an other list holds a large share of all
// cards the gallop moves a few entries at a time with branches the CPU
// cannot predict, and at 1M cards that intersection was a third of the
// search time. A bitset of such a list answers "does it hold r" with one
// load; it takes n/8 bytes, no more than four times the list itself when
// the list holds at least n/128 refs (n/64 before the lists were by token:
// n/128 took the query mix's CPU per search to 0.82 at 1M cards, within the
// same budget). Within a budget, the longest lists come first.

// Defaults of the build: a list gets a bitset when it holds more than
// 1/defaultDenseDiv of the cards, at most defaultDenseBudget bytes per card
// of bitsets in all (each bitset is 1/8 byte per card, so 8 bitsets a byte).
const (
	defaultDenseDiv    = 128
	defaultDenseBudget = 32
)

// denseLists holds bitsets of the longest posting lists.
type denseLists struct {
	words int               // uint64 words per bitset
	at    map[uint32]uint32 // list number -> offset of its bitset in bits
	bits  []uint64
}

// bitset returns list k's bitset, nil when it has none.
func (d *denseLists) bitset(k uint32) []uint64 {
	off, ok := d.at[k]
	if !ok {
		return nil
	}
	return d.bits[off : off+uint32(d.words) : off+uint32(d.words)]
}

// buildDenseLists makes bitsets of at most maxLists lists of ix holding
// more than n/div refs, longest first.
func buildDenseLists(ix *searchIndex, n, div, maxLists int) denseLists {
	d := denseLists{words: (n + 63) / 64}
	if n == 0 || div <= 0 {
		return d
	}
	var chosen []uint32
	for k := 0; k+1 < len(ix.postOff); k++ {
		if l := int(ix.postOff[k+1] - ix.postOff[k]); l > n/div && l >= 64 {
			chosen = append(chosen, uint32(k))
		}
	}
	size := func(k uint32) uint32 { return ix.postOff[k+1] - ix.postOff[k] }
	slices.SortFunc(chosen, func(a, b uint32) int { return cmp.Or(cmp.Compare(size(b), size(a)), cmp.Compare(a, b)) })
	chosen = chosen[:min(len(chosen), maxLists)]
	if len(chosen) == 0 {
		return d
	}
	d.at = make(map[uint32]uint32, len(chosen))
	d.bits = make([]uint64, len(chosen)*d.words)
	for i, k := range chosen {
		off := uint32(i * d.words)
		d.at[k] = off
		b := d.bits[off : off+uint32(d.words)]
		for _, r := range ix.post[ix.postOff[k]:ix.postOff[k+1]] {
			b[r>>6] |= 1 << (r & 63)
		}
	}
	return d
}

// bytes is the memory the bitsets take, roughly.
func (d *denseLists) bytes() int { return 8*cap(d.bits) + 16*len(d.at)*2 }
