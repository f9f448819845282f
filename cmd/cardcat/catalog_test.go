package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/store"
)

// holderStore serves a catalogue at a version; the other methods of
// store.Store are not used by the holder.
type holderStore struct {
	store.Store
	cat   *catalog.Catalog
	loads int
}

func (s *holderStore) CatalogVersion(context.Context) (int64, error) { return s.cat.Version, nil }

func (s *holderStore) LoadCatalog(context.Context) (*catalog.Catalog, error) {
	s.loads++
	b, _ := json.Marshal(s.cat) // a fresh copy, as a store loads it
	var c catalog.Catalog
	return &c, json.Unmarshal(b, &c)
}

func holderFixture(t *testing.T) *catalog.Catalog {
	b, err := os.ReadFile(filepath.Join("..", "..", "internal", "catalog", "testdata", "fixture.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c catalog.Catalog
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return &c
}

// TestCatalogHolderRefresh: a new version is built whole (snapshot and paid
// answers of every game, from one catalogue) and swapped in at once; the
// same version is not reloaded; a version that fails to build leaves the
// served one in place.
func TestCatalogHolderRefresh(t *testing.T) {
	ctx := context.Background()
	st := &holderStore{cat: holderFixture(t)}
	h := &catalogHolder{st: st, reg: game.Default(), log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if h.Current() != nil {
		t.Fatal("a view before the first refresh")
	}
	if err := h.refresh(ctx); err != nil {
		t.Fatal(err)
	}
	first := h.Current()
	if first == nil || first.Version != st.cat.Version {
		t.Fatalf("after refresh: %+v", first)
	}
	for _, g := range game.Default().All() {
		gs, paid := first.Game(g.Code), first.Paid[g.Code]
		if gs == nil || paid == nil {
			t.Fatalf("game %s: snapshot %v, paid answers %v", g.Code, gs != nil, paid != nil)
		}
		if set := gs.Sets()[0]; paid.Statistics(set.ID, "") == nil {
			t.Errorf("game %s: no statistics of its set %s", g.Code, set.ID)
		}
	}

	if err := h.refresh(ctx); err != nil || h.Current() != first || st.loads != 1 {
		t.Errorf("same version: err %v, view replaced %v, %d loads", err, h.Current() != first, st.loads)
	}

	st.cat.Version++
	st.cat.Games[0].Cards[0].Name = "Renamed"
	if err := h.refresh(ctx); err != nil {
		t.Fatal(err)
	}
	second := h.Current()
	if second == first || second.Version != st.cat.Version {
		t.Fatalf("new version not swapped in: %d", second.Version)
	}

	st.cat.Version++
	st.cat.Games[0].Sets = nil // every card in an unknown set
	if err := h.refresh(ctx); err == nil {
		t.Error("a catalogue that cannot be built was accepted")
	}
	if h.Current() != second {
		t.Error("a failed build replaced the served version")
	}
}
