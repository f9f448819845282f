package catalog

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"
)

// benchQueries is a realistic query mix over the generated names: one word,
// two words in either order, 2-character prefixes, 3-character fragments,
// card numbers, and misses.
func benchQueries(g *GameSnapshot, n int) []string {
	rng := rand.New(rand.NewPCG(5, 6))
	var qs []string
	for len(qs) < n {
		r := CardRef(rng.IntN(g.Len()))
		words := strings.Fields(g.index.name(uint32(r)))
		w := words[rng.IntN(len(words))]
		switch len(qs) % 8 {
		case 0:
			qs = append(qs, w)
		case 1:
			if len(words) > 1 {
				qs = append(qs, words[0]+" "+words[1])
			} else {
				qs = append(qs, w)
			}
		case 2:
			if len(words) > 1 {
				qs = append(qs, words[1]+" "+words[0])
			} else {
				qs = append(qs, w+" "+benchWords[rng.IntN(len(benchWords))])
			}
		case 3:
			qs = append(qs, string([]rune(w)[:min(2, len([]rune(w)))]))
		case 4:
			qs = append(qs, fmt.Sprintf("S%04d-%03d", rng.IntN(4000), 1+rng.IntN(250)))
		case 5:
			qs = append(qs, string([]rune(w)[:min(3, len([]rune(w)))]))
		case 6:
			qs = append(qs, "zqx"+w)
		case 7:
			qs = append(qs, g.index.name(uint32(r))) // a whole name
		}
	}
	return qs
}

// BenchmarkSearch runs the query mix on a 1,000,000-card game and reports
// the median and 99th percentile of the latency of one search.
func BenchmarkSearch(b *testing.B) {
	s := benchMillion(b)
	g := s.Game("dbs")
	qs := benchQueries(g, 4000)
	ctx := context.Background()
	lat := make([]time.Duration, 0, 1<<16)
	matches := 0
	i := 0
	cpu := processCPU()
	for b.Loop() {
		t0 := time.Now()
		res, err := g.Search(ctx, qs[i%len(qs)])
		if len(lat) < cap(lat) {
			lat = append(lat, time.Since(t0))
		}
		if err != nil {
			b.Fatal(err)
		}
		matches += len(res.Cards)
		res.Release() // as the HTTP handler does once the cards are copied
		i++
	}
	if cpu := processCPU() - cpu; cpu > 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds()), "p99-ns")
	b.ReportMetric(float64(lat[len(lat)-1].Nanoseconds()), "max-ns")
	b.ReportMetric(float64(matches)/float64(b.N), "matches/op")
	reportIndexSize(b, g)
}

// reportIndexSize reports the index's bytes per card, the part of them
// derived for speed only (prefix heads, dense bitsets, block maps), and the
// time to derive that part again (the block maps apart: they are made
// again whenever an artifact is read).
func reportIndexSize(b *testing.B, g *GameSnapshot) {
	ix := &g.index
	n := float64(g.Len())
	b.ReportMetric(float64(ix.bytes())/n, "index-B/card")
	b.ReportMetric(float64(ix.extraBytes())/n, "extra-B/card")
	t0 := time.Now()
	buildPrefixHeads(ix.byName, ix.name, true, defaultHeadMin, defaultHeadBudget*g.Len())
	buildPrefixHeads(ix.byNum, ix.num, false, defaultHeadMin, defaultHeadBudget*g.Len())
	buildDenseLists(ix, g.Len(), defaultDenseDiv, defaultDenseBudget*8)
	b.ReportMetric(float64(time.Since(t0).Milliseconds()), "extra-build-ms")
	t0 = time.Now()
	buildBlockLists(ix, g.Len(), defaultBlockBudget*g.Len())
	b.ReportMetric(float64(time.Since(t0).Milliseconds()), "maps-build-ms")
}

