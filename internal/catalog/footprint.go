package catalog

import (
	"unsafe"
)

// Part is one component of a game's snapshot in memory, for the footprint
// report (issue 26: "measure where each byte goes"): its name, its bytes,
// and the spans of memory they are, so that a caller can tell which lie in
// a mapped artifact and how many of their pages are resident. Maps have no
// spans: their Bytes is an estimate of their entries.
type Part struct {
	Name  string
	Spans []Span
	// Bytes is the spans' length, or the estimate of a part without spans.
	Bytes int64
}

// Span is one contiguous range of memory.
type Span struct {
	Addr uintptr
	Len  int
}

// The parts' names, the same in every game; the footprint report sums
// them over the games.
const (
	PartBodies    = "card bodies and records"
	PartCardRows  = "card rows with their ETags (32 B each)"
	PartCardSides = "card images and marketplaces"
	PartIDTables  = "id tables"
	PartSearchTxt = "search: names, numbers, tokens"
	PartSearchLst = "search: posting lists"
	PartSearchOrd = "search: sorted orders and suffixes"
	PartSearchDrv = "search: derived (key prefixes, heads, bitsets)"
	PartSets      = "sets (listing headers, set list, lookups)"
)

// mapEntryOverhead is what a Go map spends per entry beyond its key and
// value, roughly (control byte, load factor, group slack).
const mapEntryOverhead = 16

// Footprint returns the game's parts. It reads only the snapshot's
// headers, not its data: cheap enough for an admin endpoint.
func (g *GameSnapshot) Footprint() []Part {
	var parts []Part
	add := func(name string, spans ...Span) {
		p := Part{Name: name}
		for _, s := range spans {
			if s.Len > 0 {
				p.Spans = append(p.Spans, s)
				p.Bytes += int64(s.Len)
			}
		}
		parts = append(parts, p)
	}
	estimate := func(name string, bytes int64) {
		for i := range parts {
			if parts[i].Name == name {
				parts[i].Bytes += bytes
				return
			}
		}
		parts = append(parts, Part{Name: name, Bytes: bytes})
	}

	bodies := make([]Span, 0, len(g.chunks))
	for _, c := range g.chunks {
		bodies = append(bodies, strSpan(c))
	}
	add(PartBodies, bodies...)
	add(PartCardRows, sliceSpan(g.cards))
	add(PartCardSides, sliceSpan(g.images), sliceSpan(g.sources))
	add(PartIDTables, append(append(g.byTCG.spans(), g.byCM.spans()...), sliceSpan(g.cmIDs))...)
	var other int64
	for id := range g.byOther {
		other += int64(16+len(id)) + 4 + mapEntryOverhead
	}
	estimate(PartIDTables, other)

	ix := &g.index
	add(PartSearchTxt, strSpan(ix.names), sliceSpan(ix.nameOff), strSpan(ix.nums), sliceSpan(ix.numOff),
		strSpan(ix.toks), sliceSpan(ix.tokOff))
	add(PartSearchLst, sliceSpan(ix.postOff), sliceSpan(ix.post), sliceSpan(ix.gramKeys))
	add(PartSearchOrd, sliceSpan(ix.byName), sliceSpan(ix.byNum), sliceSpan(ix.sufAt), sliceSpan(ix.sufTok))
	add(PartSearchDrv, sliceSpan(ix.namePfx.pfx), sliceSpan(ix.namePfx.top), sliceSpan(ix.numPfx.pfx),
		sliceSpan(ix.numPfx.top), sliceSpan(ix.sufPfx.pfx), sliceSpan(ix.sufPfx.top),
		sliceSpan(ix.nameHeads.refs), sliceSpan(ix.numHeads.refs), sliceSpan(ix.dense.bits),
		sliceSpan(ix.blocks.bits), sliceSpan(ix.blocks.pos), sliceSpan(ix.blocks.base))
	estimate(PartSearchDrv, int64(len(ix.nameHeads.at)+len(ix.numHeads.at))*(8+4+mapEntryOverhead)+
		int64(len(ix.dense.at)+len(ix.blocks.at))*(4+4+mapEntryOverhead))

	sets := []Span{sliceSpan(g.sets), sliceSpan(g.setList)}
	for i := range g.sets {
		sets = append(sets, sliceSpan(g.sets[i].header))
	}
	add(PartSets, sets...)
	add(PartSets, sliceSpan(g.setByID.hashes), sliceSpan(g.setByID.pos), sliceSpan(g.setsByCode.hashes), sliceSpan(g.setsByCode.pos))
	return parts
}

// spans returns the table's arrays' spans.
func (t *idTable) spans() []Span {
	return []Span{sliceSpan(t.slots)}
}

func sliceSpan[T any](s []T) Span {
	if cap(s) == 0 {
		return Span{}
	}
	var zero T
	return Span{Addr: uintptr(unsafe.Pointer(unsafe.SliceData(s))), Len: cap(s) * int(unsafe.Sizeof(zero))}
}

func strSpan(s string) Span {
	if len(s) == 0 {
		return Span{}
	}
	return Span{Addr: uintptr(unsafe.Pointer(unsafe.StringData(s))), Len: len(s)}
}
