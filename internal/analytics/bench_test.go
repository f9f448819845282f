package analytics

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/game"
)

var (
	benchCards = flag.Int("analytics.cards", 100_000, "cards of the generated catalogue of the benchmarks")
	benchSets  = flag.Int("analytics.sets", 500, "sets of the generated catalogue of the benchmarks")
)

// generated returns a deterministic catalogue of cards products over sets
// sets, shaped like the real ones: about 5% sealed products, most cards with
// a TCGplayer Normal price, some with Foil or Holofoil, most on Cardmarket
// with normal and some with foil prices, prices spread from cents to
// hundreds of euros.
func generated(cards, sets int) *catalog.GameCatalog {
	r := rand.New(rand.NewPCG(1, 2))
	at := time.Date(2025, 6, 1, 20, 0, 0, 0, time.UTC)
	price := func() int64 { return int64(1 + r.ExpFloat64()*300) }
	money := func(p float64, c int64) catalog.Money {
		if r.Float64() < p {
			return catalog.Cents(c)
		}
		return catalog.Money{}
	}
	rarities := []string{"Common", "Uncommon", "Rare", "Super Rare", "Secret Rare", ""}
	gc := &catalog.GameCatalog{Game: "dbs"}
	for s := range sets {
		gc.Sets = append(gc.Sets, catalog.Set{Game: "dbs", ID: strconv.Itoa(1000 + s), Code: fmt.Sprintf("BT%d", s),
			Name: fmt.Sprintf("Generated Set %d", s), ReleaseDate: fmt.Sprintf("20%02d-01-01T00:00:00", s%25)})
	}
	for i := range cards {
		set := &gc.Sets[i%sets]
		c := catalog.Card{Game: "dbs", ID: catalog.TCGCardID("dbs", i+1), SetID: set.ID, TCGProductID: i + 1,
			Name: fmt.Sprintf("Card %d", i), CardNumber: fmt.Sprintf("%s-%03d", set.Code, i/sets+1),
			Rarity: rarities[r.IntN(len(rarities))], ProductType: catalog.ProductCard}
		if r.IntN(20) == 0 {
			c.ProductType, c.CardNumber, c.Rarity = catalog.ProductSealed, "", ""
		}
		base := price()
		if r.IntN(10) < 9 {
			c.TCGPrices = append(c.TCGPrices, catalog.TCGPrice{SubType: "Normal", Low: catalog.Cents(base * 8 / 10),
				Mid: catalog.Cents(base), High: catalog.Cents(base * 3), Market: money(0.95, base), DirectLow: money(0.3, base*9/10), UpdatedAt: at})
		}
		if foil := r.IntN(10); foil < 4 {
			sub := "Foil"
			if foil == 0 {
				sub = "Holofoil"
			}
			c.TCGPrices = append(c.TCGPrices, catalog.TCGPrice{SubType: sub, Low: catalog.Cents(base * 3),
				Mid: catalog.Cents(base * 4), High: catalog.Cents(base * 9), Market: money(0.95, base*4), UpdatedAt: at})
		}
		if r.IntN(10) < 8 {
			c.CMProductID = i + 1
			c.CMID = catalog.CMCardID("dbs", 13, i+1)
			for _, v := range []string{catalog.CMNormal, catalog.CMFoil} {
				if v == catalog.CMFoil && r.IntN(3) != 0 {
					continue
				}
				avg30 := price()
				c.CMPrices = append(c.CMPrices, catalog.CMPrice{Variant: v, Avg: money(0.9, avg30), Low: catalog.Cents(avg30 / 2),
					Trend: money(0.9, avg30), Avg1: money(0.5, avg30), Avg7: money(0.95, avg30*int64(80+r.IntN(41))/100),
					Avg30: money(0.95, avg30), UpdatedAt: at})
			}
		}
		gc.Cards = append(gc.Cards, c)
	}
	return gc
}

var (
	benchCatalog  = sync.OnceValue(func() *catalog.GameCatalog { return generated(*benchCards, *benchSets) })
	benchSnapshot = sync.OnceValue(func() *catalog.GameSnapshot {
		gc := benchCatalog()
		snap, err := catalog.NewSnapshot(&catalog.Catalog{Version: 1, Games: []catalog.GameCatalog{*gc}}, game.Default())
		if err != nil {
			panic(err)
		}
		return snap.Game("dbs")
	})
)

