package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"slices"
	"strconv"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cardcat/cardcat"
	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/ingest/cardmarket"
	"github.com/cardcat/cardcat/internal/ingest/tcgplayer"
)

// fuzzMirror is a small mirror cut from the bundled sample: Dragon Ball
// Super's Awakened Pulse on both marketplaces, the operator's links.csv,
// Magic's files empty. Small, so that a build takes a fraction of a
// millisecond and the fuzzer gets far.
func fuzzMirror(f testing.TB) fstest.MapFS {
	f.Helper()
	sample := cardcat.Sample()
	read := func(name string) []byte {
		b, err := fs.ReadFile(sample, name)
		if err != nil {
			f.Fatal(err)
		}
		return b
	}
	enc := func(fn func(*bytes.Buffer) error) *fstest.MapFile {
		var b bytes.Buffer
		if err := fn(&b); err != nil {
			f.Fatal(err)
		}
		return &fstest.MapFile{Data: b.Bytes()}
	}
	const group, expansion = 23401, 13567 // Awakened Pulse
	groups, err := tcgplayer.DecodeGroups(bytes.NewReader(read("tcgplayer/80/groups.json")))
	if err != nil {
		f.Fatal(err)
	}
	var keep []tcgplayer.Group
	for _, g := range groups {
		if g.GroupID == group {
			keep = append(keep, g)
		}
	}
	products, err := tcgplayer.DecodeProducts(bytes.NewReader(read("tcgplayer/80/23401/products.json")))
	if err != nil {
		f.Fatal(err)
	}
	products = products[:min(12, len(products))]
	prices, err := tcgplayer.DecodePrices(bytes.NewReader(read("tcgplayer/80/23401/prices.json")))
	if err != nil {
		f.Fatal(err)
	}
	kept := map[int]bool{}
	for _, p := range products {
		kept[p.ProductID] = true
	}
	var keptPrices []tcgplayer.Price
	for _, p := range prices {
		if kept[p.ProductID] {
			keptPrices = append(keptPrices, p)
		}
	}
	singles, err := cardmarket.DecodeProducts(bytes.NewReader(read("cardmarket/13/products_singles.json")))
	if err != nil {
		f.Fatal(err)
	}
	var cmKeep []cardmarket.Product
	for _, p := range singles.Products {
		if p.IDExpansion == expansion && len(cmKeep) < 16 {
			cmKeep = append(cmKeep, p)
		}
	}
	singles.Products = cmKeep
	guide, err := cardmarket.DecodePriceGuide(bytes.NewReader(read("cardmarket/13/price_guide.json")))
	if err != nil {
		f.Fatal(err)
	}
	cmKept := map[int]bool{}
	for _, p := range cmKeep {
		cmKept[p.IDProduct] = true
	}
	var guideKeep []cardmarket.PriceGuide
	for _, g := range guide.PriceGuides {
		if cmKept[g.IDProduct] {
			guideKeep = append(guideKeep, g)
		}
	}
	guide.PriceGuides = guideKeep
	exps, err := cardmarket.DecodeExpansions(bytes.NewReader(read("cardmarket/13/expansions.json")))
	if err != nil {
		f.Fatal(err)
	}
	var expKeep []cardmarket.Expansion
	for _, e := range exps {
		if e.IDExpansion == expansion {
			expKeep = append(expKeep, e)
		}
	}
	emptyGroups := enc(func(b *bytes.Buffer) error { return tcgplayer.Encode[tcgplayer.Group](b, nil, true) })
	emptyCM := []byte(`{"version":1,"createdAt":"2026-01-01T00:00:00+0100","products":[]}`)
	return fstest.MapFS{
		"tcgplayer/categories.json":              {Data: read("tcgplayer/categories.json")},
		"tcgplayer/80/groups.json":               enc(func(b *bytes.Buffer) error { return tcgplayer.Encode(b, keep, true) }),
		"tcgplayer/27/groups.json":               emptyGroups,
		"tcgplayer/1/groups.json":                emptyGroups,
		"tcgplayer/3/groups.json":                emptyGroups,
		"tcgplayer/85/groups.json":               emptyGroups,
		"tcgplayer/68/groups.json":               emptyGroups,
		"tcgplayer/80/23401/products.json":       enc(func(b *bytes.Buffer) error { return tcgplayer.Encode(b, products, true) }),
		"tcgplayer/80/23401/prices.json":         enc(func(b *bytes.Buffer) error { return tcgplayer.Encode(b, keptPrices, false) }),
		"cardmarket/13/products_singles.json":    enc(func(b *bytes.Buffer) error { return cardmarket.Encode(b, singles) }),
		"cardmarket/13/products_nonsingles.json": {Data: emptyCM},
		"cardmarket/13/price_guide.json":         enc(func(b *bytes.Buffer) error { return cardmarket.Encode(b, guide) }),
		"cardmarket/13/expansions.json": enc(func(b *bytes.Buffer) error {
			return cardmarket.Encode(b, &cardmarket.ExpansionList{Expansion: expKeep})
		}),
		"cardmarket/1/products_singles.json":    {Data: emptyCM},
		"cardmarket/1/products_nonsingles.json": {Data: emptyCM},
		"links/links.csv": {Data: []byte("game,tcgplayer_product_id,cardmarket_id_product\ndbs," +
			strconv.Itoa(products[0].ProductID) + "," + strconv.Itoa(cmKeep[0].IDProduct) + "\n")},
	}
}

