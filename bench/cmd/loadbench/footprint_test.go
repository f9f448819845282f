package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cardcat/cardcat/internal/serving"
)

// TestFootprintSection: the table of where the bytes are, per product, from
// made-up footprints of 1,000 products: a mapped part counts its resident
// pages, a heap part all of its bytes; VmRSS is split into the artifact's
// pages, other file pages and RssAnon, RssAnon into the itemised heap
// parts, the rest of the heap, the kept free heap and the runtime's.
func TestFootprintSection(t *testing.T) {
	fp := func(resident int64, heapInuse int64) *serving.Footprint {
		return &serving.Footprint{Products: 1000, Parts: []serving.FootprintPart{
			{Name: "card bodies and records", Bytes: 1_300_000, Mapped: 1_300_000, Resident: resident},
			{Name: "sets", Bytes: 50_000},
		}, Compressed: resident / 10, Artifact: serving.FootprintPart{Bytes: 1_500_000, Mapped: 1_500_000, Resident: resident + 100_000},
			Process: serving.ProcessMemory{RssAnon: 400_000, RssFile: resident + 120_000, HeapInuse: heapInuse, HeapFree: 30_000, RuntimeOther: 10_000}}
	}
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	footprintSection(p, fp(400_000, 100_000), fp(1_300_000, 300_000), 820_000, 1_720_000)
	out := b.String()
	for _, want := range []string{
		"| card bodies and records | 1,300 | 1,300 | 400 | 1,300 |",
		"| sets | 50 | 0 | 50 | 50 |",
		"| **VmRSS** | | | 820 | 1,720 |",
		"| of it: the artifact's resident pages of the parts above | | | 400 | 1,300 |",
		"| of it: the artifact's other resident pages (the paid answers' sections, the snapshot's small tables) | | | 100 | 100 |",
		"| of it: file pages of anything else (the binary) | | | 20 | 20 |",
		"| of RssAnon: the compressed answers kept (an arena outside the heap) | | | 40 | 130 |",
		"| of RssAnon: the heap parts above | | | 50 | 50 |",
		"| of RssAnon: the rest of the heap in use (compressed pages, prices-by-set bodies, accounts, buffers, garbage) | | | 50 | 250 |",
		"| of RssAnon: heap kept free, not yet returned | | | 30 | 30 |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("footprint table lacks %q:\n%s", want, out)
		}
	}
	b.Reset()
	footprintSection(p, nil, fp(1, 1), 1, 1)
	if b.Len() != 0 {
		t.Errorf("without the footprint after start: %q, want nothing", b.String())
	}
}
