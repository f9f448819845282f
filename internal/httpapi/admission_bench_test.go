package httpapi

import (
	"math/rand/v2"
	"net/http"
	"sync"
	"testing"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/serving"
)

var (
	revalidateOnce sync.Once
	revalidateView *serving.View
)

// BenchmarkRevalidate is the harness's 404 and 304 scenarios at handler
// level, on the harness's quick size (10,000 cards): a keyed unknown card id
// against the keyed revalidation of a card detail with its identity tag. The
// issue's target is a 304 costing no more CPU per answer than the 404; compare
// their cpu-ns/op from interleaved runs (bench/README.md, the ETag section).
func BenchmarkRevalidate(b *testing.B) {
	revalidateOnce.Do(func() { revalidateView = mustView(b, benchCatalog(10_000)) })
	g := revalidateView.Game("dbs")
	h := mustServer(b, Config{}, testDeps(revalidateView))
	rng := rand.New(rand.NewPCG(11, 12))
	cards, unknown := make([]string, 4096), make([]string, 4096)
	for i := range cards {
		body := g.CardJSON(catalog.CardRef(rng.IntN(g.Len())))
		cards[i] = "/dbs/cards/" + body[7:7+20]
		// Product numbers far past the catalogue's: well-formed, unknown.
		unknown[i] = "/dbs/cards/" + catalog.TCGCardID("dbs", 50_000_000+i)
	}
	tags := make([]string, len(cards))
	for i, c := range cards {
		rec := get(h, c)
		if rec.Code != 200 {
			b.Fatalf("%s: %d", c, rec.Code)
		}
		tags[i] = rec.Header().Get("ETag")
	}
	if rec := get(h, unknown[0]); rec.Code != 404 {
		b.Fatalf("%s: %d", unknown[0], rec.Code)
	}
	if rec := get(h, cards[0], "If-None-Match", tags[0]); rec.Code != 304 {
		b.Fatalf("%s with its tag: %d", cards[0], rec.Code)
	}
	b.Run("404", func(b *testing.B) { serve(b, h, unknown) })
	b.Run("304", func(b *testing.B) {
		serve(b, h, cards, func(i int, r *http.Request) { r.Header.Set("If-None-Match", tags[i]) })
	})
}
