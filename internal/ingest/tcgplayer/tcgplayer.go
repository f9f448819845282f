// Package tcgplayer reads and writes TCGplayer catalogue and price files in
// the layout tcgcsv.com publishes: categories, groups per category, products
// and prices per group, each a JSON envelope {success, errors, results}.
package tcgplayer

import (
	"encoding/json"
	"fmt"
	"io"
)

// Category is one TCGplayer category (a game or product line).
type Category struct {
	CategoryID  int    `json:"categoryId"`
	Name        string `json:"name"`
	DisplayName string `json:"displayName"`
	ModifiedOn  string `json:"modifiedOn"`
}

// Group is one TCGplayer group: a set.
type Group struct {
	Abbreviation   string `json:"abbreviation"`
	CategoryID     int    `json:"categoryId"`
	GroupID        int    `json:"groupId"`
	IsSupplemental bool   `json:"isSupplemental"`
	ModifiedOn     string `json:"modifiedOn"`
	Name           string `json:"name"`
	PublishedOn    string `json:"publishedOn"`
}

// ExtendedData is one name/value attribute of a product.
type ExtendedData struct {
	DisplayName string `json:"displayName"`
	Name        string `json:"name"`
	Value       string `json:"value"`
}

// PresaleInfo says whether and when a product is released.
type PresaleInfo struct {
	IsPresale  bool    `json:"isPresale"`
	Note       *string `json:"note"`
	ReleasedOn *string `json:"releasedOn"`
}

// Product is one TCGplayer product: a card or a sealed product.
type Product struct {
	CategoryID   int            `json:"categoryId"`
	CleanName    string         `json:"cleanName"`
	ExtendedData []ExtendedData `json:"extendedData"`
	GroupID      int            `json:"groupId"`
	ImageCount   int            `json:"imageCount"`
	ImageURL     string         `json:"imageUrl"`
	ModifiedOn   string         `json:"modifiedOn"`
	Name         string         `json:"name"`
	PresaleInfo  PresaleInfo    `json:"presaleInfo"`
	ProductID    int            `json:"productId"`
	URL          string         `json:"url"`
}

// Price is TCGplayer's price of one finish (subTypeName) of a product, in USD.
type Price struct {
	ProductID      int      `json:"productId"`
	LowPrice       *float64 `json:"lowPrice"`
	MidPrice       *float64 `json:"midPrice"`
	HighPrice      *float64 `json:"highPrice"`
	MarketPrice    *float64 `json:"marketPrice"`
	DirectLowPrice *float64 `json:"directLowPrice"`
	SubTypeName    string   `json:"subTypeName"`
}

// Envelope is tcgcsv's wrapper around every list.
type Envelope[T any] struct {
	Errors     []string `json:"errors"`
	Results    []T      `json:"results"`
	Success    bool     `json:"success"`
	TotalItems *int     `json:"totalItems,omitempty"`
}

// RecordError names the record of a file that could not be used.
type RecordError struct {
	Index int    // position in results, from 0
	ID    string // the record's id when it has one ("productId 123")
	Err   error
}

func (e *RecordError) Error() string {
	if e.ID != "" {
		return fmt.Sprintf("record %d (%s): %v", e.Index, e.ID, e.Err)
	}
	return fmt.Sprintf("record %d: %v", e.Index, e.Err)
}

func (e *RecordError) Unwrap() error { return e.Err }

func decode[T any](r io.Reader, check func(i int, v *T) error) ([]T, error) {
	var env struct {
		Errors  []string          `json:"errors"`
		Results []json.RawMessage `json:"results"`
		Success *bool             `json:"success"`
	}
	if err := json.NewDecoder(r).Decode(&env); err != nil {
		return nil, fmt.Errorf("not a tcgcsv envelope: %w", err)
	}
	if env.Success == nil {
		return nil, fmt.Errorf("not a tcgcsv envelope: no \"success\" field")
	}
	if !*env.Success {
		return nil, fmt.Errorf("upstream reported failure: %v", env.Errors)
	}
	out := make([]T, len(env.Results))
	for i, raw := range env.Results {
		if err := json.Unmarshal(raw, &out[i]); err != nil {
			return nil, &RecordError{Index: i, Err: err}
		}
		if err := check(i, &out[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// DecodeCategories reads a categories file.
func DecodeCategories(r io.Reader) ([]Category, error) {
	return decode(r, func(i int, c *Category) error {
		if c.CategoryID <= 0 {
			return &RecordError{Index: i, Err: fmt.Errorf("categoryId missing or not positive")}
		}
		return nil
	})
}

// DecodeGroups reads a groups file.
func DecodeGroups(r io.Reader) ([]Group, error) {
	return decode(r, func(i int, g *Group) error {
		if g.GroupID <= 0 {
			return &RecordError{Index: i, Err: fmt.Errorf("groupId missing or not positive")}
		}
		if g.Name == "" {
			return &RecordError{Index: i, ID: fmt.Sprintf("groupId %d", g.GroupID), Err: fmt.Errorf("name is empty")}
		}
		return nil
	})
}

// DecodeProducts reads a products file.
func DecodeProducts(r io.Reader) ([]Product, error) {
	return decode(r, func(i int, p *Product) error {
		if p.ProductID <= 0 {
			return &RecordError{Index: i, Err: fmt.Errorf("productId missing or not positive")}
		}
		if p.Name == "" {
			return &RecordError{Index: i, ID: fmt.Sprintf("productId %d", p.ProductID), Err: fmt.Errorf("name is empty")}
		}
		return nil
	})
}

// DecodePrices reads a prices file.
func DecodePrices(r io.Reader) ([]Price, error) {
	return decode(r, func(i int, p *Price) error {
		if p.ProductID <= 0 {
			return &RecordError{Index: i, Err: fmt.Errorf("productId missing or not positive")}
		}
		if p.SubTypeName == "" {
			return &RecordError{Index: i, ID: fmt.Sprintf("productId %d", p.ProductID), Err: fmt.Errorf("subTypeName is empty")}
		}
		for _, v := range []*float64{p.LowPrice, p.MidPrice, p.HighPrice, p.MarketPrice, p.DirectLowPrice} {
			if v != nil && *v < 0 {
				return &RecordError{Index: i, ID: fmt.Sprintf("productId %d", p.ProductID), Err: fmt.Errorf("negative price %v", *v)}
			}
		}
		return nil
	})
}

// Encode writes results in tcgcsv's envelope, two-space indented like upstream.
// withTotal adds totalItems (categories, groups and products carry it; prices do not).
func Encode[T any](w io.Writer, results []T, withTotal bool) error {
	env := Envelope[T]{Errors: []string{}, Results: results, Success: true}
	if results == nil {
		env.Results = []T{}
	}
	if withTotal {
		n := len(results)
		env.TotalItems = &n
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(env)
}