// answerBytes is the size of the bodies Build renders (list prefixes not
// included: they are assembled on demand) and of the prices bodies rendered
// so far.
func answerBytes(g *Game) (built, prices int) {
	for _, l := range g.sets.prices {
		for _, a := range l.ans {
			if a != nil {
				prices += len(a.Body)
			}
		}
	}
	built += len(g.sets.built)
	built += len(g.trending.items)
	for _, l := range g.top {
		built += len(l.items)
	}
	return built, prices
}

func heapAlloc() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// BenchmarkBuild reports the cost of Build per card of the catalogue (the
// snapshot is built beforehand) and what the answers keep: heap-B/card is
// the heap Build's result retains, all-prices-B/card what rendering every
// prices body (each set, each source) adds: the most the lazy bodies can
// cost a version.
func BenchmarkBuild(b *testing.B) {
	gc, gs := benchCatalog(), benchSnapshot()
	n := float64(len(gc.Cards))
	before := heapAlloc()
	g := Build(gs, gc, Options{})
	built := heapAlloc()
	for _, s := range gs.Sets() {
		for _, src := range []string{SourceBoth, SourceTCG, SourceCM} {
			g.PricesBySet(s.ID, src)
		}
	}
	all := heapAlloc()
	builtB, pricesB := answerBytes(g)
	runtime.KeepAlive(g)

	b.ReportAllocs()
	for b.Loop() {
		Build(gs, gc, Options{}) // b.Loop keeps the call from being optimised away
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/card")
	b.ReportMetric(float64(builtB)/n, "answer-B/card")
	b.ReportMetric(float64(built-before)/n, "heap-B/card")
	b.ReportMetric(float64(pricesB)/n, "prices-body-B/card")
	b.ReportMetric(float64(all-built)/n, "all-prices-B/card")
}

// BenchmarkPricesRender is the one-time cost of a prices body, paid by the
// first request of a (set, source) in a version.
func BenchmarkPricesRender(b *testing.B) {
	gs := benchSnapshot()
	set := &gs.Sets()[len(gs.Sets())/2]
	first, end := set.Cards()
	for _, src := range []int{srcBoth, srcTCG, srcCM} {
		b.Run([...]string{SourceBoth, SourceTCG, SourceCM}[src], func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				renderPrices(gs, set, src)
			}
			b.ReportMetric(float64(end-first), "cards")
		})
	}
}

// BenchmarkAnswers shows that answering is picking a ready body: a map
// lookup, or an index for the lists, with no allocation (the prices bodies
// after their first request).
func BenchmarkAnswers(b *testing.B) {
	gc, gs := benchCatalog(), benchSnapshot()
	g := Build(gs, gc, Options{})
	set := gc.Sets[len(gc.Sets)/2].ID
	cases := []struct {
		name   string
		answer func() []byte
	}{
		{"PricesBySet/both", func() []byte { return g.PricesBySet(set, "").Body }},
		{"PricesBySet/tcg", func() []byte { return g.PricesBySet(set, SourceTCG).Body }},
		{"PricesBySet/cm", func() []byte { return g.PricesBySet(set, SourceCM).Body }},
		{"Statistics/normal", func() []byte { return g.Statistics(set, VariantNormal).Body }},
		{"Statistics/foil", func() []byte { return g.Statistics(set, VariantFoil).Body }},
		{"CompletionValue", func() []byte { return g.CompletionValue(set).Body }},
		{"Trending/10", func() []byte { return g.Trending(10).Body }},
		{"Trending/50", func() []byte { return g.Trending(50).Body }},
		{"TopCards/price-tcg-10", func() []byte { return g.TopCards(MetricPrice, SourceTCG, 10).Body }},
		{"TopCards/price-cm-100", func() []byte { return g.TopCards(MetricPrice, SourceCM, 100).Body }},
		{"TopCards/growth-10", func() []byte { return g.TopCards(MetricGrowth, SourceCM, 10).Body }},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			body := c.answer() // the first call of a list prefix or a prices body renders it
			if len(body) == 0 {
				b.Fatal("no answer")
			}
			b.ReportAllocs()
			for b.Loop() {
				body = c.answer()
			}
			b.ReportMetric(float64(len(body)), "body-B")
		})
	}
}