// FuzzBuild replaces one file of a small mirror with any bytes and builds
// the catalogue: never a panic; either an error, or a catalogue the server
// accepts (catalog.NewSnapshot) and the same on a second build.
func FuzzBuild(f *testing.F) {
	mirror := fuzzMirror(f)
	var names []string
	for name := range mirror {
		names = append(names, name)
	}
	slices.Sort(names)
	for i, name := range names {
		f.Add(uint8(i), mirror[name].Data)
	}
	f.Add(uint8(0), []byte(`{"success":true,"results":[]}`))
	now := time.Date(2026, 2, 1, 6, 0, 0, 0, time.UTC)
	c, rep, err := Build(context.Background(), FSSource{FS: mirror, Name: "fuzz"}, game.Default(), now, Options{})
	if err != nil || len(c.Games) == 0 || len(c.Games[0].Cards) == 0 || rep.Games[0].Linked == 0 {
		f.Fatalf("the mirror builds no linked cards: %v", err)
	}
	f.Fuzz(func(t *testing.T, file uint8, data []byte) {
		name := names[int(file)%len(names)]
		m := fstest.MapFS{}
		for k, v := range mirror {
			m[k] = v
		}
		m[name] = &fstest.MapFile{Data: data}
		src := FSSource{FS: m, Name: "fuzz"}
		c, _, err := Build(context.Background(), src, game.Default(), now, Options{Workers: 1})
		if err != nil {
			if c != nil || err.Error() == "" {
				t.Fatalf("%s: error %v with a catalogue", name, err)
			}
			return
		}
		if _, err := catalog.NewSnapshot(c, game.Default()); err != nil {
			t.Fatalf("%s: the built catalogue is refused by the server: %v", name, err)
		}
		again, _, err := Build(context.Background(), src, game.Default(), now, Options{Workers: 2})
		if err != nil {
			t.Fatalf("%s: a second build fails: %v", name, err)
		}
		if diff := cmp.Diff(c, again); diff != "" {
			t.Fatalf("%s: two builds differ:\n%s", name, diff)
		}
	})
}

// TestBuildProductWithoutExpansion: Cardmarket products without an
// idExpansion are matched to no TCGplayer group, and the set keeps its
// Cardmarket expansion on every build. FuzzBuild found the set's expansion
// id 0 or 13567 by map order, when the missing field made an "expansion 0"
// that matched the same group.
func TestBuildProductWithoutExpansion(t *testing.T) {
	mirror := fuzzMirror(t)
	const name = "cardmarket/13/products_singles.json"
	var file map[string]any
	if err := json.Unmarshal(mirror[name].Data, &file); err != nil {
		t.Fatal(err)
	}
	products := file["products"].([]any)
	if len(products) < 8 {
		t.Fatalf("%s has %d products", name, len(products))
	}
	for _, p := range products[:3] { // enough to match the group as "expansion 0" did
		delete(p.(map[string]any), "idExpansion")
	}
	data, err := json.Marshal(file)
	if err != nil {
		t.Fatal(err)
	}
	mirror[name] = &fstest.MapFile{Data: data}
	now := time.Date(2026, 2, 1, 6, 0, 0, 0, time.UTC)
	for range 20 {
		c, _, err := Build(context.Background(), FSSource{FS: mirror, Name: "test"}, game.Default(), now, Options{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range c.Games[0].Sets {
			if s.ID == "23401" && s.CMExpansionID != 13567 {
				t.Fatalf("set 23401's Cardmarket expansion: %d, want 13567", s.CMExpansionID)
			}
		}
	}
}
