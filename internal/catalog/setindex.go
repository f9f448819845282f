package catalog

import (
	"cmp"
	"hash/maphash"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// setIndex finds a game's sets by a string key (set_id, lower-cased
// set_code) in two arrays without pointers, sorted by the key's hash, the
// caller comparing the keys of the few candidates: maps of strings to
// positions were 5,800 keys and as many slices at a million cards, marked
// by the collector at every cycle (bench/README.md, "Less to mark, again").
type setIndex struct {
	hashes []uint64 // sorted; equal hashes in position order
	pos    []int32  // the set's position in the game's sets
}

// setKeySeed is the process's: the index is built in it, never stored.
var setKeySeed = maphash.MakeSeed()

func setKeyHash(k string) uint64 { return maphash.String(setKeySeed, k) }

// indexSets makes g's indexes of its sets by set_id and by lower-cased
// set_code.
func (g *GameSnapshot) indexSets() {
	g.setByID = newSetIndex(len(g.sets), func(i int) (string, bool) { return g.sets[i].ID, true })
	g.setsByCode = newSetIndex(len(g.sets), func(i int) (string, bool) {
		return strings.ToLower(g.sets[i].Code), g.sets[i].Code != ""
	})
}

// newSetIndex indexes the positions 0 to n-1 by key(i), leaving out those
// without one (ok false).
func newSetIndex(n int, key func(i int) (k string, ok bool)) setIndex {
	type entry struct {
		h uint64
		p int32
	}
	es := make([]entry, 0, n)
	for i := range n {
		if k, ok := key(i); ok {
			es = append(es, entry{setKeyHash(k), int32(i)})
		}
	}
	slices.SortFunc(es, func(a, b entry) int { return cmp.Or(cmp.Compare(a.h, b.h), cmp.Compare(a.p, b.p)) })
	ix := setIndex{hashes: make([]uint64, len(es)), pos: make([]int32, len(es))}
	for i, e := range es {
		ix.hashes[i], ix.pos[i] = e.h, e.p
	}
	return ix
}

// candidates returns the positions whose key hashes as k does, in position
// order: those whose key is k, and rarely another.
func (ix *setIndex) candidates(k string) []int32 {
	h := setKeyHash(k)
	i, found := slices.BinarySearch(ix.hashes, h)
	if !found {
		return nil
	}
	j := i + 1
	for j < len(ix.hashes) && ix.hashes[j] == h {
		j++
	}
	return ix.pos[i:j]
}

// repeated returns a key two positions share, where key(p) is the key
// position p was indexed by.
func (ix *setIndex) repeated(key func(p int32) string) (string, bool) {
	for i := 0; i < len(ix.hashes); {
		j := i + 1
		for j < len(ix.hashes) && ix.hashes[j] == ix.hashes[i] {
			j++
		}
		for a := i; a < j; a++ {
			for b := a + 1; b < j; b++ {
				if k := key(ix.pos[a]); k == key(ix.pos[b]) {
					return k, true
				}
			}
		}
		i = j
	}
	return "", false
}

// lowerIs reports whether strings.ToLower(s) == lower, without making the
// lower-cased copy: rune by rune, an invalid byte of s standing for
// utf8.RuneError as strings.ToLower writes it.
func lowerIs(s, lower string) bool {
	for _, r := range s {
		c, n := utf8.DecodeRuneInString(lower)
		if n == 0 || c != unicode.ToLower(r) {
			return false
		}
		lower = lower[n:]
	}
	return lower == ""
}
