package analytics

import (
	"fmt"
	"maps"
	"slices"

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
	ids := slices.Sorted(maps.Keys(g.sets))
	w.Uvarint(uint64(len(ids)))
	for _, id := range ids {
		a := g.sets[id]
		w.String(id)
		w.Bytes(a.statistics[0].a.Body)
		w.Bytes(a.statistics[1].a.Body)
		w.Bytes(a.completion.a.Body)
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
	g := &Game{snap: gs, sets: make(map[string]*setAnswers, n)}
	prev := ""
	for i := 0; i < n && r.Err() == nil; i++ {
		id := r.String()
		a := &setAnswers{}
		a.statistics[0].a.Body, a.statistics[1].a.Body, a.completion.a.Body = r.Bytes(), r.Bytes(), r.Bytes()
		if r.Err() != nil {
			break
		}
		set, ok := gs.SetByID(id)
		if !ok || (i > 0 && id <= prev) {
			r.Failf("answers of set %q, unknown or out of order", id)
			break
		}
		a.set = set
		g.sets[id] = a
		prev = id
	}
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
	l.bodies = make([]lazyAnswer, len(l.ends)+1)
	return l
}
