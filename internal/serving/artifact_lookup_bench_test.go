//go:build unix

package serving

import (
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/game"
)

// BenchmarkArtifactCardDetail: what a card detail asks of a snapshot read
// from CARDCAT_BENCH_ARTIFACT=path:version (a lookup by id, the body and its
// tag), over 200,000 cards drawn from every game, as the load harness asks.
func BenchmarkArtifactCardDetail(b *testing.B) {
	env := os.Getenv("CARDCAT_BENCH_ARTIFACT")
	p, v, ok := strings.Cut(env, ":")
	version, err := strconv.ParseInt(v, 10, 64)
	if !ok || err != nil {
		b.Skip("CARDCAT_BENCH_ARTIFACT=path:version not set")
	}
	view, err := ReadArtifact(p, game.Default(), version)
	if err != nil {
		b.Fatal(err)
	}
	type probe struct {
		g  *catalog.GameSnapshot
		id string
	}
	rng := rand.New(rand.NewPCG(5, 6))
	games := view.Snapshot.Games()
	probes := make([]probe, 200_000)
	for i := range probes {
		g := games[rng.IntN(len(games))]
		var cp catalog.CardPrices
		g.CardPrices(catalog.CardRef(rng.IntN(g.Len())), &cp)
		probes[i] = probe{g, cp.ID}
	}
	rng.Shuffle(len(probes), func(i, j int) { probes[i], probes[j] = probes[j], probes[i] })
	n := 0
	var buf []byte
	cpu := cpuTime()
	i := 0
	for b.Loop() {
		pr := &probes[i%len(probes)]
		r, ok := pr.g.LookupCard(pr.id)
		if !ok {
			b.Fatal("not found")
		}
		buf = pr.g.AppendCard(buf[:0], r)
		n += len(buf) + len(pr.g.CardTag(r))
		i++
	}
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
}
