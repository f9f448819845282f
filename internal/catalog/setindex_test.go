package catalog

import (
	"slices"
	"strings"
	"testing"
)

func TestSetIndex(t *testing.T) {
	keys := []string{"b", "", "a", "b", "c"}
	ix := newSetIndex(len(keys), func(i int) (string, bool) { return keys[i], keys[i] != "" })
	if len(ix.hashes) != 4 || !slices.IsSorted(ix.hashes) {
		t.Fatalf("hashes %v: want the 4 keys, sorted", ix.hashes)
	}
	for _, k := range []string{"a", "b", "c"} {
		var got []int32
		for _, p := range ix.candidates(k) {
			if keys[p] == k {
				got = append(got, p)
			}
		}
		var want []int32
		for i, kk := range keys {
			if kk == k {
				want = append(want, int32(i))
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%q: positions %v, want %v (in position order)", k, got, want)
		}
	}
	if c := ix.candidates("zz"); len(c) != 0 {
		t.Errorf("an absent key has candidates %v", c)
	}
	if k, ok := ix.repeated(func(p int32) string { return keys[p] }); !ok || k != "b" {
		t.Errorf("repeated = %q, %v; want \"b\", true", k, ok)
	}
	one := newSetIndex(3, func(i int) (string, bool) { return keys[i+2], true })
	if k, ok := one.repeated(func(p int32) string { return keys[p+2] }); ok {
		t.Errorf("repeated = %q in keys without a repeat", k)
	}
}

// Keys whose hashes are equal are told apart by the caller's comparison,
// and repeated compares keys, not hashes: a seed under which every key
// hashes alike is not at hand, so the index's hashes are forced equal.
func TestSetIndexEqualHashes(t *testing.T) {
	keys := []string{"x", "y", "x"}
	ix := setIndex{hashes: []uint64{7, 7, 7}, pos: []int32{0, 1, 2}}
	if k, ok := ix.repeated(func(p int32) string { return keys[p] }); !ok || k != "x" {
		t.Errorf("repeated = %q, %v; want \"x\", true", k, ok)
	}
	ix.pos = []int32{0, 1}
	ix.hashes = ix.hashes[:2]
	if k, ok := ix.repeated(func(p int32) string { return keys[p] }); ok {
		t.Errorf("repeated = %q for two keys that only share a hash", k)
	}
}

func TestLowerIs(t *testing.T) {
	for _, s := range []string{"", "SV1", "sv1", "ÉTÉ", "İstanbul", "K", "a\xffb", "ß", "Σ", "\uFFFD"} {
		lower := strings.ToLower(s)
		if !lowerIs(s, lower) {
			t.Errorf("lowerIs(%q, %q) = false", s, lower)
		}
		for _, other := range []string{lower + "x", "x" + lower, strings.TrimSuffix(lower, lower[max(0, len(lower)-1):])} {
			if other != lower && lowerIs(s, other) {
				t.Errorf("lowerIs(%q, %q) = true", s, other)
			}
		}
	}
}

// SetByID and SetsByCode compare each candidate's key: two sets whose keys
// share a hash (forced here) are told apart.
func TestSetLookupsCompareKeys(t *testing.T) {
	g := &GameSnapshot{sets: []ListedSet{
		{SetInfo: SetInfo{ID: "other", Code: "ZZ"}},
		{SetInfo: SetInfo{ID: "wanted", Code: "SV1"}},
	}}
	h := setKeyHash("wanted")
	g.setByID = setIndex{hashes: []uint64{h, h}, pos: []int32{0, 1}}
	if s, ok := g.SetByID("wanted"); !ok || s.ID != "wanted" {
		t.Errorf("SetByID(wanted) = %+v, %v", s, ok)
	}
	if s, ok := g.SetByID("absent"); ok {
		t.Errorf("SetByID(absent) = %+v", s)
	}
	h = setKeyHash("sv1")
	g.setsByCode = setIndex{hashes: []uint64{h, h}, pos: []int32{0, 1}}
	if got := g.SetsByCode("Sv1"); len(got) != 1 || got[0].ID != "wanted" {
		t.Errorf("SetsByCode(Sv1) = %v, want the set of code SV1 alone", got)
	}
}
