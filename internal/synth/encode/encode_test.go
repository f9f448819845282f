package encode

import (
	"bytes"
	"testing"

	"github.com/cardcat/cardcat/internal/ingest/cardmarket"
	"github.com/cardcat/cardcat/internal/ingest/tcgplayer"
)

// The encoders against the lead's on the records' edge cases; synth's
// TestEncodersMatchLeadEncoders checks them on every file of whole mirrors.

// TestEscaping: strings with every escape encoding/json applies.
func TestEscaping(t *testing.T) {
	p := tcgplayer.Product{Name: "a\"b\\c<d>&e\u2028\u2029\x01\t\n\r\b\f\xff é ’", ExtendedData: []tcgplayer.ExtendedData{}}
	var want bytes.Buffer
	tcgplayer.Encode(&want, []tcgplayer.Product{p}, true)
	if got := AppendTCGProducts(nil, []tcgplayer.Product{p}); !bytes.Equal(got, want.Bytes()) {
		t.Errorf("escaping differs:\n%s\n%s", got, want.Bytes())
	}
}

func TestEmptyPrices(t *testing.T) {
	var empty bytes.Buffer
	tcgplayer.Encode(&empty, []tcgplayer.Price{}, false)
	if got := AppendTCGPrices(nil, nil); !bytes.Equal(got, empty.Bytes()) {
		t.Errorf("empty prices: %q, want %q", got, empty.Bytes())
	}
}

// TestCardmarketRecords: a product with every escape and a price guide entry
// with null, whole and fractional values, in a list as the writer frames them.
func TestCardmarketRecords(t *testing.T) {
	p := cardmarket.Product{IDProduct: 1, Name: "a\"b\\c<d>&e\u2028\x01\t é ’", IDCategory: 2, CategoryName: "Magic Single",
		IDExpansion: 3, IDMetacard: 4, DateAdded: "2026-01-01 00:00:00"}
	var want bytes.Buffer
	cardmarket.Encode(&want, &cardmarket.ProductList{Version: 1, CreatedAt: "x", Products: []cardmarket.Product{p}})
	got := append(AppendCMProduct([]byte(`{"version":1,"createdAt":"x","products":[`), &p), "]}\n"...)
	if !bytes.Equal(got, want.Bytes()) {
		t.Errorf("product:\n%s\n%s", got, want.Bytes())
	}
	one, cents, zero := 1.0, 0.37, 0.0
	g := cardmarket.PriceGuide{IDProduct: 1, IDCategory: 2, Avg: &one, Trend: &cents, Avg30: &zero, TrendFoil: &cents}
	want.Reset()
	cardmarket.Encode(&want, &cardmarket.PriceGuideFile{Version: 1, CreatedAt: "x", PriceGuides: []cardmarket.PriceGuide{g}})
	got = append(AppendCMGuide([]byte(`{"version":1,"createdAt":"x","priceGuides":[`), &g, "foil"), "]}\n"...)
	if !bytes.Equal(got, want.Bytes()) {
		t.Errorf("price guide:\n%s\n%s", got, want.Bytes())
	}
}
