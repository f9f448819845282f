package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
)

// The wire ratio (issue 15): a set page of 200 cards, its compressed bytes
// as a share of its identity bytes, per coding. The target is at most 12%.
const (
	widePageCards   = 200
	maxWidePages    = 20 // pages measured: the first of this many sets of 200 cards or more
	targetWireRatio = 0.12
)

// wireCodings are the Accept-Encoding values measured: each coding alone,
// and a browser's (what most callers get).
var wireCodings = []string{"gzip", "zstd", "br", "gzip, deflate, br, zstd"}

// wireRatio is one Accept-Encoding's bytes over the pages measured.
type wireRatio struct {
	Accept   string
	Encoding string // the Content-Encoding answered ("" none; "mixed" if it varied)
	Pages    int
	Identity int64 // bytes of the pages without Accept-Encoding
	Wire     int64 // bytes of the pages in the coding
}

func (r wireRatio) ratio() float64 { return float64(r.Wire) / float64(max(1, r.Identity)) }

// measureWire asks each page without Accept-Encoding, then in each coding,
// and sums the bodies' bytes (a page answering fewer than 200 cards, a set
// of sealed products, is left out). Each compressed variant is made on its
// first request: the figure is the bytes, not the time.
func measureWire(ctx context.Context, base, key string, paths []string) ([]wireRatio, error) {
	out := make([]wireRatio, len(wireCodings))
	for i, accept := range wireCodings {
		out[i].Accept = accept
	}
	for _, p := range paths {
		plain, err := get(ctx, base+p, "X-API-Key", key)
		if err != nil {
			return nil, err
		}
		var page struct {
			Cards []json.RawMessage `json:"cards"`
		}
		if plain.Status != http.StatusOK {
			return nil, fmt.Errorf("GET %s: %d", p, plain.Status)
		}
		if err := json.Unmarshal(plain.Body, &page); err != nil {
			return nil, fmt.Errorf("GET %s: %w", p, err)
		}
		if len(page.Cards) < widePageCards {
			continue
		}
		for i, accept := range wireCodings {
			a, err := get(ctx, base+pathLine(p, "Accept-Encoding", accept), "X-API-Key", key)
			if err != nil {
				return nil, err
			}
			if a.Status != http.StatusOK {
				return nil, fmt.Errorf("GET %s with Accept-Encoding %q: %d", p, accept, a.Status)
			}
			enc := http.Header(a.Header).Get("Content-Encoding")
			if out[i].Pages > 0 && enc != out[i].Encoding {
				enc = "mixed"
			}
			out[i].Encoding = enc
			out[i].Pages++
			out[i].Identity += int64(len(plain.Body))
			out[i].Wire += int64(len(a.Body))
		}
	}
	return out, nil
}
