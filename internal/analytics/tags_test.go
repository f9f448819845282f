package analytics

import (
	"bytes"
	"testing"

	"github.com/cardcat/cardcat/internal/binio"
	"github.com/cardcat/cardcat/internal/etag"
)

// TestAnswersCarryTheirTags: every answer's tag is etag.Of of its body,
// for the bodies Build renders, those it renders on first use, and those
// read back from the binary form; asking again gives the same.
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
	for name, g := range map[string]*Game{"built": built, "read": read} {
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
}
