package bulk

import (
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/blob/blobtest"
	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/store/storetest"
)

// BenchmarkShared compares, at 100,000 cards of one game, a replica that
// builds the files (and shares them) with one that fetches them from the
// real S3 server (bench/README.md, "Bulk files").
func BenchmarkShared(b *testing.B) {
	sh := blobtest.S3(b)
	c := &catalog.Catalog{Version: 1, CreatedAt: time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC),
		Games: []catalog.GameCatalog{storetest.Generate("dbs", 100_000, time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC))}}
	snap, err := catalog.NewSnapshot(c, game.Default())
	if err != nil {
		b.Fatal(err)
	}
	build := func(b *testing.B) *Builder {
		r := New(b.TempDir(), nil, WithShared(sh))
		r.timing = testTiming
		r.Publish(snap)
		r.Wait()
		r.Close()
		return r
	}
	build(b) // the first replica: builds and shares
	b.Run("build", func(b *testing.B) {
		for b.Loop() {
			r := New(b.TempDir(), nil)
			r.Publish(snap)
			r.Wait()
			r.Close()
		}
	})
	b.Run("fetch", func(b *testing.B) {
		for b.Loop() {
			if c := build(b).countsNow(); c.built != 0 {
				b.Fatalf("built %d files", c.built)
			}
		}
	})
}
