package catalog

import (
	"math/bits"
	"slices"
)

// idTable finds a card by the 64-bit key of its id: the first 8 bytes of
// a SHA-256 (ids.go), so keys are uniform. It holds the keys in ascending
// order with their values, and a directory of where the keys of each value
// of their top bits start: a lookup reads one directory slot and then about
// one key. It is made in one pass over sorted keys, which is the order the
// snapshot's binary form keeps them in, where a map had to be rebuilt entry
// by entry at every replica's start (a third of reading a million-card
// artifact; see bench/README.md, "Replica start").
type idTable struct {
	keys  []uint64 // ascending, no two equal
	vals  []uint32 // the value of each key; nil: its position in keys
	dir   []uint32 // dir[b]: the first position whose key's top bits are >= b
	shift uint     // 64 minus the directory's bits
}

// newIDTable makes the table of keys and their vals (nil: their
// positions); false when keys are not strictly ascending or the lengths
// differ.
func newIDTable(keys []uint64, vals []uint32) (idTable, bool) {
	if vals != nil && len(vals) != len(keys) {
		return idTable{}, false
	}
	if len(keys) == 0 {
		return idTable{}, true
	}
	// About one key per slot: the directory costs 4 bytes a key at most.
	b := max(bits.Len(uint(len(keys)))-1, 1)
	t := idTable{keys: keys, vals: vals, dir: make([]uint32, 1<<b+1), shift: uint(64 - b)}
	slot := uint64(0)
	for i, k := range keys {
		if i > 0 && keys[i-1] >= k {
			return idTable{}, false
		}
		for ; slot <= k>>t.shift; slot++ {
			t.dir[slot] = uint32(i)
		}
	}
	for ; slot < uint64(len(t.dir)); slot++ {
		t.dir[slot] = uint32(len(keys))
	}
	return t, true
}

// idTableOf makes the table of a map's entries (the snapshot's build).
func idTableOf[V ~uint32](m map[uint64]V) idTable {
	keys := make([]uint64, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	vals := make([]uint32, len(keys))
	for i, k := range keys {
		vals[i] = uint32(m[k])
	}
	t, _ := newIDTable(keys, vals) // a map's keys are distinct
	return t
}

// get returns the value of key k.
func (t *idTable) get(k uint64) (uint32, bool) {
	if len(t.keys) == 0 {
		return 0, false
	}
	b := k >> t.shift
	for i, end := t.dir[b], t.dir[b+1]; i < end; i++ {
		if t.keys[i] == k {
			if t.vals == nil {
				return i, true
			}
			return t.vals[i], true
		}
	}
	return 0, false
}

// len is the number of keys.
func (t *idTable) len() int { return len(t.keys) }

// valsBelow reports whether every value is below n.
func (t *idTable) valsBelow(n uint32) bool {
	if t.vals == nil {
		return uint64(len(t.keys)) <= uint64(n)
	}
	return refsBelow(t.vals, n)
}
