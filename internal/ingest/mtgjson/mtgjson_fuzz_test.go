package mtgjson

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzDecodeSealedLinks: any bytes are refused with an error or give links
// with positive ids, in name order, one per product; the links round-trip
// through a file written from them.
func FuzzDecodeSealedLinks(f *testing.F) {
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "shared", "data", "links", "mtg-sealed-content", "BLB.json"))
	if err == nil {
		var real struct {
			Code     string                     `json:"code"`
			Products map[string]json.RawMessage `json:"products"`
		}
		if json.Unmarshal(b, &real) == nil {
			cut := map[string]json.RawMessage{}
			for _, n := range slices.Sorted(mapKeys(real.Products))[:min(4, len(real.Products))] {
				cut[n] = real.Products[n]
			}
			real.Products = cut
			seed, _ := json.Marshal(real)
			f.Add(seed)
		}
	}
	for _, s := range []string{``, `null`, `{}`, `{"products":null}`, `{"products":{}}`, `{"products":[]}`,
		`{"products":{"a":{}}}`, `{"products":{"a":{"identifiers":null}}}`,
		`{"products":{"a":{"identifiers":{"tcgplayerProductId":"1","mcmId":"2"}}}}`,
		`{"products":{"a":{"identifiers":{"tcgplayerProductId":"-1","mcmId":"2"}}}}`,
		`{"products":{"a":{"identifiers":{"tcgplayerProductId":"1","mcmId":"x"}}}}`,
		`{"products":{"a":{"identifiers":{"tcgplayerProductId":1,"mcmId":2}}}}`,
		`{"products":{"a":{"identifiers":{"tcgplayerProductId":"99999999999999999999","mcmId":"2"}}}}`,
		`{"products":{"b":{"identifiers":{"tcgplayerProductId":"+1","mcmId":"02"}}},"products":{}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		links, err := DecodeSealedLinks(bytes.NewReader(data))
		if err != nil {
			if links != nil || err.Error() == "" {
				t.Fatalf("error %v with links %v", err, links)
			}
			return
		}
		for i, l := range links {
			if l.TCGplayerProductID <= 0 || l.CardmarketID <= 0 {
				t.Fatalf("link %d: %+v", i, l)
			}
			if i > 0 && links[i-1].Name >= l.Name {
				t.Fatalf("links not in name order, or a product twice: %q then %q", links[i-1].Name, l.Name)
			}
		}
		file := sealedFile{Products: map[string]struct {
			Identifiers map[string]string `json:"identifiers"`
		}{}}
		for _, l := range links {
			file.Products[l.Name] = struct {
				Identifiers map[string]string `json:"identifiers"`
			}{map[string]string{"tcgplayerProductId": strconv.Itoa(l.TCGplayerProductID), "mcmId": strconv.Itoa(l.CardmarketID)}}
		}
		b, err := json.Marshal(file)
		if err != nil {
			t.Fatal(err)
		}
		again, err := DecodeSealedLinks(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("links written again do not decode: %v", err)
		}
		if diff := cmp.Diff(links, again); diff != "" {
			t.Fatalf("links changed when written and read again:\n%s", diff)
		}
	})
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
