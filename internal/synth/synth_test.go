package synth

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/ingest"
	"github.com/cardcat/cardcat/internal/ingest/cardmarket"
	"github.com/cardcat/cardcat/internal/ingest/tcgplayer"
	"github.com/cardcat/cardcat/internal/synth/encode"
	"github.com/cardcat/cardcat/internal/synth/names"
)

var update = flag.Bool("update", false, "regenerate the bundled sample (../../sample) from the real data")

// committedSample is the bundled sample, relative to this package.
var committedSample = filepath.Join("..", "..", "sample")

func mustSample(t *testing.T, seed uint64, day int) string {
	t.Helper()
	out := t.TempDir()
	if _, err := Sample(context.Background(), Options{Out: out, Seed: seed, Day: day, From: sharedData(t)}); err != nil {
		t.Fatal(err)
	}
	return out
}

func mustSynthetic(t *testing.T, seed uint64, day, cards int) string {
	t.Helper()
	out := t.TempDir()
	if _, err := Synthetic(context.Background(), Options{Out: out, Seed: seed, Day: day, Cards: cards}); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSampleIsCommitted regenerates the bundled sample and compares it with
// sample/ byte for byte, so that it never goes stale. go test -run
// TestSampleIsCommitted -update rewrites it.
func TestSampleIsCommitted(t *testing.T) {
	from := sharedData(t)
	if *update {
		if _, err := Sample(context.Background(), Options{Out: committedSample, Seed: 1, From: from}); err != nil {
			t.Fatal(err)
		}
	}
	got := readTree(t, mustSample(t, 1, 0), mirrorParts...)
	want := readTree(t, committedSample, mirrorParts...)
	if diff := diffTrees(got, want); len(diff) > 0 {
		t.Errorf("sample/ is stale; regenerate it with `go run ./cmd/cardcat synth --from ../shared/data --out sample --seed 1` "+
			"(or go test ./internal/synth -run TestSampleIsCommitted -update). Files that differ: %v", diff)
	}
}

func TestDeterministic(t *testing.T) {
	t.Run("synthetic", func(t *testing.T) {
		a := readTree(t, mustSynthetic(t, 7, 0, 3000), mirrorParts...)
		b := readTree(t, mustSynthetic(t, 7, 0, 3000), mirrorParts...)
		if diff := diffTrees(a, b); len(diff) > 0 {
			t.Errorf("same seed, different files: %v", diff)
		}
		one := t.TempDir()
		if _, err := Synthetic(context.Background(), Options{Out: one, Seed: 7, Cards: 3000, Workers: 1}); err != nil {
			t.Fatal(err)
		}
		if diff := diffTrees(a, readTree(t, one, mirrorParts...)); len(diff) > 0 {
			t.Errorf("one worker, different files: %v", diff)
		}
		c := readTree(t, mustSynthetic(t, 8, 0, 3000), mirrorParts...)
		if diff := diffTrees(a, c); len(diff) < len(a)/2 {
			t.Errorf("seeds 7 and 8 differ in only %d of %d files", len(diff), len(a))
		}
	})
	t.Run("sample", func(t *testing.T) {
		a := readTree(t, mustSample(t, 3, 0), mirrorParts...)
		b := readTree(t, mustSample(t, 3, 0), mirrorParts...)
		if diff := diffTrees(a, b); len(diff) > 0 {
			t.Errorf("same seed, different files: %v", diff)
		}
		c := readTree(t, mustSample(t, 4, 0), mirrorParts...)
		diff := diffTrees(a, c)
		for _, name := range diff {
			if strings.HasSuffix(name, "products.json") || strings.HasSuffix(name, "groups.json") {
				t.Errorf("%s is copied from the real data and must not depend on the seed", name)
			}
		}
		if !slicesContain(diff, "cardmarket/1/price_guide.json") || !slicesContain(diff, "tcgplayer/1/23447/prices.json") {
			t.Errorf("seeds 3 and 4 give the same generated files: %v", diff)
		}
	})
}

func slicesContain(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// TestSampleCopiesRealFiles: the real files are in the sample byte for byte.
func TestSampleCopiesRealFiles(t *testing.T) {
	from := sharedData(t)
	out := mustSample(t, 1, 0)
	real := readTree(t, from, "tcgplayer", sealedDir)
	got := readTree(t, out, "tcgplayer", sealedDir)
	if len(real) == 0 {
		t.Fatal("no real files read")
	}
	for name, b := range real {
		if !bytes.Equal(got[name], b) {
			t.Errorf("%s is not the real file byte for byte", name)
		}
	}
	for name := range got {
		if _, ok := real[name]; !ok && !strings.HasSuffix(name, "/prices.json") {
			t.Errorf("%s: generated file among the real TCGplayer files", name)
		}
	}
	// Every products.json has its prices.json.
	for name := range real {
		if strings.HasSuffix(name, "/products.json") {
			if _, ok := got[strings.TrimSuffix(name, "products.json")+"prices.json"]; !ok {
				t.Errorf("%s has no prices.json", name)
			}
		}
	}
	// The real Cardmarket files and TCGdex links too: a game with real
	// Cardmarket files gets none generated.
	realCM := readTree(t, from, "cardmarket", tcgdexDir)
	gotCM := readTree(t, out, "cardmarket", tcgdexDir)
	if len(realCM) == 0 {
		t.Fatal("no real Cardmarket file read")
	}
	for name, b := range realCM {
		if !bytes.Equal(gotCM[name], b) {
			t.Errorf("%s is not the real file byte for byte", name)
		}
	}
	for name := range gotCM {
		for _, cm := range []string{"cardmarket/6/", "cardmarket/18/"} {
			if _, ok := realCM[name]; !ok && strings.HasPrefix(name, cm) {
				t.Errorf("%s: generated file among the real Cardmarket files", name)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(out, "derived")); err == nil {
		t.Error("the derived history is copied; ingest does not read it")
	}
}

// TestSampleUsesRealFusionWorldPrices: Fusion World market prices are the
// latest snapshot of the derived history.
func TestSampleUsesRealFusionWorldPrices(t *testing.T) {
	from := sharedData(t)
	history, err := readHistory(filepath.Join(from, historyPath))
	if err != nil || len(history) == 0 {
		t.Fatalf("history: %v (%d prices)", err, len(history))
	}
	m := readMirror(t, mustSample(t, 1, 0))
	checked := 0
	for _, rows := range m.prices {
		for _, r := range rows {
			h, ok := history[r.ProductID]
			if !ok || r.MarketPrice == nil {
				continue
			}
			want := h.u
			if r.SubTypeName == "Holofoil" {
				want = h.uf
			}
			if math.Abs(*r.MarketPrice-want) > 0.001 {
				t.Errorf("product %d %s: market %v, history %v", r.ProductID, r.SubTypeName, *r.MarketPrice, want)
			}
			checked++
		}
	}
	if checked < 200 {
		t.Errorf("only %d Fusion World prices come from the history", checked)
	}
}

// TestCasesPresent finds every documented case in the files of both modes,
// per game, and checks the report agrees.
func TestCasesPresent(t *testing.T) {
	for _, mode := range []string{"sample", "synthetic"} {
		t.Run(mode, func(t *testing.T) {
			var dir string
			if mode == "sample" {
				dir = mustSample(t, 1, 0)
			} else {
				dir = mustSynthetic(t, 1, 0, 5000)
			}
			m := readMirror(t, dir)
			for _, g := range game.Default().All() {
				if mode == "sample" && m.report.Games[g.Code] != nil && m.report.Games[g.Code].RealCardmarket {
					continue // real Cardmarket files (Pokémon, One Piece): synth plants nothing in them
				}
				v := newGameView(t, m, g)
				f := checkCases(t, v)
				t.Logf("%s: %v", g.Code, f)
				for _, c := range []string{
					"links_csv_row", "ambiguous", "tcgplayer_only_card", "cosmetic", "sealed_non_single",
					"cardmarket_only_single", "tcgplayer_no_price_row", "tcgplayer_row_all_null", "cardmarket_no_guide",
					"cardmarket_guide_all_null", "single_from_1_eur", "single_below_1_eur",
					"tcgplayer_foil_cardmarket_no_foil", "cardmarket_foil_only_tcgplayer_normal",
					"expansion_trend_up", "expansion_trend_down", "expansion_trend_stable", "cardmarket_only_expansion_products",
				} {
					if cannotExist(g.Code, c) {
						continue
					}
					if f[c] == 0 {
						t.Errorf("%s: no case %s in the files", g.Code, c)
					}
				}
				if f["cardmarket_only_expansion"] != 1 {
					t.Errorf("%s: %d Cardmarket-only expansions, want 1", g.Code, f["cardmarket_only_expansion"])
				}
				// About 3-5% of a matched expansion is Cardmarket-only.
				share := float64(f["cardmarket_only_single"]) / float64(len(v.cm))
				if share < 0.02 || share > 0.08 {
					t.Errorf("%s: %.1f%% of Cardmarket products are Cardmarket-only singles", g.Code, 100*share)
				}
				rep := m.report.Games[g.Code]
				if rep == nil {
					t.Fatalf("%s: not in %s", g.Code, CasesFile)
				}
				for _, c := range []string{caseLinkedByName, caseNameCosmetic, caseRenamedLinked, caseRenamedUnlinked, caseAmbiguous,
					caseTCGOnly, caseCMOnly, caseCMOnlyExpansion, caseSealedNonSingle, caseTCGNoPriceRow, caseTCGNullPriceRow,
					caseTCGFoilOnly, caseCMNoGuide, caseCMNullGuide, caseTCGFoilCMNoFoil, caseCMFoilTCGNoFoil,
					caseTrendUp, caseTrendDown, caseTrendStable, caseCMFrom1EUR, caseCMBelow1EUR, caseSharedSetCode} {
					if cannotExist(g.Code, c) {
						continue
					}
					if rep.Cases[c] == nil || rep.Cases[c].Count == 0 {
						t.Errorf("%s: %s reports no case %s", g.Code, CasesFile, c)
					}
				}
				if got := rep.Cases[caseAmbiguous].Count; got != f["ambiguous"] {
					t.Errorf("%s: report has %d ambiguous names, files %d", g.Code, got, f["ambiguous"])
				}
				if got := rep.Cases[caseRenamedLinked].Count; got != f["links_csv_row"] {
					t.Errorf("%s: report has %d links.csv links, files %d", g.Code, got, f["links_csv_row"])
				}
				for _, ex := range rep.Cases[caseAmbiguous].Examples {
					// Two, or a One Piece card's printings (parallels).
					if len(ex.CMProductIDs) < 2 || len(ex.CMProductIDs) > 2 && g.Code != "op" {
						t.Errorf("%s: ambiguous example %+v", g.Code, ex)
					}
				}
				// The real Magic groups have neither; every synthetic game has both.
				if mode == "synthetic" || g.Code == "dbs" {
					if rep.Cases[casePresaleGroup] == nil {
						t.Errorf("%s: no presale group", g.Code)
					}
				}
				if mode == "synthetic" && rep.Cases[caseEmptySetCode] == nil {
					t.Errorf("%s: no group with an empty code", g.Code)
				}
			}
			if mode == "sample" {
				checkSampleSealed(t, m)
			} else {
				checkCosmeticKinds(t, m)
			}
		})
	}
}

// cannotExist reports the cases a game cannot have, as its real files show.
func cannotExist(game, c string) bool {
	switch game {
	case "op":
		switch c {
		// Cardmarket prices no second finish of a One Piece card: its
		// parallels are products of their own ("trend-foil": 0, the rest
		// null); so no card is foil-only there, and every TCGplayer Foil
		// card is a "tcgplayer_foil_cardmarket_no_foil" without planting.
		case caseCMFoilTCGNoFoil: // also the name of the files' count
			return true
		// One Piece's set codes are its own ("OP02", "OP02 PRE", "ST-01").
		case caseSharedSetCode:
			return true
		}
	}
	return false
}

// checkSampleSealed: every mtg-sealed-content link whose TCGplayer product is
// in the sample has its Cardmarket non-single under the real mcmId.
func checkSampleSealed(t *testing.T, m *mirror) {
	v := newGameView(t, m, game.Magic())
	n, orphans := 0, 0
	for file, links := range m.sealed {
		for _, l := range links {
			c, ok := v.cm[l.CardmarketID]
			if !ok || m.singles[1][l.CardmarketID] {
				t.Errorf("%s: mcmId %d (%s) is not a Cardmarket non-single", file, l.CardmarketID, l.Name)
				continue
			}
			if _, ok := v.products[l.TCGplayerProductID]; !ok {
				orphans++
				continue
			}
			if c.Name != l.Name {
				t.Errorf("mcmId %d named %q, MTGJSON says %q", c.IDProduct, c.Name, l.Name)
			}
			n++
		}
	}
	if n != 15 || orphans != 1 {
		t.Errorf("%d sealed links resolve, %d lack their TCGplayer product; want 15 and 1", n, orphans)
	}
}

// TestDayChanges: a later day keeps the catalogue and changes about 10% of
// the prices, the same ones whichever day is generated first.
func TestDayChanges(t *testing.T) {
	check := func(t *testing.T, gen func(day int) string) {
		d0, d1, d2 := readMirror(t, gen(0)), readMirror(t, gen(1)), readMirror(t, gen(2))
		for _, pair := range []struct {
			name string
			a, b *mirror
		}{{"day 0 → 1", d0, d1}, {"day 1 → 2", d1, d2}} {
			a, b := pair.a, pair.b
			if !reflect.DeepEqual(a.products, b.products) || !reflect.DeepEqual(a.groups, b.groups) ||
				!reflect.DeepEqual(a.productsCM, b.productsCM) || !reflect.DeepEqual(a.expansions, b.expansions) ||
				!reflect.DeepEqual(a.links, b.links) || !reflect.DeepEqual(a.sealed, b.sealed) {
				t.Errorf("%s: the catalogue changed", pair.name)
			}
			rows, changed := 0, 0
			for gid, ps := range a.prices {
				if len(ps) != len(b.prices[gid]) {
					t.Fatalf("%s: group %d has %d price rows, then %d", pair.name, gid, len(ps), len(b.prices[gid]))
				}
				for i, p := range ps {
					q := b.prices[gid][i]
					if p.ProductID != q.ProductID || p.SubTypeName != q.SubTypeName {
						t.Fatalf("%s: price rows reordered", pair.name)
					}
					rows++
					if !reflect.DeepEqual(p, q) {
						changed++
						if (p.MarketPrice == nil) != (q.MarketPrice == nil) {
							t.Errorf("%s: product %d %s priced on one day only", pair.name, p.ProductID, p.SubTypeName)
						} else if p.MarketPrice != nil && *p.MarketPrice == *q.MarketPrice {
							t.Errorf("%s: product %d %s changed but kept its market price", pair.name, p.ProductID, p.SubTypeName)
						}
					}
				}
			}
			finishes, cmChanged := 0, 0
			for g, guides := range a.guides {
				if a.realCM[g] {
					continue
				}
				for id, p := range guides {
					q, ok := b.guides[g][id]
					if !ok {
						t.Fatalf("%s: guide entry %d disappeared", pair.name, id)
					}
					for _, f := range [][2][]*float64{
						{{p.Avg, p.Low, p.Trend, p.Avg1, p.Avg7, p.Avg30}, {q.Avg, q.Low, q.Trend, q.Avg1, q.Avg7, q.Avg30}},
						{{p.AvgFoil, p.LowFoil, p.TrendFoil, p.Avg1Foil, p.Avg7Foil, p.Avg30Foil}, {q.AvgFoil, q.LowFoil, q.TrendFoil, q.Avg1Foil, q.Avg7Foil, q.Avg30Foil}},
					} {
						if unpriced(f[0]...) != unpriced(f[1]...) {
							t.Errorf("%s: guide %d priced on one day only", pair.name, id)
						}
						if unpriced(f[0]...) {
							continue
						}
						finishes++
						if !reflect.DeepEqual(f[0], f[1]) {
							cmChanged++
						}
					}
				}
			}
			for _, c := range []struct {
				what       string
				n, changed int
			}{{"tcgplayer price rows", rows, changed}, {"cardmarket finishes", finishes, cmChanged}} {
				share := float64(c.changed) / float64(c.n)
				t.Logf("%s: %d of %d %s changed (%.1f%%)", pair.name, c.changed, c.n, c.what, 100*share)
				if share < 0.06 || share > 0.14 {
					t.Errorf("%s: %.1f%% of %s changed, want about 10%%", pair.name, 100*share, c.what)
				}
			}
			for name, created := range a.createdAt {
				if g, _ := strconv.Atoi(strings.Split(name, "/")[1]); a.realCM[g] {
					if created != b.createdAt[name] {
						t.Errorf("%s: %s is a real file, yet differs from day to day", pair.name, name)
					}
					continue
				}
				if created == b.createdAt[name] {
					t.Errorf("%s: %s createdAt %s on both days", pair.name, name, created)
				}
			}
		}
	}
	t.Run("sample", func(t *testing.T) {
		check(t, func(day int) string { return mustSample(t, 1, day) })
	})
	t.Run("synthetic", func(t *testing.T) {
		check(t, func(day int) string { return mustSynthetic(t, 1, day, 4000) })
	})
}

// TestEncodersMatchLeadEncoders: the hand-written encoders (package encode)
// write exactly what tcgplayer.Encode and cardmarket.Encode write, for every
// file of a synthetic mirror and of the sample.
func TestEncodersMatchLeadEncoders(t *testing.T) {
	dirs := []string{mustSynthetic(t, 5, 1, 3000)}
	if os.Getenv("CARDCAT_SHARED_DATA") != "" || fileExists(filepath.Join("..", "..", "..", "shared", "data")) {
		dirs = append(dirs, mustSample(t, 5, 0))
	}
	for _, dir := range dirs {
		m := readMirror(t, dir)
		for gid, ps := range m.products {
			var want bytes.Buffer
			if err := tcgplayer.Encode(&want, ps, true); err != nil {
				t.Fatal(err)
			}
			if got := encode.AppendTCGProducts(nil, ps); !bytes.Equal(got, want.Bytes()) {
				t.Errorf("group %d: products encode differently (%d vs %d bytes)", gid, len(got), want.Len())
			}
		}
		for gid, ps := range m.prices {
			var want bytes.Buffer
			if err := tcgplayer.Encode(&want, ps, false); err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(filepath.Join(dir, "tcgplayer", strconv.Itoa(categoryOf(m, gid)), strconv.Itoa(gid), "prices.json"))
			if !bytes.Equal(b, want.Bytes()) {
				t.Errorf("group %d: prices.json is not what tcgplayer.Encode writes", gid)
			}
		}
		for g := range m.guides {
			if m.realCM[g] {
				continue // copied byte for byte, checked by TestSampleCopiesRealFiles
			}
			for _, name := range []string{"products_singles.json", "products_nonsingles.json", "price_guide.json"} {
				path := filepath.Join(dir, "cardmarket", strconv.Itoa(g), name)
				b, _ := os.ReadFile(path)
				var v any
				if name == "price_guide.json" {
					v = decodeFile(t, path, decodeGuide(g))
				} else {
					v = decodeFile(t, path, cardmarket.DecodeProducts)
				}
				var want bytes.Buffer
				if err := cardmarket.Encode(&want, v); err != nil {
					t.Fatal(err)
				}
				wantB := want.Bytes()
				if suffix := guideSuffix(g); name == "price_guide.json" && suffix != "foil" {
					// cardmarket.Encode writes "-foil" keys; Pokémon's files say "-holo".
					wantB = bytes.ReplaceAll(wantB, []byte(`-foil":`), []byte(`-`+suffix+`":`))
				}
				if !bytes.Equal(b, wantB) {
					t.Errorf("%s is not what cardmarket.Encode writes", path)
				}
			}
		}
	}
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func categoryOf(m *mirror, gid int) int {
	for cat, groups := range m.groups {
		for _, g := range groups {
			if g.GroupID == gid {
				return cat
			}
		}
	}
	return 0
}

func TestOptionsErrors(t *testing.T) {
	ctx := context.Background()
	if _, err := Synthetic(ctx, Options{}); err == nil {
		t.Error("no Out: no error")
	}
	if _, err := Synthetic(ctx, Options{Out: t.TempDir(), Day: -1}); err == nil {
		t.Error("negative day: no error")
	}
	if _, err := Sample(ctx, Options{Out: t.TempDir()}); err == nil {
		t.Error("sample without From: no error")
	}
	if _, err := Sample(ctx, Options{Out: t.TempDir(), From: t.TempDir()}); err == nil {
		t.Error("sample from an empty directory: no error")
	}
	// A mirror synth did not write is kept unless Replace.
	out := t.TempDir()
	os.MkdirAll(filepath.Join(out, "tcgplayer"), 0o755)
	if _, err := Synthetic(ctx, Options{Out: out, Cards: 100}); !errors.Is(err, ErrExists) {
		t.Errorf("foreign mirror: err %v, want ErrExists", err)
	}
	if _, err := Synthetic(ctx, Options{Out: out, Cards: 100, Replace: true}); err != nil {
		t.Fatal(err)
	}
	// A generated one is replaced, leaving no staging directory behind.
	if _, err := Synthetic(ctx, Options{Out: out, Cards: 200, Seed: 2}); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(out)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, ",") != "cardmarket,links,synth-cases.json,tcgplayer" {
		t.Errorf("output holds %v", names)
	}
	// A cancelled run leaves nothing.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	out2 := t.TempDir()
	if _, err := Synthetic(cctx, Options{Out: out2, Cards: 5000}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err %v", err)
	}
	if entries, _ := os.ReadDir(out2); len(entries) != 0 {
		t.Errorf("cancelled run left %d entries", len(entries))
	}
}

// TestSyntheticLarge generates CARDCAT_SYNTH_CARDS cards (e.g. 1000000) and
// reports time and memory; it does not run by default.
//
//	CARDCAT_SYNTH_CARDS=1000000 go test ./internal/synth -run TestSyntheticLarge -v
func TestSyntheticLarge(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("CARDCAT_SYNTH_CARDS"))
	if n == 0 || testing.Short() {
		t.Skip("set CARDCAT_SYNTH_CARDS=N to generate N cards")
	}
	start := time.Now()
	res, err := Synthetic(context.Background(), Options{Out: t.TempDir(), Seed: 1, Cards: n})
	if err != nil {
		t.Fatal(err)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	t.Logf("%d cards: %d files, %+v, %v, heap in use at end %d MB, total allocated %d MB, GC cycles %d",
		n, res.Files, res.Totals(), time.Since(start).Round(time.Millisecond), ms.HeapInuse>>20, ms.TotalAlloc>>20, ms.NumGC)
	if time.Since(start) > time.Minute {
		t.Errorf("took %v", time.Since(start))
	}
}

func BenchmarkSynthetic(b *testing.B) {
	for b.Loop() {
		if _, err := Synthetic(context.Background(), Options{Out: b.TempDir(), Seed: 1, Cards: 20000}); err != nil {
			b.Fatal(err)
		}
	}
}

// checkCosmeticKinds: every kind of cosmetic name difference occurs.
func checkCosmeticKinds(t *testing.T, m *mirror) {
	seen := map[string]int{}
	for _, g := range game.Default().All() {
		v := newGameView(t, m, g)
		for gid, exp := range v.pairs {
			cm := map[string]string{}
			for _, c := range v.byExp[exp] {
				cm[ingest.CMKey(g, c.Name)] = ingest.CMNamePart(g, c.Name)
			}
			for _, p := range v.m.products[gid] {
				c, ok := cm[ingest.TCGKey(g, &p)]
				p.Name = tcgNamePart(g, p)
				if !ok || c == p.Name {
					continue
				}
				switch {
				case strings.EqualFold(c, p.Name):
					seen["case"]++
				case strings.Join(strings.Fields(c), " ") == p.Name:
					seen["whitespace"]++
				case strings.ReplaceAll(c, "’", "'") == strings.ReplaceAll(p.Name, "’", "'"):
					seen["apostrophe"]++
				case strings.Replace(p.Name, " - ", " ", 1) == c:
					seen["dash"]++
				case strings.Replace(p.Name, ": ", " - ", 1) == c:
					seen["colon"]++
				case names.Unaccent.Replace(p.Name) == c:
					seen["accent"]++
				default:
					seen["punctuation"]++
				}
			}
		}
	}
	for _, c := range names.Cosmetics {
		if seen[c.Kind] == 0 {
			t.Errorf("no cosmetic difference of kind %s (seen %v)", c.Kind, seen)
		}
	}
}

// TestSampleReadmeIDs: every id sample/README.md cites in its cases is in the
// sample, so that the examples go stale no more than the files.
func TestSampleReadmeIDs(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(committedSample, "README.md"))
	if err != nil {
		t.Skip("no sample/README.md")
	}
	text := string(b)
	if i := strings.Index(text, "## The cases"); i >= 0 {
		text = text[i:]
	}
	m := readMirror(t, committedSample)
	ids := map[int]bool{}
	for _, gs := range m.groups {
		for _, g := range gs {
			ids[g.GroupID] = true
		}
	}
	for gid, ps := range m.products {
		ids[gid] = true
		for _, p := range ps {
			ids[p.ProductID] = true
		}
	}
	for _, ps := range m.productsCM {
		for _, p := range ps {
			ids[p.IDProduct] = true
		}
	}
	for _, es := range m.expansions {
		for _, e := range es {
			ids[e.IDExpansion] = true
		}
	}
	for _, links := range m.sealed {
		for _, l := range links {
			ids[l.TCGplayerProductID] = true
		}
	}
	n := 0
	for _, f := range regexp.MustCompile(`\b\d{4,6}\b`).FindAllString(text, -1) {
		id, _ := strconv.Atoi(f)
		if id >= 1990 && id <= 2030 {
			continue // a year
		}
		n++
		if !ids[id] {
			t.Errorf("sample/README.md cites %d, which is not in the sample", id)
		}
	}
	if n < 50 {
		t.Errorf("only %d ids checked", n)
	}
}
