package tcgplayer

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The fuzz targets of the tcgcsv files: any bytes are refused with an error
// or decoded into records that pass the checks, and what is decoded
// round-trips: written with Encode and read again, it is the same.

// sampleSeed is a real file of the bundled sample cut to its first n
// records (the whole file would slow every fuzzing step).
func sampleSeed[T any](f *testing.F, path string, decode func(*bytes.Reader) ([]T, error), n int, withTotal bool) []byte {
	f.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "sample", "tcgplayer", path))
	if err != nil {
		f.Fatal(err)
	}
	recs, err := decode(bytes.NewReader(b))
	if err != nil {
		f.Fatal(err)
	}
	var out bytes.Buffer
	if err := Encode(&out, recs[:min(n, len(recs))], withTotal); err != nil {
		f.Fatal(err)
	}
	return out.Bytes()
}

// edgeSeeds are envelopes every decoder must refuse or read cleanly.
var edgeSeeds = []string{
	``, `null`, `[]`, `{}`, `{"success":false,"errors":["boom"],"results":[]}`, `{"success":true}`,
	`{"success":true,"results":null}`, `{"success":true,"results":[null]}`, `{"success":true,"results":[{}]}`,
	`{"success":"yes","results":[]}`, `{"success":true,"results":{}}`, `{"success":true,"results":[1,"x",[]]}`,
	`{"success":true,"results":[{"productId":-1}]}`, `{"success":true,"results":[{"productId":1e400}]}`,
	`{"success":true,"results":[{"productId":1,"name":"\ud800","subTypeName":"Normal","lowPrice":-0.01}]}`,
	`{"success":true,"results":[{"productId":1,"name":"a","subTypeName":"Foil","marketPrice":1e308}]}`,
	`{"success":true,"results":[{"productId":9223372036854775808}]}`, `{"success":true,"results":[]}garbage`,
	`{"success":true,"success":false,"results":[]}`, "{\"success\":true,\"results\":[{\"productId\":1,\"name\":\"\xff\"}]}",
}

func roundTrip[T any](t *testing.T, recs []T, withTotal bool, decode func(*bytes.Reader) ([]T, error)) {
	t.Helper()
	var b bytes.Buffer
	if err := Encode(&b, recs, withTotal); err != nil {
		t.Fatalf("Encode: %v", err)
	}
	again, err := decode(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatalf("decoded records do not decode once written again: %v\n%s", err, b.Bytes())
	}
	if diff := cmp.Diff(recs, again); diff != "" {
		t.Fatalf("records changed when written and read again (-first +again):\n%s", diff)
	}
}

func checkErr(t *testing.T, recs any, n int, err error) {
	t.Helper()
	if err.Error() == "" {
		t.Fatal("an error with no message")
	}
	if n != 0 {
		t.Fatalf("error %v, with %d records", err, n)
	}
	var re *RecordError
	if errors.As(err, &re) && re.Index < 0 {
		t.Fatalf("RecordError at index %d", re.Index)
	}
}

func FuzzDecodeProducts(f *testing.F) {
	decode := func(r *bytes.Reader) ([]Product, error) { return DecodeProducts(r) }
	f.Add(sampleSeed(f, "80/23401/products.json", decode, 2, true))
	f.Add(sampleSeed(f, "1/23447/products.json", decode, 2, true))
	for _, s := range edgeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ps, err := DecodeProducts(bytes.NewReader(data))
		if err != nil {
			checkErr(t, ps, len(ps), err)
			return
		}
		for i, p := range ps {
			if p.ProductID <= 0 || p.Name == "" {
				t.Fatalf("product %d accepted without its id or name: %+v", i, p)
			}
		}
		roundTrip(t, ps, true, decode)
	})
}

func FuzzDecodePrices(f *testing.F) {
	decode := func(r *bytes.Reader) ([]Price, error) { return DecodePrices(r) }
	f.Add(sampleSeed(f, "80/23401/prices.json", decode, 3, false))
	f.Add(sampleSeed(f, "1/23447/prices.json", decode, 3, false))
	for _, s := range edgeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ps, err := DecodePrices(bytes.NewReader(data))
		if err != nil {
			checkErr(t, ps, len(ps), err)
			return
		}
		for i, p := range ps {
			if p.ProductID <= 0 || p.SubTypeName == "" {
				t.Fatalf("price %d accepted without its product id or finish: %+v", i, p)
			}
			for _, v := range []*float64{p.LowPrice, p.MidPrice, p.HighPrice, p.MarketPrice, p.DirectLowPrice} {
				if v != nil && !(*v >= 0) {
					t.Fatalf("price %d accepted with the value %v", i, *v)
				}
			}
		}
		roundTrip(t, ps, false, decode)
	})
}

func FuzzDecodeGroups(f *testing.F) {
	decode := func(r *bytes.Reader) ([]Group, error) { return DecodeGroups(r) }
	f.Add(sampleSeed(f, "80/groups.json", decode, 2, true))
	for _, s := range edgeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		gs, err := DecodeGroups(bytes.NewReader(data))
		if err != nil {
			checkErr(t, gs, len(gs), err)
			return
		}
		for i, g := range gs {
			if g.GroupID <= 0 || g.Name == "" {
				t.Fatalf("group %d accepted without its id or name: %+v", i, g)
			}
		}
		roundTrip(t, gs, true, decode)
	})
}
