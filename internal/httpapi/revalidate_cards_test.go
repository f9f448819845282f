package httpapi

import (
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/etag"
	"github.com/cardcat/cardcat/internal/serving"
)

// A card's memoized tag is the hash of the bytes served, and a new
// catalogue view (a card's price changed) gets new tags: the old tag's
// revalidation is then a 200 with the new one.
func TestCardTagMemoizedPerView(t *testing.T) {
	t.Parallel()
	c1 := benchCatalog(20)
	v1 := mustView(t, c1)
	c2 := benchCatalog(20)
	c2.Version++
	c2.Games[0].Cards[3].TCGPrices[0].Market = catalog.Cents(26)
	v2 := mustView(t, c2)

	var cur atomic.Pointer[serving.View]
	cur.Store(v1)
	deps := testDeps(v1)
	deps.View = cur.Load
	s, err := New(Config{}, deps)
	if err != nil {
		t.Fatal(err)
	}
	h := s.Handler()
	g1 := v1.Game("dbs")
	ref, ok := g1.LookupCard(c1.Games[0].Cards[3].ID)
	if !ok {
		t.Fatal("card 3 not found")
	}
	target := "/dbs/cards/" + c1.Games[0].Cards[3].ID
	fresh1 := etag.OfString(g1.CardJSON(ref))
	for i := range 2 { // made, then remembered
		if got := s.cardTag(v1, g1, ref); got != fresh1 {
			t.Fatalf("turn %d: memoized tag %s, fresh %s", i, got, fresh1)
		}
		rec := get(h, target)
		if rec.Code != http.StatusOK || rec.Header().Get("ETag") != fresh1 || rec.Body.String() != g1.CardJSON(ref) {
			t.Fatalf("turn %d: %d ETag %s, want 200 %s", i, rec.Code, rec.Header().Get("ETag"), fresh1)
		}
		if rec := get(h, target, "If-None-Match", fresh1); rec.Code != http.StatusNotModified {
			t.Fatalf("turn %d: revalidation %d, want 304", i, rec.Code)
		}
	}

	cur.Store(v2)
	g2 := v2.Game("dbs")
	ref2, _ := g2.LookupCard(c2.Games[0].Cards[3].ID)
	fresh2 := etag.OfString(g2.CardJSON(ref2))
	if fresh2 == fresh1 {
		t.Fatal("the price change left the body's tag as it was")
	}
	if got := s.cardTag(v2, g2, ref2); got != fresh2 {
		t.Fatalf("new view: memoized tag %s, fresh %s", got, fresh2)
	}
	rec := get(h, target, "If-None-Match", fresh1)
	if rec.Code != http.StatusOK || rec.Header().Get("ETag") != fresh2 {
		t.Fatalf("old tag on the new view: %d ETag %s, want 200 %s", rec.Code, rec.Header().Get("ETag"), fresh2)
	}
	// A request still on the older view gets that view's tag.
	if got := s.cardTag(v1, g1, ref); got != fresh1 {
		t.Fatalf("older view after the new one: %s, want %s", got, fresh1)
	}
	// Every card of the new view: memoized equals fresh.
	for r := range g2.Len() {
		ref := catalog.CardRef(r)
		if got, want := s.cardTag(v2, g2, ref), etag.OfString(g2.CardJSON(ref)); got != want {
			t.Fatalf("card %d: memoized %s, fresh %s", r, got, want)
		}
	}
}

// The headers a 429 restores are those before the handler, exactly, with
// few headers (kept as pairs) and with more than the pairs hold (a copy).
func TestKeepBeforeRestores(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 3, 8, 9, 20} {
		before := http.Header{}
		for i := range n {
			before[http.CanonicalHeaderKey("X-Before-"+string(rune('a'+i)))] = []string{"v" + string(rune('a'+i))}
		}
		h := before.Clone()
		var w keyedWriter
		w.keepBefore(h)
		h.Set("X-Before-A", "changed by the handler")
		h["Etag"] = []string{`"0123456789abcdef"`}
		h.Set("Content-Type", "application/json")
		w.restoreBefore(h)
		w.done()
		if len(h) != len(before) {
			t.Fatalf("%d headers before: restored %v", n, h)
		}
		for name, values := range before {
			if len(h[name]) != 1 || h[name][0] != values[0] {
				t.Fatalf("%d headers before: %s is %v, want %v", n, name, h[name], values)
			}
		}
	}
}
