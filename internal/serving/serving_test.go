package serving

import (
	"testing"

	"github.com/cardcat/cardcat/internal/analytics"
	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/catalog/catalogtest"
	"github.com/cardcat/cardcat/internal/game"
)

// TestBuild: a view has the snapshot and, for every game of the registry,
// paid answers built on that snapshot's sets.
func TestBuild(t *testing.T) {
	c := mustFixture(t)
	reg := game.Default()
	v, err := Build(c, reg, analytics.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if v.Version != c.Version {
		t.Errorf("version %d, want %d", v.Version, c.Version)
	}
	for _, g := range reg.All() {
		gs, paid := v.Game(g.Code), v.Paid[g.Code]
		if gs == nil || paid == nil {
			t.Fatalf("game %s: snapshot %v, paid answers %v", g.Code, gs != nil, paid != nil)
		}
		for _, s := range gs.Sets() {
			if paid.Statistics(s.ID, "").Body == nil || paid.PricesBySet(s.ID, "").Body == nil {
				t.Errorf("%s set %s has no paid answers", g.Code, s.ID)
			}
		}
	}

	c.Games[0].Sets = nil // every card in an unknown set
	if _, err := Build(c, reg, analytics.Options{}); err == nil {
		t.Error("Build of an inconsistent catalogue succeeded")
	}
}

// mustFixture is the catalog package's test catalogue, a fresh copy.
func mustFixture(tb testing.TB) *catalog.Catalog { return catalogtest.Fixture(tb) }
