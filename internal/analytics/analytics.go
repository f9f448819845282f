package analytics

import (
	"bytes"
	"slices"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/store"
)

// Options tunes Build and gives it what the catalogue does not hold. The
// zero value gives the product's behaviour without TCGplayer history.
type Options struct {
	// MinAvg30 is the growth and trending threshold: a card takes part when
	// its 30-day average is at least this many cents of the marketplace's
	// currency (Cardmarket avg30 in EUR; in trending, the TCGplayer 30-day
	// mean market price in USD). 0 means 100 (1 EUR, 1 USD).
	MinAvg30 int64
	// TCGHistory is each game's TCGplayer price history at the catalogue's
	// day, by game code (store.Store.TCGMarketAverages). Trending computes
	// market_t from it when it covers the whole 30-day window; a game
	// without one (nil, e.g. the store could not be read) says that the
	// history is not available. Build only reads it and keeps none of it.
	TCGHistory map[string]*store.TCGHistory
}

func (o Options) minAvg30() int64 {
	if o.MinAvg30 <= 0 {
		return 100
	}
	return o.MinAvg30
}

// Game holds the paid answers of one game at one catalogue version. It is
// immutable once Build returns (the lazily rendered bodies are rendered under
// a sync.Once), so any number of goroutines may read it.
type Game struct {
	snap     *catalog.GameSnapshot // the prices bodies are rendered from its card records
	sets     setAnswers
	trending *itemList
	top      [numTopLists]*itemList
}

// Answer is a paid endpoint's body and its strong ETag (etag.Of of the
// body). Both are made once per catalogue version, so that a request
// neither renders nor hashes: the hash grows with the body, and a set's
// prices are some kB a hundred cards (bench/README.md, "Paid answers'
// tags"). The zero Answer (Body nil) is an unknown set or parameter.
type Answer struct {
	Body []byte
	Tag  string
}

// Build computes the paid answers of one game from its catalogue gc and the
// snapshot gs built from the same catalogue (catalog.NewSnapshot): gs gives
// the set list, the card_info of the top cards' game and the prices the
// prices answers are rendered from (with the card detail's renderers), so
// those answers cannot disagree with the free endpoints. gc is only read and is not referenced after Build returns; gs is
// kept. Statistics, completion value, trending and top cards are rendered
// here; a prices-by-set body on its first request (see PricesBySet).
//
// Sets the snapshot does not list (without any product) get no answers.
// Cards whose set_id names no set of gc are ignored. A nil gc is an empty
// game; gs must not be nil.
func Build(gs *catalog.GameSnapshot, gc *catalog.GameCatalog, opts Options) *Game {
	if gc == nil {
		gc = &catalog.GameCatalog{}
	}
	g := &Game{snap: gs, sets: newSetAnswers(len(gs.Sets()))}
	gm := gs.Game()
	minAvg30 := opts.minAvg30()
	th := newTCGHistory(opts.TCGHistory[gm.Code])

	setPos := make(map[string]int, len(gc.Sets))
	for i := range gc.Sets {
		if _, dup := setPos[gc.Sets[i].ID]; !dup {
			setPos[gc.Sets[i].ID] = i
		}
	}
	members := make([][]*catalog.Card, len(gc.Sets))
	for i := range gc.Cards {
		c := &gc.Cards[i]
		if p, ok := setPos[c.SetID]; ok {
			members[p] = append(members[p], c)
		}
	}

	var (
		r        renderer
		trending []trendingSet
		top      = newTopCollector(minAvg30)
	)
	for i := range gc.Sets {
		s, cards := &gc.Sets[i], members[i]
		listed, ok := gs.SetByID(s.ID)
		if len(cards) == 0 || !ok || g.sets.has[listed.Position()] {
			continue
		}
		info := &listed.SetInfo
		slices.SortFunc(cards, catalog.CompareListing)
		g.sets.add(listed.Position(), &[builtKinds][]byte{
			builtStatsNormal: r.statistics(info, cards, VariantNormal),
			builtStatsFoil:   r.statistics(info, cards, VariantFoil),
			builtCompletion:  r.completion(info, cards),
		})
		if t, ok := trendOfSet(info, cards, minAvg30, &th); ok {
			trending = append(trending, t)
		}
		for _, c := range cards {
			top.add(s, c)
		}
	}
	g.sets.done()
	g.trending = trendingList(trending, &th)
	for l := range g.top {
		g.top[l] = top.list(topList(l), &gm)
	}
	return g
}

