// Package mtgjson reads MTGJSON's mtg-sealed-content product files (converted
// to JSON), which link TCGplayer and Cardmarket ids of sealed products.
package mtgjson

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
)

// Link ties one TCGplayer product to one Cardmarket product.
type Link struct {
	Name               string
	TCGplayerProductID int
	CardmarketID       int
}

type sealedFile struct {
	Code     string `json:"code"`
	Products map[string]struct {
		Identifiers map[string]string `json:"identifiers"`
	} `json:"products"`
}

// DecodeSealedLinks returns the links of one set file: products that carry
// both a tcgplayerProductId and an mcmId, in name order.
func DecodeSealedLinks(r io.Reader) ([]Link, error) {
	var f sealedFile
	if err := json.NewDecoder(r).Decode(&f); err != nil {
		return nil, fmt.Errorf("not an mtg-sealed-content file: %w", err)
	}
	if f.Products == nil {
		return nil, fmt.Errorf("not an mtg-sealed-content file: no \"products\" object")
	}
	names := make([]string, 0, len(f.Products))
	for n := range f.Products {
		names = append(names, n)
	}
	sort.Strings(names)
	var links []Link
	for _, n := range names {
		ids := f.Products[n].Identifiers
		t, m := ids["tcgplayerProductId"], ids["mcmId"]
		if t == "" || m == "" {
			continue
		}
		tid, err1 := strconv.Atoi(t)
		mid, err2 := strconv.Atoi(m)
		if err1 != nil || err2 != nil || tid <= 0 || mid <= 0 {
			return nil, fmt.Errorf("product %q: identifiers tcgplayerProductId %q / mcmId %q are not positive integers", n, t, m)
		}
		links = append(links, Link{Name: n, TCGplayerProductID: tid, CardmarketID: mid})
	}
	return links, nil
}
