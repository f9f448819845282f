//go:build linux

package serving

import (
	"testing"
	"unsafe"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/game"
)

// TestFootprint: the parts of a view read from its artifact lie in the
// mapping (the card bodies, rows and tags at least), their resident bytes
// follow what was read (a card body read is resident, the others not
// necessarily), and the same version built on the heap has the same parts
// with nothing mapped.
func TestFootprint(t *testing.T) {
	t.Parallel()
	built, arts := mustBuiltArtifact(t)
	read, err := ReadArtifact(arts.Path(built.Version), game.Default(), built.Version)
	if err != nil {
		t.Fatal(err)
	}
	heap := FootprintOf(built)
	mapped := FootprintOf(read)
	if heap.Products == 0 || heap.Products != mapped.Products || mapped.Version != built.Version {
		t.Fatalf("products %d and %d, version %d (want %d)", heap.Products, mapped.Products, mapped.Version, built.Version)
	}
	if len(heap.Parts) != len(mapped.Parts) {
		t.Fatalf("%d parts on the heap, %d mapped", len(heap.Parts), len(mapped.Parts))
	}
	byName := map[string]FootprintPart{}
	for i, p := range mapped.Parts {
		h := heap.Parts[i]
		if h.Name != p.Name {
			t.Fatalf("part %d: %q on the heap, %q mapped", i, h.Name, p.Name)
		}
		if h.Mapped != 0 {
			t.Errorf("%s: %d bytes mapped in a view built on the heap", h.Name, h.Mapped)
		}
		if p.Mapped > p.Bytes || p.Resident > p.Mapped || p.Resident < 0 {
			t.Errorf("%s: %d bytes, %d mapped, %d resident", p.Name, p.Bytes, p.Mapped, p.Resident)
		}
		byName[p.Name] = p
	}
	for _, name := range []string{catalog.PartBodies, catalog.PartCardRows, catalog.PartCardSides, catalog.PartIDTables} {
		p := byName[name]
		if p.Bytes == 0 || p.Mapped == 0 {
			t.Errorf("%s: %d bytes, %d mapped: want some, in the mapping", name, p.Bytes, p.Mapped)
		}
	}
	// Reading every body makes its pages present.
	n := 0
	for _, g := range read.Games() {
		for r := range g.Len() {
			n += len(g.CardJSON(catalog.CardRef(r)))
		}
	}
	after := FootprintOf(read)
	for _, p := range after.Parts {
		if p.Name == catalog.PartBodies && p.Resident < int64(n) {
			t.Errorf("bodies: %d bytes resident after reading %d bytes of bodies", p.Resident, n)
		}
	}
	if a := after.Artifact; a.Mapped == 0 || a.Resident < byName[catalog.PartBodies].Resident || a.Resident > a.Mapped {
		t.Errorf("the artifact: %d bytes mapped, %d resident", a.Mapped, a.Resident)
	}
	if heap.Artifact.Mapped != 0 {
		t.Errorf("a view built on the heap has an artifact of %d bytes", heap.Artifact.Mapped)
	}
	if pm := after.Process; pm.RssAnon <= 0 || pm.HeapInuse <= 0 || pm.RuntimeOther <= 0 {
		t.Errorf("process memory %+v: want the kernel's and the runtime's counts", pm)
	}
}

// TestArtifactRowsAligned: in a mapped artifact every game's card rows
// start at a multiple of a row's 32 bytes, so that no row is across two
// cache lines (a card detail reads its whole row).
func TestArtifactRowsAligned(t *testing.T) {
	t.Parallel()
	built, arts := mustBuiltArtifact(t)
	read, m, err := readArtifactFile(arts.Path(built.Version), game.Default(), built.Version, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m == nil {
		t.Fatal("the artifact was read, not mapped")
	}
	for _, g := range read.Games() {
		for _, p := range g.Footprint() {
			if p.Name != catalog.PartCardRows {
				continue
			}
			start := uintptr(unsafe.Pointer(&m.data[0]))
			if len(p.Spans) != 1 || p.Spans[0].Addr < start || p.Spans[0].Addr >= start+uintptr(len(m.data)) || p.Spans[0].Addr%32 != 0 {
				t.Errorf("%s: card rows %+v, want one span in the mapping at a multiple of 32", g.Game().Code, p.Spans)
			}
		}
	}
}
