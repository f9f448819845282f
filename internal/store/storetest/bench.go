package storetest

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/store"
)

// BenchCardsEnv names the environment variable that sizes BenchReplaceLoad.
const BenchCardsEnv = "CARDCAT_BENCH_CARDS"

// BenchCards is the number of cards of BenchReplaceLoad: $CARDCAT_BENCH_CARDS,
// 20,000 by default.
func BenchCards(tb testing.TB) int {
	tb.Helper()
	s := os.Getenv(BenchCardsEnv)
	if s == "" {
		return 20_000
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		tb.Fatalf("%s=%q: want a positive number of cards", BenchCardsEnv, s)
	}
	return n
}

// BenchReplaceLoad measures what a daily ingest and a server start cost: each
// iteration replaces a game of n cards (deleting the n of the previous
// iteration, or of a first, unmeasured replace) and loads the whole catalogue
// back. It reports the seconds of each half per iteration
// and the live heap held by the loaded catalogue.
func BenchReplaceLoad(b *testing.B, s store.Store, n int) {
	ctx := context.Background()
	updated := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	games := []catalog.GameCatalog{Generate("dbs", n, updated)}
	now := updated
	// Measure the daily case: a replace deletes the previous catalogue.
	if _, err := s.ReplaceCatalog(ctx, 0, games, "{}", now); err != nil {
		b.Fatal(err)
	}
	var replace, load time.Duration
	var heap uint64
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		base, err := s.CatalogVersion(ctx)
		if err != nil {
			b.Fatal(err)
		}
		now = now.Add(24 * time.Hour) // a new day's price points each time
		start := time.Now()
		if _, err := s.ReplaceCatalog(ctx, base, games, "{}", now); err != nil {
			b.Fatal(err)
		}
		mid := time.Now()
		c, err := s.LoadCatalog(ctx)
		if err != nil {
			b.Fatal(err)
		}
		load += time.Since(mid)
		replace += mid.Sub(start)
		if got := len(c.Games[0].Cards); got != n {
			b.Fatalf("loaded %d cards, want %d", got, n)
		}
		b.StopTimer()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		heap = ms.HeapAlloc
		runtime.KeepAlive(c)
		b.StartTimer()
	}
	b.ReportMetric(replace.Seconds()/float64(b.N), "replace-s/op")
	b.ReportMetric(load.Seconds()/float64(b.N), "load-s/op")
	b.ReportMetric(float64(heap)/(1<<20), "heap-MiB")
	b.ReportMetric(float64(n), "cards")
}

// BenchLoadCatalog measures a replica's start alone: each iteration loads a
// catalogue of one game of n cards, written once before.
func BenchLoadCatalog(b *testing.B, s store.Store, n int) {
	ctx := context.Background()
	updated := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	games := []catalog.GameCatalog{Generate("dbs", n, updated)}
	if _, err := s.ReplaceCatalog(ctx, 0, games, "{}", updated); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		c, err := s.LoadCatalog(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if got := len(c.Games[0].Cards); got != n {
			b.Fatalf("loaded %d cards, want %d", got, n)
		}
	}
	b.ReportMetric(float64(n), "cards")
}

// BenchTCGMarketAverages measures what the TCGplayer history of a game of n
// cards (2 finishes each) costs once 30 daily versions were written, so that
// the windows hold 30 points per finish (and 30 of the Cardmarket points the
// queries must skip). Each iteration writes the 30th day's version
// (replace-s: with the history it stores), then reads the averages at its
// day as a replica does: stored-s, the stored history; computed-s, the same
// computed from the points, the stored one deleted (what a version written
// before it was stored costs, and what each replica paid for every version
// before). Then prune-s deletes the first day's points (prune: the older
// days of every finish). Run it with -benchtime 1x: a second iteration
// would replace the same day again and prune nothing.
func BenchTCGMarketAverages(b *testing.B, s store.Store, n int) {
	ctx := context.Background()
	r := s.(Reopener)
	day := time.Date(2025, 1, 1, 6, 0, 0, 0, time.UTC)
	g := Generate("dbs", n, day)
	var base int64
	write := func(k int) {
		for i := range g.Cards {
			for j := range g.Cards[i].TCGPrices {
				g.Cards[i].TCGPrices[j].Market = catalog.Cents(int64(100 + (i+k)%50))
			}
		}
		var err error
		if base, err = s.ReplaceCatalog(ctx, base, []catalog.GameCatalog{g}, "{}", day.AddDate(0, 0, k)); err != nil {
			b.Fatal(err)
		}
	}
	for k := range store.LongWindowDays - 1 {
		write(k)
	}
	last := day.AddDate(0, 0, store.LongWindowDays-1)
	averages := func() time.Duration {
		start := time.Now()
		h, err := s.TCGMarketAverages(ctx, "dbs", last)
		if err != nil {
			b.Fatal(err)
		}
		if h.Days != store.LongWindowDays || len(h.Averages) != 2*n {
			b.Fatalf("%d days, %d averages; want %d, %d", h.Days, len(h.Averages), store.LongWindowDays, 2*n)
		}
		return time.Since(start)
	}
	var replace, stored, computed, prune time.Duration
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		write(store.LongWindowDays - 1)
		replace += time.Since(start)
		stored += averages()
		if err := r.Exec(ctx, `DELETE FROM tcg_history`); err != nil {
			b.Fatal(err)
		}
		computed += averages()
		start = time.Now()
		if _, err := s.PrunePriceHistory(ctx, "dbs", day.AddDate(0, 0, 1)); err != nil {
			b.Fatal(err)
		}
		prune += time.Since(start)
	}
	for _, m := range []struct {
		d    time.Duration
		unit string
	}{{replace, "replace-s"}, {stored, "stored-s"}, {computed, "computed-s"}, {prune, "prune-s"}} {
		b.ReportMetric(m.d.Seconds()/float64(b.N), m.unit)
	}
	b.ReportMetric(float64(n), "cards")
}
