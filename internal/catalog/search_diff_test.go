package catalog

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// bruteSearch is the reference for searchIndex.search: it applies the rules
// of the Search doc comment literally to every folded name and number.
func bruteSearch(names, nums []string, qn string, max int) ([]uint32, bool) {
	if qn == "" {
		return nil, false
	}
	short := utf8.RuneCountInString(qn) < 3
	words := strings.Split(qn, " ")
	var exact, prefixed, rest []uint32
	for i, name := range names {
		r := uint32(i)
		switch {
		case name == qn:
			exact = append(exact, r)
		case strings.HasPrefix(name, qn):
			prefixed = append(prefixed, r)
		case strings.HasPrefix(nums[i], qn):
			rest = append(rest, r)
		case !short && containsAll(name, words):
			rest = append(rest, r)
		}
	}
	all := slices.Concat(exact, prefixed, rest)
	if len(all) > max {
		return all[:max], true
	}
	return all, false
}

// diffCatalog generates n raw names and numbers (in ref order) full of
// shared short prefixes, repeated words and whole names, accents, quotes,
// odd spacing, card numbers, words that hold the grams of other words, plus groups sized at the edges of the
// 1,000-match cap.
func diffCatalog(n int) (names, nums []string) {
	rng := rand.New(rand.NewPCG(7, 8))
	words := strings.Fields(`so son song sonic season s b bt bta fb fbo ba bat battle batte élan Ærø jötun
		lim-dûl straße œuvre naïve café CAFÉ co-op x xx xxx aaaa 日本 日本語 ß the of goku gohan vegeta
		dragon dra drago ancient lost forest Forêt island-born doctor's “tomb” 50% a_b * / ! ø ł đ þ
		SOLAR sol soldier sole abcz zbcd gokx xoku`)
	pool := make([]string, 150) // whole names that repeat
	for i := range pool {
		pool[i] = words[rng.IntN(len(words))] + " " + words[rng.IntN(len(words))]
	}
	space := []string{" ", " ", " ", "  ", "\t", " \u00a0"}
	for i := 0; i < n; i++ {
		var name string
		switch rng.IntN(10) {
		case 0, 1:
			name = pool[rng.IntN(len(pool))]
		case 2:
			name = words[rng.IntN(len(words))]
		default:
			var b strings.Builder
			if rng.IntN(20) == 0 {
				b.WriteString(" ")
			}
			for w := rng.IntN(4); w >= 0; w-- {
				if b.Len() > 0 {
					b.WriteString(space[rng.IntN(len(space))])
				}
				b.WriteString(words[rng.IntN(len(words))])
			}
			if rng.IntN(10) == 0 {
				fmt.Fprintf(&b, " (%d)", rng.IntN(300))
			}
			name = b.String()
		}
		var num string
		switch k := rng.IntN(20); {
		case k == 0:
			num = ""
		case k < 4:
			num = fmt.Sprintf("BT%d-%03d", rng.IntN(25), rng.IntN(200))
		case k < 7:
			num = fmt.Sprintf("FB0%d-%03d", rng.IntN(8), rng.IntN(200))
		case k < 8:
			num = fmt.Sprintf("%d", rng.IntN(400))
		default:
			num = fmt.Sprintf("S%04d-%03d", rng.IntN(120), rng.IntN(250))
		}
		names = append(names, name)
		nums = append(nums, num)
	}
	// Groups at the cap's edges, scattered over the refs: exactly 1,000
	// and 1,001 matches by word, by exact name, split between exact and
	// prefixed names, and by number.
	at := rng.Perm(n)
	put := func(count int, name func(i int) string, num func(i int) string) {
		for i := 0; i < count; i++ {
			r := at[0]
			at = at[1:]
			names[r] = name(i)
			if num != nil {
				nums[r] = num(i)
			}
		}
	}
	put(1000, func(i int) string { return []string{"Milla", "milla x", "Son milla", "xmillax"}[i%4] }, nil)
	put(1001, func(i int) string { return []string{"Myria", "myria x", "Son myria", "xmyriax"}[i%4] }, nil)
	put(1001, func(int) string { return "Plains" }, nil)
	put(1000, func(int) string { return "Islande" }, nil)
	put(600, func(int) string { return "Mixo" }, nil)
	put(401, func(int) string { return "Mixo y" }, nil)
	put(999, func(int) string { return "Mixu" }, nil)
	put(1, func(int) string { return "Mixu z" }, nil)
	put(1000, func(int) string { return "Quay" }, func(i int) string { return fmt.Sprintf("Q-%04d", i) })
	put(1001, func(int) string { return "Ray" }, func(i int) string { return fmt.Sprintf("R-%04d", i) })
	return names, nums
}

