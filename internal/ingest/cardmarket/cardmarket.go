// Package cardmarket reads and writes Cardmarket's public download files: the
// product lists (singles and non-singles), the price guide, and the expansion
// list in the shape of Cardmarket's API.
package cardmarket

import (
	"encoding/json"
	"fmt"
	"io"
)

// Product is one entry of products_singles_{game}.json or products_nonsingles_{game}.json.
type Product struct {
	IDProduct    int    `json:"idProduct"`
	Name         string `json:"name"`
	IDCategory   int    `json:"idCategory"`
	CategoryName string `json:"categoryName"`
	IDExpansion  int    `json:"idExpansion"`
	IDMetacard   int    `json:"idMetacard"`
	DateAdded    string `json:"dateAdded"`
}

// ProductList is a product list file.
type ProductList struct {
	Version   int       `json:"version"`
	CreatedAt string    `json:"createdAt"`
	Products  []Product `json:"products"`
}

// PriceGuide is one product's entry of price_guide_{game}.json, in EUR.
// The foil finish is in the "-foil" fields.
type PriceGuide struct {
	IDProduct  int      `json:"idProduct"`
	IDCategory int      `json:"idCategory"`
	Avg        *float64 `json:"avg"`
	Low        *float64 `json:"low"`
	Trend      *float64 `json:"trend"`
	Avg1       *float64 `json:"avg1"`
	Avg7       *float64 `json:"avg7"`
	Avg30      *float64 `json:"avg30"`
	AvgFoil    *float64 `json:"avg-foil"`
	LowFoil    *float64 `json:"low-foil"`
	TrendFoil  *float64 `json:"trend-foil"`
	Avg1Foil   *float64 `json:"avg1-foil"`
	Avg7Foil   *float64 `json:"avg7-foil"`
	Avg30Foil  *float64 `json:"avg30-foil"`
}

// PriceGuideFile is a price guide file.
type PriceGuideFile struct {
	Version     int          `json:"version"`
	CreatedAt   string       `json:"createdAt"`
	PriceGuides []PriceGuide `json:"priceGuides"`
}

// Expansion is one expansion in the shape of Cardmarket's API.
type Expansion struct {
	IDExpansion  int    `json:"idExpansion"`
	EnName       string `json:"enName"`
	Abbreviation string `json:"abbreviation"`
	ReleaseDate  string `json:"releaseDate"`
	IDGame       int    `json:"idGame"`
}

// ExpansionList is the expansions file: {"expansion": [...]}.
type ExpansionList struct {
	Expansion []Expansion `json:"expansion"`
}

// RecordError names the record of a file that could not be used.
type RecordError struct {
	Index int
	ID    string
	Err   error
}

func (e *RecordError) Error() string {
	if e.ID != "" {
		return fmt.Sprintf("record %d (%s): %v", e.Index, e.ID, e.Err)
	}
	return fmt.Sprintf("record %d: %v", e.Index, e.Err)
}

func (e *RecordError) Unwrap() error { return e.Err }

// decodeList reads {..., key: [records]} record by record, so that a bad
// record is reported with its position.
func decodeList[T any](r io.Reader, key string, check func(i int, v *T) error) ([]T, map[string]json.RawMessage, error) {
	var top map[string]json.RawMessage
	if err := json.NewDecoder(r).Decode(&top); err != nil {
		return nil, nil, fmt.Errorf("not a JSON object: %w", err)
	}
	raw, ok := top[key]
	if !ok {
		return nil, nil, fmt.Errorf("no %q list", key)
	}
	var recs []json.RawMessage
	if err := json.Unmarshal(raw, &recs); err != nil {
		return nil, nil, fmt.Errorf("%q is not a list: %w", key, err)
	}
	out := make([]T, len(recs))
	for i, rec := range recs {
		if err := json.Unmarshal(rec, &out[i]); err != nil {
			return nil, nil, &RecordError{Index: i, Err: err}
		}
		if err := check(i, &out[i]); err != nil {
			return nil, nil, err
		}
	}
	return out, top, nil
}

