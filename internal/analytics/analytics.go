package analytics

import (
	"bytes"
	"slices"
	"sync"

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
	sets     map[string]*setAnswers
	trending *itemList
	top      [numTopLists]*itemList
}

// setAnswers are the bodies of the per-set endpoints of one set. Statistics
// and completion value are rendered by Build; the prices bodies, which are
// as large as the prices they show, on first request.
type setAnswers struct {
	set        *catalog.ListedSet
	prices     [numSources]lazyBody
	statistics [2][]byte // normal, foil
	completion []byte
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
	g := &Game{snap: gs, sets: make(map[string]*setAnswers, len(gs.Sets()))}
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
		if len(cards) == 0 || !ok || g.sets[s.ID] != nil {
			continue
		}
		info := &listed.SetInfo
		slices.SortFunc(cards, catalog.CompareListing)
		a := &setAnswers{set: listed}
		a.statistics[0] = r.statistics(info, cards, VariantNormal)
		a.statistics[1] = r.statistics(info, cards, VariantFoil)
		a.completion = r.completion(info, cards)
		g.sets[s.ID] = a
		if t, ok := trendOfSet(info, cards, minAvg30, &th); ok {
			trending = append(trending, t)
		}
		for _, c := range cards {
			top.add(s, c)
		}
	}
	g.trending = trendingList(trending, &th)
	for l := range g.top {
		g.top[l] = top.list(topList(l), &gm)
	}
	return g
}

// PricesBySet returns the body of GET /{game}/prices/:set for a set_id and
// a source ("" or "both", "tcg", "cm"); nil when the game has no listed set
// with that id or the source is unknown. Each (set, source) body is rendered
// once, on its first request, from the snapshot's card records, and kept for
// the version: some tens of microseconds per hundred cards.
func (g *Game) PricesBySet(setID, source string) []byte {
	a := g.sets[setID]
	s, ok := sourceIndex(source)
	if a == nil || !ok {
		return nil
	}
	lb := &a.prices[s]
	lb.once.Do(func() { lb.b = renderPrices(g.snap, a.set, s) })
	return lb.b
}

// Statistics returns the body of GET /{game}/sets/:set/statistics for a
// set_id and a variant ("" or "normal", "foil"); nil when the set is unknown
// or the variant is.
func (g *Game) Statistics(setID, variant string) []byte {
	a := g.sets[setID]
	if a == nil {
		return nil
	}
	switch variant {
	case "", VariantNormal:
		return a.statistics[0]
	case VariantFoil:
		return a.statistics[1]
	}
	return nil
}

// CompletionValue returns the body of GET /{game}/sets/:set/completion-value
// for a set_id; nil when the set is unknown.
func (g *Game) CompletionValue(setID string) []byte {
	if a := g.sets[setID]; a != nil {
		return a.completion
	}
	return nil
}

// Trending returns the body of GET /{game}/sets/trending?period=7d for a
// limit, clamped to [1, TrendingMaxLimit].
func (g *Game) Trending(limit int) []byte {
	return g.trending.body(limit)
}

// TopCards returns the body of GET /{game}/analytics/top-cards for a metric
// ("price", "growth"), a source ("tcg", "cm"; "" means the metric's
// default) and a limit clamped to [1, TopCardsMaxLimit]; nil for an unknown
// metric or source or the unsupported growth with tcg.
func (g *Game) TopCards(metric, source string, limit int) []byte {
	l, ok := topListOf(metric, source)
	if !ok {
		return nil
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
	bodies     []lazyBody
}

type lazyBody struct {
	once sync.Once
	b    []byte
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
	l.bodies = make([]lazyBody, len(l.ends)+1)
	return l
}

// body returns the answer for a limit, clamped to [1, maxLimit].
func (l *itemList) body(limit int) []byte {
	k := min(max(limit, 1), l.maxLimit, len(l.ends))
	lb := &l.bodies[k]
	lb.once.Do(func() {
		var items []byte
		if k > 0 {
			items = l.items[:l.ends[k-1]]
		}
		b := make([]byte, 0, len(l.head)+len(items)+len(l.tail))
		b = append(b, l.head...)
		b = append(b, items...)
		lb.b = append(b, l.tail...)
	})
	return lb.b
}
