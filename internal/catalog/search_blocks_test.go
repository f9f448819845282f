package catalog

import (
	"context"
	"slices"
	"testing"
)

// TestSearchBlocksMatchBruteForce compares the index with bruteSearch on the
// queries that the block maps answer, with maps for every token's list and
// with a budget that leaves some lists without one (the matcher then ANDs
// the maps it has and checks the other words by their lists).
func TestSearchBlocksMatchBruteForce(t *testing.T) {
	names, nums, folded, foldedNums := diffFixture()
	n := len(names)
	qs := diffQueries(names, nums)
	// Words of three and more, each in many names, so that their lists are
	// long enough for maps.
	qs = append(qs, "son goku", "goku son", "dragon ancient", "son song sonic", "lost forest goku",
		"battle son", "the of", "season goku gohan", "vegeta soldier", "sol sole", "cafe goku", "son (1", "son 1")
	type want struct {
		refs      []uint32
		truncated bool
	}
	maxes := []int{MaxSearchMatches, 7}
	wants := make([][2]want, len(qs))
	for i, q := range qs {
		for j, max := range maxes {
			wants[i][j].refs, wants[i][j].truncated = bruteSearch(folded, foldedNums, Fold(q), max)
		}
	}
	ctx := context.Background()
	build := func(denseLists int) searchIndex {
		b := newIndexBuilder(n)
		b.denseLists = denseLists
		for i := range names {
			b.add(names[i], nums[i])
		}
		return b.build()
	}
	// Without bitsets every long token's list has a map; with a few
	// bitsets some words are checked by them.
	plain, mixed := build(0), build(12)
	all := len(plain.blocks.at)
	for _, v := range []struct {
		name   string
		ix     searchIndex
		budget int
	}{{"maps", plain, defaultBlockBudget * n}, {"fewer maps", plain, plain.blocks.bytes() / 3}, {"maps and bitsets", mixed, defaultBlockBudget * n}} {
		ix := v.ix
		ix.blocks = buildBlockLists(&ix, n, v.budget)
		if len(ix.blocks.at) == 0 || v.name == "fewer maps" && len(ix.blocks.at) == all {
			t.Fatalf("%s: %d maps of %d", v.name, len(ix.blocks.at), all)
		}
		used := 0
		for i, q := range qs {
			qn := Fold(q)
			if m := ix.matchWords(new(wordMatcher), qn); m.drive.blocks != nil {
				used++
			}
			for j, max := range maxes {
				got, truncated, err := ix.search(stop{ctx: ctx}, new(searchBuf), qn, max)
				if err != nil {
					t.Fatal(err)
				}
				want, wantTruncated := wants[i][j].refs, wants[i][j].truncated
				if truncated != wantTruncated || !slices.Equal(got, want) {
					t.Fatalf("%s: search(%q, max %d): %d refs, truncated %v; want %d, %v (first difference at %d)",
						v.name, qn, max, len(got), truncated, len(want), wantTruncated, firstDiff(got, want))
				}
			}
		}
		t.Logf("%s: %d maps, %d bitsets, %d of %d queries by block maps", v.name, len(ix.blocks.at), len(ix.dense.at), used, len(qs))
		if used < 20 {
			t.Fatalf("%s: only %d queries used the block maps", v.name, used)
		}
	}
}
