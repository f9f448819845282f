package analytics

import (
	"bytes"
	"sync"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/etag"
)

// The bodies Build renders for each set, in this order.
const (
	builtStatsNormal = iota
	builtStatsFoil
	builtCompletion
	builtKinds
)

// setAnswers are the bodies of the per-set endpoints of a game's sets, by
// the set's position in the snapshot's set list (catalog.ListedSet.Position).
// Statistics and completion value are rendered by Build, or read by
// ReadGame, into one array with their tags; the prices bodies, as large as
// the prices they show, are rendered on first request. No record per set
// holds pointers: as one with a pointer per body and per tag, the 5,824 sets
// of a million cards were about 2 MB and tens of thousands of objects that
// the collector marked at every cycle (bench/README.md, "Less to mark").
type setAnswers struct {
	built []byte // every set's built bodies, back to back
	// spans[p] are where set position p's bodies are in built: body k is
	// built[spans[p][k]:spans[p][k+1]].
	spans [][builtKinds + 1]uint32
	has   []bool // by position: the set has answers
	tags  string // by position and kind, the bodies' ETags, etag.Len bytes each
	// prices[s] are the prices bodies of source s, by position.
	prices [numSources]lazyAnswers
}

func newSetAnswers(nsets int) setAnswers {
	a := setAnswers{spans: make([][builtKinds + 1]uint32, nsets), has: make([]bool, nsets)}
	for s := range a.prices {
		a.prices[s] = newLazyAnswers(nsets)
	}
	return a
}

// add appends the built bodies of set position p, in builtKinds order.
func (a *setAnswers) add(p int, bodies *[builtKinds][]byte) {
	sp := &a.spans[p]
	sp[0] = uint32(len(a.built))
	for k, b := range bodies {
		a.built = append(a.built, b...)
		sp[k+1] = uint32(len(a.built))
	}
	a.has[p] = true
}

// done makes the tags once every body is in, and gives back built's spare
// room (append doubled it).
func (a *setAnswers) done() {
	a.built = bytes.Clone(a.built)
	tags := make([]byte, 0, len(a.has)*builtKinds*etag.Len)
	for p := range a.has {
		for k := range builtKinds {
			tags = append(tags, etag.Of(a.body(p, k))...)
		}
	}
	a.tags = string(tags)
}

func (a *setAnswers) body(p, k int) []byte {
	sp := &a.spans[p]
	return a.built[sp[k]:sp[k+1]:sp[k+1]]
}

// answer returns body k of set position p with its tag.
func (a *setAnswers) answer(p, k int) Answer {
	at := (p*builtKinds + k) * etag.Len
	return Answer{Body: a.body(p, k), Tag: a.tags[at : at+etag.Len]}
}

// position returns the position of the set with the id in gs, when it has
// answers.
func (a *setAnswers) position(gs *catalog.GameSnapshot, setID string) (int, bool) {
	s, ok := gs.SetByID(setID)
	if !ok {
		return 0, false
	}
	p := s.Position()
	return p, p < len(a.has) && a.has[p]
}

// lazyAnswers are answers made on first use, by index. The Once and the
// result are apart so that the many never asked for cost the collector one
// nil word each rather than a record with pointers.
type lazyAnswers struct {
	once []sync.Once
	ans  []*Answer
}

func newLazyAnswers(n int) lazyAnswers {
	return lazyAnswers{once: make([]sync.Once, n), ans: make([]*Answer, n)}
}

// get returns answer i, rendering its body with render on first use.
func (l *lazyAnswers) get(i int, render func() []byte) Answer {
	l.once[i].Do(func() {
		b := render()
		l.ans[i] = &Answer{Body: b, Tag: etag.Of(b)}
	})
	return *l.ans[i]
}
