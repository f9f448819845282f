package analytics

import (
	"bytes"
	"strings"
	"testing"

	"github.com/cardcat/cardcat/internal/binio"
	"github.com/cardcat/cardcat/internal/etag"
)

// TestAnswersCarryTheirTags: every answer's tag is etag.Of of its body,
// for the bodies Build renders, those it renders on first use, and those
// read back from the binary form; asking again gives the same, and the
// answers read back are the ones built, set by set (the sets' order in the
// binary form, by id, is not their order in the set list).
func TestAnswersCarryTheirTags(t *testing.T) {
	gc := fixture()
	gs := mustSnapshot(t, gc)
	built := Build(gs, gc, Options{})
	var buf bytes.Buffer
	w := binio.NewWriter(&buf)
	built.WriteBinary(w)
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	read, err := ReadGame(binio.NewBytesReader(buf.Bytes(), nil), gs)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]map[string]Answer{}
	for name, g := range map[string]*Game{"built": built, "read": read} {
		got[name] = map[string]Answer{}
		answers := map[string]func() Answer{
			"trending 1":      func() Answer { return g.Trending(1) },
			"trending":        func() Answer { return g.Trending(TrendingDefaultLimit) },
			"top price cm 3":  func() Answer { return g.TopCards(MetricPrice, SourceCM, 3) },
			"top growth cm":   func() Answer { return g.TopCards(MetricGrowth, SourceCM, TopCardsDefaultLimit) },
			"unknown set":     func() Answer { return g.Statistics("no such set", VariantNormal) },
			"unknown variant": func() Answer { return g.Statistics("1001", "holo") },
		}
		for _, set := range []string{"1001", "1002", "-501", "1003"} {
			for _, src := range []string{SourceBoth, SourceTCG, SourceCM} {
				answers["prices "+set+" "+src] = func() Answer { return g.PricesBySet(set, src) }
			}
			for _, v := range []string{VariantNormal, VariantFoil} {
				answers["statistics "+set+" "+v] = func() Answer { return g.Statistics(set, v) }
			}
			answers["completion "+set] = func() Answer { return g.CompletionValue(set) }
		}
		for what, get := range answers {
			a := get()
			got[name][what] = a
			if a.Body == nil {
				if a.Tag != "" {
					t.Errorf("%s, %s: no body, tag %s", name, what, a.Tag)
				}
				if what != "unknown set" && what != "unknown variant" {
					t.Errorf("%s, %s: no body", name, what)
				}
				continue
			}
			if want := etag.Of(a.Body); a.Tag != want {
				t.Errorf("%s, %s: tag %s, etag.Of of the body %s", name, what, a.Tag, want)
			}
			if again := get(); again.Tag != a.Tag || !bytes.Equal(again.Body, a.Body) {
				t.Errorf("%s, %s: a second ask differs", name, what)
			}
		}
	}
	for what, b := range got["built"] {
		if r := got["read"][what]; r.Tag != b.Tag || !bytes.Equal(r.Body, b.Body) {
			t.Errorf("%s: read back %q, built %q", what, r.Body, b.Body)
		}
	}
	if order := []string{built.snap.Sets()[0].ID, built.snap.Sets()[1].ID}; order[0] < order[1] {
		t.Errorf("the fixture's first sets %q are in id order: the test does not show that positions are kept", order)
	}
}

// TestReadGameRefusesSets: the binary form's sets must be the snapshot's,
// each once, in id order; otherwise ReadGame fails rather than answering
// one set's statistics at another's id.
func TestReadGameRefusesSets(t *testing.T) {
	gs := mustSnapshot(t, fixture())
	for name, ids := range map[string][]string{
		"unknown set":  {"no such set"},
		"out of order": {"1002", "1001"},
		"twice":        {"1001", "1001"},
	} {
		var buf bytes.Buffer
		w := binio.NewWriter(&buf)
		w.Uvarint(uint64(len(ids)))
		for _, id := range ids {
			w.String(id)
			for range builtKinds {
				w.Bytes([]byte(`{}`))
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadGame(binio.NewBytesReader(buf.Bytes(), nil), gs); err == nil || !strings.Contains(err.Error(), "unknown or out of order") {
			t.Errorf("%s: err %v", name, err)
		}
	}
}