// diffQueries makes queries of every kind from the catalogue.
func diffQueries(names, nums []string) []string {
	rng := rand.New(rand.NewPCG(9, 10))
	seen := map[string]bool{}
	var qs []string
	add := func(q string) {
		if !seen[q] {
			seen[q] = true
			qs = append(qs, q)
		}
	}
	runes := func(s string, k int) string {
		r := []rune(s)
		return string(r[:min(k, len(r))])
	}
	for _, q := range []string{"milla", "myria", "plains", "islande", "island", "mixo", "mixo y", "mix", "mixu",
		"q-", "r-", "q", "r", "qu", "ra", "son son", "so so", "s s", "a b", "goku goku gohan", "  so  ", "so ",
		"bt", "BT", "fb", "FB0", "s0", "s", "b", "1", "12", "日", "日本", "日本語", "ß", "ss", "STRASSE",
		"doctors", "“tomb”", "50%", "a_b", "*", "/", "!", "zzzz", "xmilla", "son milla", "milla son",
		// Names holding every gram of these words but not the words.
		"abcd", "zbcdz", "abcz zbcd", "gokxoku", "xokx"} {
		add(q)
	}
	for len(qs) < 2500 {
		i := rng.IntN(len(names))
		name := Fold(names[i])
		ws := strings.Fields(name)
		if len(ws) == 0 {
			continue
		}
		w := ws[rng.IntN(len(ws))]
		switch rng.IntN(12) {
		case 0:
			add(runes(name, 1))
		case 1:
			add(runes(name, 2))
		case 2:
			add(runes(names[i], 2)) // raw: accents, capitals
		case 3:
			add(w)
		case 4:
			if len(ws) > 1 {
				add(ws[1] + " " + ws[0])
			}
		case 5:
			r := []rune(w)
			if len(r) >= 3 {
				j := rng.IntN(len(r) - 2)
				add(string(r[j : j+3]))
			}
		case 6:
			add(names[i])
		case 7:
			add(runes(name, 1+rng.IntN(utf8.RuneCountInString(name))))
		case 8:
			add(runes(nums[i], 1+rng.IntN(max(1, len(nums[i])))))
		case 9:
			add(nums[i])
		case 10:
			add(w + " " + w)
		case 11:
			add("zq" + w)
		}
	}
	return qs
}

// diffFixture is the generated catalogue the brute-force comparisons run
// on (40,000 cards, 12,000 with -short): names, numbers and their folded
// forms.
func diffFixture() (names, nums, folded, foldedNums []string) {
	n := 40000
	if testing.Short() {
		n = 12000
	}
	names, nums = diffCatalog(n)
	folded, foldedNums = make([]string, n), make([]string, n)
	for i := range names {
		folded[i], foldedNums[i] = Fold(names[i]), Fold(nums[i])
	}
	return names, nums, folded, foldedNums
}

