package ingest_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/cardcat/cardcat/internal/ingest/cardmarket"
	"github.com/cardcat/cardcat/internal/ingest/tcgplayer"
)

// mirror builds a small upstream mirror in a temporary directory.
type mirror struct {
	t   testing.TB
	dir string
}

func newMirror(t testing.TB) *mirror {
	t.Helper()
	m := &mirror{t: t, dir: t.TempDir()}
	// Every game of the default registry needs its categories' groups.
	for _, cat := range []int{1, 3, 27, 68, 80, 85} {
		m.groups(cat)
	}
	return m
}

func (m *mirror) write(name string, data []byte) {
	m.t.Helper()
	p := filepath.Join(m.dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		m.t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		m.t.Fatal(err)
	}
}

func encodeTCG[T any](t testing.TB, v []T, total bool) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := tcgplayer.Encode(&b, v, total); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func encodeCM(t testing.TB, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := cardmarket.Encode(&b, v); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func (m *mirror) groups(cat int, gs ...tcgplayer.Group) {
	for i := range gs {
		gs[i].CategoryID = cat
	}
	m.write("tcgplayer/"+strconv.Itoa(cat)+"/groups.json", encodeTCG(m.t, gs, true))
}

func (m *mirror) products(cat, group int, ps ...tcgplayer.Product) {
	for i := range ps {
		ps[i].CategoryID, ps[i].GroupID = cat, group
	}
	m.write("tcgplayer/"+strconv.Itoa(cat)+"/"+strconv.Itoa(group)+"/products.json", encodeTCG(m.t, ps, true))
}

func (m *mirror) cardmarket(game int, singles, sealed []cardmarket.Product, guide []cardmarket.PriceGuide, exps []cardmarket.Expansion) {
	dir := "cardmarket/" + strconv.Itoa(game) + "/"
	m.write(dir+"products_singles.json", encodeCM(m.t, &cardmarket.ProductList{Version: 1, CreatedAt: "2026-11-01T02:00:00+0100", Products: singles}))
	m.write(dir+"products_nonsingles.json", encodeCM(m.t, &cardmarket.ProductList{Version: 1, CreatedAt: "2026-11-01T02:00:00+0100", Products: sealed}))
	m.write(dir+"price_guide.json", encodeCM(m.t, &cardmarket.PriceGuideFile{Version: 1, CreatedAt: "2026-11-01T02:00:00+0100", PriceGuides: guide}))
	if exps != nil {
		m.write(dir+"expansions.json", encodeCM(m.t, &cardmarket.ExpansionList{Expansion: exps}))
	}
}

func card(id int, name, number string) tcgplayer.Product {
	return tcgplayer.Product{
		ProductID: id, Name: name, ImageCount: 1,
		ExtendedData: []tcgplayer.ExtendedData{
			{Name: "Rarity", DisplayName: "Rarity", Value: "R"},
			{Name: "Number", DisplayName: "#", Value: number},
		},
	}
}

func f(v float64) *float64 { return &v }
