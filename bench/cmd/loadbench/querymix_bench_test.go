package main

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/store/sqlite"
)

// BenchmarkQueryMixOnStore runs the load runs' query mix (queryMix, 1,200
// searches, seed 1) on the catalogue of an ingested SQLite store, in
// process, each kind alone, then the whole mix, warm and cold: the
// index's cost on real names, which internal/catalog's BenchmarkSearchMix measures on
// generated ones. CARDCAT_BENCH_STORE is the store's cardcat.db (a
// loadbench -keep work directory has one per size); without it the
// benchmark is skipped.
//
//	CARDCAT_BENCH_STORE=/tmp/lb/cards-1000000/data/cardcat.db \
//	  go test ./bench/cmd/loadbench -run '^$' -bench QueryMixOnStore -cpu 1
func BenchmarkQueryMixOnStore(b *testing.B) {
	db := os.Getenv("CARDCAT_BENCH_STORE")
	if db == "" {
		b.Skip("CARDCAT_BENCH_STORE (an ingested store's cardcat.db) is not set")
	}
	ctx := context.Background()
	cards, sets, err := readStore(ctx, db)
	if err != nil {
		b.Fatal(err)
	}
	queries := newWorkload(cards, sets, 1200, 1).queries
	st, err := sqlite.Open(ctx, db)
	if err != nil {
		b.Fatal(err)
	}
	cat, err := st.LoadCatalog(ctx)
	st.Close()
	if err != nil {
		b.Fatal(err)
	}
	snap, err := catalog.NewSnapshot(cat, game.Default())
	if err != nil {
		b.Fatal(err)
	}
	cat = nil
	run := func(b *testing.B, qs []query) {
		i := 0
		for b.Loop() {
			q := qs[i%len(qs)]
			res, err := snap.Game(q.Game).Search(ctx, q.Text)
			if err != nil {
				b.Fatal(err)
			}
			res.Release()
			i++
		}
	}
	for _, kind := range queryKinds {
		var qs []query
		for _, q := range queries {
			if q.Kind == kind {
				qs = append(qs, q)
			}
		}
		b.Run(strings.ReplaceAll(kind, " ", "_"), func(b *testing.B) { run(b, qs) })
	}
	b.Run("mix", func(b *testing.B) { run(b, queries) })
	// mix_cold is the mix with 1 MB of other memory written before each
	// search, as the kernel's network path and the rest of a request leave
	// the caches at the wire; search-ns is the searches' own time. It came
	// to 11.3 µs a search where the load runs' profile put the index at
	// 12.7 µs a request, and the warm mix at 10.3 (bench/README.md, "A
	// search's index with its caches cold").
	b.Run("mix_cold", func(b *testing.B) {
		other := make([]byte, 1<<20)
		var spent time.Duration
		i := 0
		for b.Loop() {
			for j := 0; j < len(other); j += 64 {
				other[j]++
			}
			q := queries[i%len(queries)]
			start := time.Now()
			res, err := snap.Game(q.Game).Search(ctx, q.Text)
			spent += time.Since(start)
			if err != nil {
				b.Fatal(err)
			}
			res.Release()
			i++
		}
		b.ReportMetric(float64(spent.Nanoseconds())/float64(i), "search-ns")
	})
}
