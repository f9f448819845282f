package serving

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/cardcat/cardcat/internal/analytics"
	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/pace"
	"github.com/zeebo/xxh3"
)

// FuzzReadArtifact: reading any bytes as an artifact never panics and
// either refuses them (ErrArtifactInvalid) or gives a view that answers
// every card, set, search and paid answer without panicking. With reseal,
// the header's checksum is made to match the bytes first, so that the
// fuzzer reaches the decoders behind it (a damaged file has a wrong checksum;
// these inputs are what a file built to pass it could hold).
func FuzzReadArtifact(f *testing.F) {
	good := fixtureArtifact(f)
	f.Add(good, false)
	f.Add(good, true)
	f.Add(good[:len(good)/2], true)
	flipped := bytes.Clone(good)
	flipped[len(flipped)-1] ^= 1 // the checksum refuses it
	f.Add(flipped, false)
	f.Add([]byte("CCSNAP\r\n"), false)
	f.Add([]byte{}, false)
	reg := game.Default()
	f.Fuzz(func(t *testing.T, data []byte, reseal bool) {
		if reseal {
			data = resealed(data, len(reg.All())+1)
		}
		// Both ways of reading: copied from a reader, and in place (as
		// from a mapped file), whose strings share data; in place paced
		// too (the checksum after the decoding, in one goroutine).
		v, err := readArtifact(bytes.NewReader(data), int64(len(data)), reg, 1, nil)
		mv, merr := readMapped(data, nil, reg, 1, nil)
		_, perr := readMapped(data, nil, reg, 1, new(pace.Pacer))
		for _, e := range []error{err, merr, perr} {
			if e != nil && !errors.Is(e, ErrArtifactInvalid) {
				t.Fatalf("an error that is not a refusal: %v", e)
			}
		}
		if (err == nil) != (merr == nil) || (merr == nil) != (perr == nil) {
			t.Fatalf("read: %v; in place: %v; in place, paced: %v", err, merr, perr)
		}
		if err == nil {
			exercise(v)
			exercise(mv)
		}
	})
}

// fixtureArtifact is the artifact of the catalog package's fixture at version 1.
func fixtureArtifact(tb testing.TB) []byte {
	c := mustFixture(tb)
	c.Version = 1
	v, err := Build(c, game.Default(), analytics.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	path := filepath.Join(tb.TempDir(), "1.snap")
	if err := WriteArtifact(path, v); err != nil {
		tb.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// resealed returns data with its header's checksum recomputed, when it has
// a header of n sections.
func resealed(data []byte, n int) []byte {
	hl := headerLen(n)
	if len(data) < hl {
		return data
	}
	data = bytes.Clone(data)
	body := data[hl:]
	sum := sealSum(data[:hl-8], xxh3.Hash(body))
	binary.LittleEndian.PutUint64(data[hl-8:], sum)
	return data
}

// exercise asks v for every kind of answer.
func exercise(v *View) {
	ctx := context.Background()
	var p catalog.CardPrices
	for _, gs := range v.Games() {
		for r := catalog.CardRef(0); int(r) < gs.Len(); r++ {
			_ = gs.CardJSON(r)
			_ = gs.AppendListing(nil, r)
			gs.ImageProduct(r)
			gs.CardPrices(r, &p)
			gs.LookupCard(p.ID)
			gs.Search(ctx, p.Name)
			gs.Search(ctx, p.CardNumber)
		}
		for _, q := range []string{"a", "ab", "abc", "dragon ball", "1"} {
			gs.Search(ctx, q)
		}
		paid := v.Paid[gs.Game().Code]
		for _, s := range gs.Sets() {
			gs.SetsByCode(s.Code)
			gs.SuggestSets(s.Name, 5)
			for _, src := range []string{"", "tcg", "cm"} {
				paid.PricesBySet(s.ID, src)
			}
			paid.Statistics(s.ID, "foil")
			paid.CompletionValue(s.ID)
		}
		paid.Trending(50)
		paid.TopCards("price", "tcg", 100)
		paid.TopCards("growth", "cm", 100)
	}
}
