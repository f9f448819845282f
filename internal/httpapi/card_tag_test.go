package httpapi

import (
	"encoding/binary"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/etag"
	"github.com/cardcat/cardcat/internal/serving"
)

// A card's tag, kept by its snapshot, is made from the BodyHash of the bytes
// served (the change feed's hash), and a new catalogue view (a card's price
// changed) has new tags: the old tag's revalidation is then a 200 with the
// new one.
func TestCardTagPerView(t *testing.T) {
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
	fresh1 := bodyTag(g1.CardJSON(ref))
	for i := range 2 { // made, then remembered
		if got := g1.CardTag(ref); got != fresh1 {
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
	fresh2 := bodyTag(g2.CardJSON(ref2))
	if fresh2 == fresh1 {
		t.Fatal("the price change left the body's tag as it was")
	}
	if got := g2.CardTag(ref2); got != fresh2 {
		t.Fatalf("new view: memoized tag %s, fresh %s", got, fresh2)
	}
	rec := get(h, target, "If-None-Match", fresh1)
	if rec.Code != http.StatusOK || rec.Header().Get("ETag") != fresh2 {
		t.Fatalf("old tag on the new view: %d ETag %s, want 200 %s", rec.Code, rec.Header().Get("ETag"), fresh2)
	}
	// The older view keeps its tags.
	if got := g1.CardTag(ref); got != fresh1 {
		t.Fatalf("older view after the new one: %s, want %s", got, fresh1)
	}
	// Every card of the new view: memoized equals fresh.
	for r := range g2.Len() {
		ref := catalog.CardRef(r)
		if got, want := g2.CardTag(ref), bodyTag(g2.CardJSON(ref)); got != want {
			t.Fatalf("card %d: memoized %s, fresh %s", r, got, want)
		}
	}
}

// bodyTag is the ETag of a card body: the first 8 bytes of its BodyHash.
func bodyTag(body string) string {
	h := catalog.BodyHash([]byte(body))
	return etag.FromSum(binary.BigEndian.Uint64(h[:8]))
}
