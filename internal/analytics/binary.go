package analytics

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cardcat/cardcat/internal/binio"
	"github.com/cardcat/cardcat/internal/catalog"
)

// Encoding is the version of the binary form WriteBinary writes and ReadGame
// reads; any change to it, or to how an answer is rendered, must increase
// it (a file of another encoding is refused and the answers built again).
const Encoding = 1

// WriteBinary writes g's rendered answers for ReadGame: per set its
// statistics and completion value, and the trending and top-cards lists.
// The prices bodies are not written: they are rendered from the snapshot's
// records on their first request, as after Build.
func (g *Game) WriteBinary(w *binio.Writer) {
	sets := g.snap.Sets()
	ps := make([]int, 0, len(sets))
	for p := range sets {
		if g.sets.has[p] {
			ps = append(ps, p)
		}
	}
	slices.SortFunc(ps, func(a, b int) int { return strings.Compare(sets[a].ID, sets[b].ID) })
	w.Uvarint(uint64(len(ps)))
	for _, p := range ps {
		w.String(sets[p].ID)
		for k := range builtKinds {
			w.Bytes(g.sets.body(p, k))
		}
	}
	g.trending.writeBinary(w)
	for _, l := range g.top {
		l.writeBinary(w)
	}
}

// ReadGame reads the answers WriteBinary wrote, on gs, the snapshot of the
// same version; every set must be one gs lists.
func ReadGame(r *binio.Reader, gs *catalog.GameSnapshot) (*Game, error) {
	n := r.Len(4)
	g := &Game{snap: gs, sets: newSetAnswers(len(gs.Sets()))}
	prev := ""
	for i := 0; i < n && r.Err() == nil; i++ {
		id := r.String()
		var bodies [builtKinds][]byte
		for k := range bodies {
			bodies[k] = r.BytesRef()
		}
		if r.Err() != nil {
			break
		}
		set, ok := gs.SetByID(id)
		if !ok || (i > 0 && id <= prev) {
			r.Failf("answers of set %q, unknown or out of order", id)
			break
		}
		g.sets.add(set.Position(), &bodies)
		prev = id
	}
	g.sets.done()
	g.trending = readItemList(r)
	for i := range g.top {
		g.top[i] = readItemList(r)
	}
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("analytics: reading the answers of %s: %w", gs.Game().Code, err)
	}
	return g, nil
}

func (l *itemList) writeBinary(w *binio.Writer) {
	w.Bytes(l.head)
	w.Bytes(l.tail)
	w.Bytes(l.items)
	w.Uvarint(uint64(l.maxLimit))
	w.Uvarint(uint64(len(l.ends)))
	for _, e := range l.ends {
		w.Uvarint(uint64(e))
	}
}

func readItemList(r *binio.Reader) *itemList {
	l := &itemList{head: r.Bytes(), tail: r.Bytes(), items: r.Bytes()}
	l.maxLimit = int(r.Uvarint())
	n := r.Len(1)
	if r.Err() == nil && (l.maxLimit < 1 || l.maxLimit > 1<<20 || n > l.maxLimit) {
		r.Failf("a list of %d items, limit %d", n, l.maxLimit)
	}
	if r.Err() != nil {
		return nil
	}
	l.ends = make([]int, n)
	for i := range l.ends {
		e := r.Uvarint()
		// Each item ends after the previous one and its comma.
		if r.Err() != nil || e > uint64(len(l.items)) || (i > 0 && e <= uint64(l.ends[i-1])) {
			r.Failf("item %d ends out of range", i)
			return nil
		}
		l.ends[i] = int(e)
	}
	l.bodies = newLazyAnswers(len(l.ends) + 1)
	return l
}