// BenchmarkSearchKinds runs each kind of query alone.
func BenchmarkSearchKinds(b *testing.B) {
	s := benchMillion(b)
	g := s.Game("dbs")
	ctx := context.Background()
	for _, q := range []string{"goku", "son goku", "goku son", "so", "g", "S0123-04", "dra", "zqxgoku", "ancient lost dragon"} {
		b.Run(q, func(b *testing.B) {
			cpu := processCPU()
			for b.Loop() {
				res, err := g.Search(ctx, q)
				if err != nil {
					b.Fatal(err)
				}
				res.Release()
			}
			if cpu := processCPU() - cpu; cpu > 0 {
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
			}
		})
	}
}

// harnessQueryKinds are the kinds of the load harness's query mix
// (bench/cmd/loadbench/workload.go, queryMix), in its order.
var harnessQueryKinds = []string{"one word", "two words", "two words reversed", "2-char prefix", "card number", "miss"}

// harnessQueries draws n queries of g as the load harness's queryMix does
// (cycling through harnessQueryKinds, words of at least 3 letters, two
// neighbouring words, the first 2 letters of a word, a card's number, a
// word behind "zqx"), from the folded names, which fold to themselves.
func harnessQueries(g *GameSnapshot, n int) (texts, kinds []string) {
	rng := rand.New(rand.NewPCG(11, 12))
	pick := func(words []string, minRunes int) string {
		var ok []string
		for _, w := range words {
			if utf8.RuneCountInString(w) >= minRunes {
				ok = append(ok, w)
			}
		}
		if len(ok) == 0 {
			return ""
		}
		return ok[rng.IntN(len(ok))]
	}
	for tries := 0; len(texts) < n && tries < 100*n; tries++ {
		r := uint32(rng.IntN(g.Len()))
		var words []string
		for _, f := range strings.Fields(g.index.name(r)) {
			f = strings.TrimFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
			if f != "" {
				words = append(words, f)
			}
		}
		kind := harnessQueryKinds[len(texts)%len(harnessQueryKinds)]
		text := ""
		switch kind {
		case "one word":
			text = pick(words, 3)
		case "two words", "two words reversed":
			if len(words) >= 2 {
				i := rng.IntN(len(words) - 1)
				a, b := words[i], words[i+1]
				if kind == "two words reversed" {
					a, b = b, a
				}
				text = a + " " + b
			}
		case "2-char prefix":
			if w := pick(words, 2); w != "" {
				text = string([]rune(w)[:2])
			}
		case "card number":
			text = g.index.num(r)
		case "miss":
			if w := pick(words, 3); w != "" {
				text = "zqx" + w
			}
		}
		if utf8.RuneCountInString(text) >= 2 {
			texts, kinds = append(texts, text), append(kinds, kind)
		}
	}
	return texts, kinds
}

// BenchmarkSearchMix runs the load harness's query mix on a 1,000,000-card
// game, each kind alone and then the whole mix, and reports the CPU time
// and the median latency of one search.
func BenchmarkSearchMix(b *testing.B) {
	s := benchMillion(b)
	g := s.Game("dbs")
	texts, kinds := harnessQueries(g, 6000)
	ctx := context.Background()
	run := func(b *testing.B, qs []string) {
		lat := make([]time.Duration, 0, 1<<16)
		i := 0
		cpu := processCPU()
		for b.Loop() {
			t0 := time.Now()
			res, err := g.Search(ctx, qs[i%len(qs)])
			if len(lat) < cap(lat) {
				lat = append(lat, time.Since(t0))
			}
			if err != nil {
				b.Fatal(err)
			}
			res.Release()
			i++
		}
		if cpu := processCPU() - cpu; cpu > 0 {
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
		}
		slices.Sort(lat)
		b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "p50-ns")
	}
	for _, kind := range harnessQueryKinds {
		var qs []string
		for i, t := range texts {
			if kinds[i] == kind {
				qs = append(qs, t)
			}
		}
		b.Run(strings.ReplaceAll(kind, " ", "_"), func(b *testing.B) { run(b, qs) })
	}
	b.Run("mix", func(b *testing.B) {
		run(b, texts)
		reportIndexSize(b, g)
	})
}