// DecodeProducts reads a product list file.
func DecodeProducts(r io.Reader) (*ProductList, error) {
	ps, top, err := decodeList(r, "products", func(i int, p *Product) error {
		if p.IDProduct <= 0 {
			return &RecordError{Index: i, Err: fmt.Errorf("idProduct missing or not positive")}
		}
		if p.Name == "" {
			return &RecordError{Index: i, ID: fmt.Sprintf("idProduct %d", p.IDProduct), Err: fmt.Errorf("name is empty")}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	l := &ProductList{Products: ps}
	_ = json.Unmarshal(top["version"], &l.Version)
	_ = json.Unmarshal(top["createdAt"], &l.CreatedAt)
	return l, nil
}

// priceGuideHolo is a PriceGuide row of a game whose second finish is
// "-holo" (Pokémon); it converts to PriceGuide field for field.
type priceGuideHolo struct {
	IDProduct  int      `json:"idProduct"`
	IDCategory int      `json:"idCategory"`
	Avg        *float64 `json:"avg"`
	Low        *float64 `json:"low"`
	Trend      *float64 `json:"trend"`
	Avg1       *float64 `json:"avg1"`
	Avg7       *float64 `json:"avg7"`
	Avg30      *float64 `json:"avg30"`
	AvgFoil    *float64 `json:"avg-holo"`
	LowFoil    *float64 `json:"low-holo"`
	TrendFoil  *float64 `json:"trend-holo"`
	Avg1Foil   *float64 `json:"avg1-holo"`
	Avg7Foil   *float64 `json:"avg7-holo"`
	Avg30Foil  *float64 `json:"avg30-holo"`
}

// DecodePriceGuide reads a price guide file whose second finish is "-foil".
func DecodePriceGuide(r io.Reader) (*PriceGuideFile, error) {
	return DecodePriceGuideFinish(r, "foil")
}

// DecodePriceGuideFinish reads a price guide file whose second finish has
// the key suffix suffix ("foil", or "holo" in Pokémon's files) into the
// Foil fields.
func DecodePriceGuideFinish(r io.Reader, suffix string) (*PriceGuideFile, error) {
	if suffix == "holo" {
		hs, top, err := decodeList(r, "priceGuides", checkGuide[priceGuideHolo])
		if err != nil {
			return nil, err
		}
		gs := make([]PriceGuide, len(hs))
		for i, h := range hs {
			gs[i] = PriceGuide(h)
		}
		return guideFile(gs, top), nil
	}
	if suffix != "foil" {
		return nil, fmt.Errorf("unknown price guide finish suffix %q", suffix)
	}
	gs, top, err := decodeList(r, "priceGuides", checkGuide[PriceGuide])
	if err != nil {
		return nil, err
	}
	return guideFile(gs, top), nil
}

func guideFile(gs []PriceGuide, top map[string]json.RawMessage) *PriceGuideFile {
	f := &PriceGuideFile{PriceGuides: gs}
	_ = json.Unmarshal(top["version"], &f.Version)
	_ = json.Unmarshal(top["createdAt"], &f.CreatedAt)
	return f
}

func checkGuide[T PriceGuide | priceGuideHolo](i int, row *T) error {
	g := PriceGuide(*row)
	if g.IDProduct <= 0 {
		return &RecordError{Index: i, Err: fmt.Errorf("idProduct missing or not positive")}
	}
	for _, v := range []*float64{g.Avg, g.Low, g.Trend, g.Avg1, g.Avg7, g.Avg30, g.AvgFoil, g.LowFoil, g.TrendFoil, g.Avg1Foil, g.Avg7Foil, g.Avg30Foil} {
		if v != nil && *v < 0 {
			return &RecordError{Index: i, ID: fmt.Sprintf("idProduct %d", g.IDProduct), Err: fmt.Errorf("negative price %v", *v)}
		}
	}
	return nil
}

// DecodeExpansions reads an expansions file. An entry may have no enName
// (real files have "enName": null); its id is still valid.
func DecodeExpansions(r io.Reader) ([]Expansion, error) {
	es, _, err := decodeList(r, "expansion", func(i int, e *Expansion) error {
		if e.IDExpansion <= 0 {
			return &RecordError{Index: i, Err: fmt.Errorf("idExpansion missing or not positive")}
		}
		return nil
	})
	return es, err
}

// Encode writes v (a *ProductList, *PriceGuideFile or *ExpansionList) compactly, like Cardmarket.
func Encode(w io.Writer, v any) error {
	return json.NewEncoder(w).Encode(v)
}
