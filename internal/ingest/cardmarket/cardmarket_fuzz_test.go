package cardmarket

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The fuzz targets of Cardmarket's files: any bytes are refused with an
// error or decoded into records that pass the checks, and what is decoded
// round-trips through Encode.

// sampleFile is a file of the bundled sample.
func sampleFile(f *testing.F, name string) []byte {
	f.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "sample", "cardmarket", name))
	if err != nil {
		f.Fatal(err)
	}
	return b
}

func encoded(f *testing.F, v any) []byte {
	f.Helper()
	var b bytes.Buffer
	if err := Encode(&b, v); err != nil {
		f.Fatal(err)
	}
	return b.Bytes()
}

var edgeSeeds = []string{
	``, `null`, `[]`, `{}`, `{"products":null}`, `{"products":{}}`, `{"products":[null]}`, `{"products":[{}]}`,
	`{"priceGuides":[{"idProduct":1,"avg":-1}]}`, `{"priceGuides":[{"idProduct":1,"avg-foil":1e308,"low":0}]}`,
	`{"expansion":[{"idExpansion":1,"enName":""}]}`, `{"expansion":[{"idExpansion":"1","enName":"x"}]}`,
	`{"version":"x","createdAt":5,"products":[{"idProduct":1,"name":"a"}]}`, `{"products":[],"products":[{"idProduct":2,"name":"b"}]}`,
	`{"products":[{"idProduct":1,"name":"\ud800"}]}`, "{\"products\":[{\"idProduct\":1,\"name\":\"\xff\"}]}",
	`{"products":[{"idProduct":1e400,"name":"a"}]}`, `{"products":[]} trailing`,
}

func checkErr(t *testing.T, err error) {
	t.Helper()
	var re *RecordError
	if err.Error() == "" || errors.As(err, &re) && re.Index < 0 {
		t.Fatalf("bad error %#v", err)
	}
}

func FuzzDecodeProducts(f *testing.F) {
	for _, name := range []string{"13/products_singles.json", "1/products_nonsingles.json"} {
		l, err := DecodeProducts(bytes.NewReader(sampleFile(f, name)))
		if err != nil {
			f.Fatal(err)
		}
		l.Products = l.Products[:min(3, len(l.Products))]
		f.Add(encoded(f, l))
	}
	for _, s := range edgeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := DecodeProducts(bytes.NewReader(data))
		if err != nil {
			if l != nil {
				t.Fatalf("error %v with a list", err)
			}
			checkErr(t, err)
			return
		}
		for i, p := range l.Products {
			if p.IDProduct <= 0 || p.Name == "" {
				t.Fatalf("product %d accepted without its id or name: %+v", i, p)
			}
		}
		again, err := DecodeProducts(bytes.NewReader(encodedT(t, l)))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(l, again); diff != "" {
			t.Fatalf("product list changed when written and read again:\n%s", diff)
		}
	})
}

func FuzzDecodePriceGuide(f *testing.F) {
	for _, name := range []string{"13/price_guide.json", "1/price_guide.json"} {
		g, err := DecodePriceGuide(bytes.NewReader(sampleFile(f, name)))
		if err != nil {
			f.Fatal(err)
		}
		g.PriceGuides = g.PriceGuides[:min(3, len(g.PriceGuides))]
		f.Add(encoded(f, g))
	}
	for _, s := range edgeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := DecodePriceGuide(bytes.NewReader(data))
		if err != nil {
			if g != nil {
				t.Fatalf("error %v with a guide", err)
			}
			checkErr(t, err)
			return
		}
		for i, p := range g.PriceGuides {
			if p.IDProduct <= 0 {
				t.Fatalf("price guide %d accepted without its id: %+v", i, p)
			}
			for _, v := range []*float64{p.Avg, p.Low, p.Trend, p.Avg1, p.Avg7, p.Avg30, p.AvgFoil, p.LowFoil, p.TrendFoil, p.Avg1Foil, p.Avg7Foil, p.Avg30Foil} {
				if v != nil && !(*v >= 0) {
					t.Fatalf("price guide %d accepted with the value %v", i, *v)
				}
			}
		}
		again, err := DecodePriceGuide(bytes.NewReader(encodedT(t, g)))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(g, again); diff != "" {
			t.Fatalf("price guide changed when written and read again:\n%s", diff)
		}
	})
}

func FuzzDecodeExpansions(f *testing.F) {
	es, err := DecodeExpansions(bytes.NewReader(sampleFile(f, "13/expansions.json")))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(encoded(f, &ExpansionList{Expansion: es[:min(3, len(es))]}))
	for _, s := range edgeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		es, err := DecodeExpansions(bytes.NewReader(data))
		if err != nil {
			if es != nil {
				t.Fatalf("error %v with expansions", err)
			}
			checkErr(t, err)
			return
		}
		for i, e := range es {
			if e.IDExpansion <= 0 {
				t.Fatalf("expansion %d accepted without its id: %+v", i, e)
			}
		}
		again, err := DecodeExpansions(bytes.NewReader(encodedT(t, &ExpansionList{Expansion: es})))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(es, again); diff != "" {
			t.Fatalf("expansions changed when written and read again:\n%s", diff)
		}
	})
}

func encodedT(t *testing.T, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Encode(&b, v); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