// PricesBySet returns the Answer of GET /{game}/prices/:set for a set_id and
// a source ("" or "both", "tcg", "cm"); no Body when the game has no listed set
// with that id or the source is unknown. Each (set, source) body is rendered
// once, on its first request, from the snapshot's card records, and kept for
// the version: some tens of microseconds per hundred cards.
func (g *Game) PricesBySet(setID, source string) Answer {
	p, ok := g.sets.position(g.snap, setID)
	s, known := sourceIndex(source)
	if !ok || !known {
		return Answer{}
	}
	return g.sets.prices[s].get(p, func() []byte { return renderPrices(g.snap, &g.snap.Sets()[p], s) })
}

// Statistics returns the Answer of GET /{game}/sets/:set/statistics for a
// set_id and a variant ("" or "normal", "foil"); no Body when the set is unknown
// or the variant is.
func (g *Game) Statistics(setID, variant string) Answer {
	p, ok := g.sets.position(g.snap, setID)
	if !ok {
		return Answer{}
	}
	switch variant {
	case "", VariantNormal:
		return g.sets.answer(p, builtStatsNormal)
	case VariantFoil:
		return g.sets.answer(p, builtStatsFoil)
	}
	return Answer{}
}

// CompletionValue returns the Answer of GET /{game}/sets/:set/completion-value
// for a set_id; no Body when the set is unknown.
func (g *Game) CompletionValue(setID string) Answer {
	if p, ok := g.sets.position(g.snap, setID); ok {
		return g.sets.answer(p, builtCompletion)
	}
	return Answer{}
}

// Trending returns the Answer of GET /{game}/sets/trending?period=7d for a
// limit, clamped to [1, TrendingMaxLimit].
func (g *Game) Trending(limit int) Answer {
	return g.trending.body(limit)
}

// TopCards returns the Answer of GET /{game}/analytics/top-cards for a metric
// ("price", "growth"), a source ("tcg", "cm"; "" means the metric's
// default) and a limit clamped to [1, TopCardsMaxLimit]; no Body for an unknown
// metric or source or the unsupported growth with tcg.
func (g *Game) TopCards(metric, source string, limit int) Answer {
	l, ok := topListOf(metric, source)
	if !ok {
		return Answer{}
	}
	return g.top[l].body(limit)
}

// renderer renders bodies into a reusable scratch buffer and keeps only
// exact-size copies, so that append's spare capacity is not kept per set.
type renderer struct {
	buf []byte
}

func (r *renderer) keep(b []byte) []byte { return bytes.Clone(b) }

// itemList is a list of pre-rendered items answered by prefix: the body for
// a limit k is head, the first k items joined by commas, tail. Each prefix
// is rendered once, on first use, so a request only picks a body.
type itemList struct {
	head, tail []byte
	items      []byte // the items back to back, comma-separated
	ends       []int  // ends[i]: end of item i in items
	maxLimit   int    // the largest limit
	bodies     lazyAnswers
}

func newItemList(head, tail string, maxLimit int) *itemList {
	return &itemList{head: []byte(head), tail: []byte(tail), maxLimit: maxLimit}
}

// add appends one rendered item; items beyond maxLimit are not kept.
func (l *itemList) add(item []byte) {
	if len(l.ends) == l.maxLimit {
		return
	}
	if len(l.ends) > 0 {
		l.items = append(l.items, ',')
	}
	l.items = append(l.items, item...)
	l.ends = append(l.ends, len(l.items))
}

// done freezes the list.
func (l *itemList) done() *itemList {
	l.items = bytes.Clone(l.items)
	l.bodies = newLazyAnswers(len(l.ends) + 1)
	return l
}

// body returns the answer for a limit, clamped to [1, maxLimit].
func (l *itemList) body(limit int) Answer {
	k := min(max(limit, 1), l.maxLimit, len(l.ends))
	return l.bodies.get(k, func() []byte {
		var items []byte
		if k > 0 {
			items = l.items[:l.ends[k-1]]
		}
		b := make([]byte, 0, len(l.head)+len(items)+len(l.tail))
		b = append(b, l.head...)
		b = append(b, items...)
		return append(b, l.tail...)
	})
}
