package catalog

import (
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"
)

func TestIDTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 3, 7, 100, 4096, 50_000} {
		m := map[uint64]uint32{}
		for len(m) < n {
			k := rng.Uint64()
			if len(m)%5 == 0 {
				k >>= 40 // crowd the first directory slot too
			}
			m[k] = uint32(rng.IntN(1 << 30))
		}
		tab := idTableOf(m)
		if tab.len() != n {
			t.Fatalf("n=%d: a table of %d keys", n, tab.len())
		}
		for k, v := range m {
			if got, ok := tab.get(k); !ok || got != v {
				t.Fatalf("n=%d: get(%#x) = %d, %v; want %d", n, k, got, ok, v)
			}
		}
		for range 1000 {
			k := rng.Uint64()
			if _, in := m[k]; in {
				continue
			}
			if got, ok := tab.get(k); ok {
				t.Fatalf("n=%d: get(%#x) of an absent key = %d", n, k, got)
			}
		}
		for _, k := range []uint64{0, 1, 1<<64 - 1} {
			_, want := m[k]
			if _, ok := tab.get(k); ok != want {
				t.Fatalf("n=%d: get(%#x) found %v, want %v", n, k, ok, want)
			}
		}

		// Its binary form reads back as the same table.
		back, ok := idTableOfWords(slices.Clone(tab.words()), tab.homes, 1<<30)
		if !ok || back.len() != n || !slices.Equal(back.slots, tab.slots) {
			t.Fatalf("n=%d: read back %v, %d keys", n, ok, back.len())
		}
		if n > 0 {
			top := slices.Max(slices.Collect(maps.Values(m)))
			if _, ok := idTableOfWords(tab.words(), tab.homes, top); ok {
				t.Fatalf("n=%d: the value %d accepted below %d", n, top, top)
			}
		}

		// Without values, a key's value is its position.
		keys := slices.Sorted(maps.Keys(m))
		pos, ok := newIDTable(keys, nil)
		if !ok {
			t.Fatalf("n=%d: sorted keys refused", n)
		}
		for i, k := range keys {
			if got, ok := pos.get(k); !ok || got != uint32(i) {
				t.Fatalf("n=%d: position of key %d = %d, %v", n, i, got, ok)
			}
		}
		if _, ok := idTableOfWords(pos.words(), pos.homes, uint32(n)); !ok {
			t.Errorf("n=%d: positions below %d refused", n, n)
		}
		if _, ok := idTableOfWords(pos.words(), pos.homes, uint32(n-1)); ok && n > 0 {
			t.Errorf("n=%d: position %d accepted below %d", n, n-1, n-1)
		}
	}
}

func TestIDTableRefuses(t *testing.T) {
	for name, c := range map[string]struct {
		keys []uint64
		vals []uint32
	}{
		"descending":       {[]uint64{5, 3}, nil},
		"repeated":         {[]uint64{3, 3}, nil},
		"values too few":   {[]uint64{1, 2}, []uint32{0}},
		"values too many":  {[]uint64{1}, []uint32{0, 1}},
		"repeated at last": {[]uint64{1, 2, 1<<64 - 1, 1<<64 - 1}, nil},
	} {
		if _, ok := newIDTable(c.keys, c.vals); ok {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestIDTableWordsRefused: a binary form that lookups would read wrong is
// refused: keys out of order, a key before its home, a value out of range,
// a free slot's noValue anywhere but before the first key.
func TestIDTableWordsRefused(t *testing.T) {
	good, _ := newIDTable([]uint64{1 << 62, 1<<62 + 1, 1 << 63, 3 << 62}, []uint32{0, 1, 2, 3})
	if _, ok := idTableOfWords(good.words(), good.homes, 4); !ok {
		t.Fatal("a table newIDTable made is refused")
	}
	for name, edit := range map[string]func(s []idSlot) uint64{
		"descending":    func(s []idSlot) uint64 { s[len(s)-1], s[len(s)-2] = s[len(s)-2], s[len(s)-1]; return good.homes },
		"before home":   func(s []idSlot) uint64 { return good.homes * 4 },
		"value too big": func(s []idSlot) uint64 { s[len(s)-1].val = 4; return good.homes },
		"no value":      func(s []idSlot) uint64 { s[len(s)-1].val = noValue; return good.homes },
		"no homes":      func(s []idSlot) uint64 { return 0 },
	} {
		s := slices.Clone(good.slots)
		homes := edit(s)
		w := unsafe.Slice(&s[0].lo, 3*len(s))
		if _, ok := idTableOfWords(w, homes, 4); ok {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, ok := idTableOfWords(make([]uint32, 4), 1, 4); ok {
		t.Error("words that are not whole slots accepted")
	}
}