// TestSearchMatchesBruteForce compares the index with bruteSearch on a
// generated catalogue, for builds with and without prefix heads and dense
// bitsets, and with budgets small enough to leave some ranges and lists
// without them.
func TestSearchMatchesBruteForce(t *testing.T) {
	names, nums, folded, foldedNums := diffFixture()
	n := len(names)
	qs := diffQueries(names, nums)
	type want struct {
		refs      []uint32
		truncated bool
	}
	wants := make([]want, len(qs))
	for i, q := range qs {
		wants[i].refs, wants[i].truncated = bruteSearch(folded, foldedNums, Fold(q), MaxSearchMatches)
	}
	for _, edge := range []struct {
		q         string
		n         int
		truncated bool
	}{{"milla", 1000, false}, {"myria", 1000, true}, {"plains", 1000, true}, {"islande", 1000, false},
		{"mixo", 1000, true}, {"mixu", 1000, false}, {"q-", 1000, false}, {"r-", 1000, true}} {
		w := wants[slices.Index(qs, edge.q)]
		if len(w.refs) != edge.n || w.truncated != edge.truncated {
			t.Fatalf("reference %q: %d matches, truncated %v; the catalogue lost its cap edges", edge.q, len(w.refs), w.truncated)
		}
	}

	variants := []struct {
		name                                              string
		headMin, headRefs, denseDiv, denseLists, wideWord int
	}{
		{"defaults", defaultHeadMin, defaultHeadBudget * n, defaultDenseDiv, defaultDenseBudget * 8, defaultWideWord},
		{"plain", 1 << 30, 0, 0, 0, defaultWideWord},
		{"everything", 2, 1000 * n, 1000, 1 << 20, defaultWideWord},
		{"small budgets", 16, 12 * headLen, 400, 5, defaultWideWord},
		// Every word in more than one token is checked on the names.
		{"narrow words", defaultHeadMin, defaultHeadBudget * n, defaultDenseDiv, defaultDenseBudget * 8, 1},
		// No word is wide: the unions of many lists.
		{"wide words", defaultHeadMin, defaultHeadBudget * n, defaultDenseDiv, defaultDenseBudget * 8, 1 << 30},
	}
	ctx := context.Background()
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			b := newIndexBuilder(n)
			b.headMin, b.headRefs, b.denseDiv, b.denseLists, b.wideWord = v.headMin, v.headRefs, v.denseDiv, v.denseLists, v.wideWord
			for i := range names {
				b.add(names[i], nums[i])
			}
			ix := b.build()
			t.Logf("%d name heads, %d number heads, %d bitsets; %.1f extra bytes per card",
				len(ix.nameHeads.at), len(ix.numHeads.at), len(ix.dense.at), float64(ix.extraBytes())/float64(n))
			if v.name == "everything" && (len(ix.nameHeads.at) == 0 || len(ix.numHeads.at) == 0 || len(ix.dense.at) == 0) {
				t.Fatalf("the build made no heads or bitsets to test")
			}
			buf := new(searchBuf) // reused by every search, as the pool reuses one
			for i, q := range qs {
				qn := Fold(q)
				got, truncated, err := ix.search(stop{ctx: ctx}, buf, qn, MaxSearchMatches)
				if err != nil {
					t.Fatal(err)
				}
				w := wants[i]
				if truncated != w.truncated || !slices.Equal(got, w.refs) {
					t.Fatalf("search(%q): %d refs, truncated %v; want %d, %v (first difference at %d)",
						qn, len(got), truncated, len(w.refs), w.truncated, firstDiff(got, w.refs))
				}
				if i%10 == 0 { // a smaller cap cuts every group somewhere
					for _, m := range []int{1, 7, 300} {
						got, truncated, _ := ix.search(stop{ctx: ctx}, buf, qn, m)
						wr, wt := bruteSearch(folded, foldedNums, qn, m)
						if truncated != wt || !slices.Equal(got, wr) {
							t.Fatalf("search(%q, max %d): %d refs, truncated %v; want %d, %v",
								qn, m, len(got), truncated, len(wr), wt)
						}
					}
				}
			}
		})
	}
}

func firstDiff(a, b []uint32) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
