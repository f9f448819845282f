package catalog

import (
	"slices"
	"unsafe"
)

// idTable finds a card by the 64-bit key of its id: the first 8 bytes of
// a SHA-256 (ids.go), so keys are uniform. A lookup reads one slot, a key
// and its value side by side, and rarely the next few: in a million-card
// catalogue each array a lookup touches is a cache miss, and the sorted
// keys, their values and a directory of where each top-bits value starts
// were three (see bench/README.md, "Memory a request reads at random").
//
// The keys are kept ascending, each in its home slot (its top 32 bits
// scaled to the number of homes, so homes ascend with keys) or in the first
// free slot after it; a slot left free holds a copy of the slot before it
// (the first ones: key 0 without a value). A lookup reads from its key's
// home on while the keys are below it. With a fifth more homes than keys,
// a key is on average 2.5 slots after its home (30 bytes: mostly the same
// cache line). It is made in one pass over sorted keys; the TCGplayer
// table is kept in the snapshot's binary form as its slots, which a replica
// reads in place, the Cardmarket one made again from the sorted ids.
type idTable struct {
	slots []idSlot
	homes uint64 // the number of home slots; slots may run past them
	n     int    // the number of keys
}

// idSlot is a key, split in two words so that a slot is 12 bytes, and its
// value; noValue in the free slots before the first key.
type idSlot struct{ lo, hi, val uint32 }

const noValue = ^uint32(0)

func (s *idSlot) key() uint64 { return uint64(s.hi)<<32 | uint64(s.lo) }

// home is the home slot of key k in a table of homes slots.
func home(k, homes uint64) uint64 { return (k >> 32) * homes >> 32 }

// newIDTable makes the table of keys and their vals (nil: their
// positions); false when keys are not strictly ascending, the lengths
// differ or a value is noValue.
func newIDTable(keys []uint64, vals []uint32) (idTable, bool) {
	if vals != nil && len(vals) != len(keys) {
		return idTable{}, false
	}
	if len(keys) == 0 {
		return idTable{}, true
	}
	t := idTable{homes: uint64(len(keys) + len(keys)/5 + 1), n: len(keys)}
	t.slots = make([]idSlot, 0, t.homes+16)
	free := idSlot{val: noValue}
	for i, k := range keys {
		if i > 0 && keys[i-1] >= k {
			return idTable{}, false
		}
		v := uint32(i)
		if vals != nil {
			v = vals[i]
		}
		if v == noValue {
			return idTable{}, false
		}
		for uint64(len(t.slots)) < home(k, t.homes) {
			t.slots = append(t.slots, free)
		}
		free = idSlot{lo: uint32(k), hi: uint32(k >> 32), val: v}
		t.slots = append(t.slots, free)
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
	s := t.slots
	for i := home(k, t.homes); i < uint64(len(s)); i++ {
		if sk := s[i].key(); sk >= k {
			if sk == k && s[i].val != noValue {
				return s[i].val, true
			}
			return 0, false
		}
	}
	return 0, false
}

// len is the number of keys.
func (t *idTable) len() int { return t.n }

// words is the table's slots as words, 3 a slot (the binary form).
func (t *idTable) words() []uint32 {
	if len(t.slots) == 0 {
		return nil
	}
	return unsafe.Slice(&t.slots[0].lo, 3*len(t.slots))
}

// idTableOfWords is the table whose slots are words (the same memory) and
// which has homes home slots; false unless it is one newIDTable makes, with
// every value below n.
func idTableOfWords(words []uint32, homes uint64, n uint32) (idTable, bool) {
	if len(words)%3 != 0 {
		return idTable{}, false
	}
	if len(words) == 0 {
		return idTable{}, homes == 0
	}
	t := idTable{slots: unsafe.Slice((*idSlot)(unsafe.Pointer(&words[0])), len(words)/3), homes: homes}
	if homes == 0 {
		return idTable{}, false
	}
	prev := idSlot{val: noValue}
	for i := range t.slots {
		s := &t.slots[i]
		switch {
		case *s == prev: // a free slot
		case (s.val >= n) || (i > 0 && s.key() <= prev.key()) || home(s.key(), homes) > uint64(i):
			return idTable{}, false
		default:
			t.n++
		}
		prev = *s
	}
	return t, true
}
