package httpapi

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cardcat/cardcat"
	"github.com/cardcat/cardcat/internal/bulk"
	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/testkit"
	"github.com/cardcat/cardcat/internal/web"
)

// TestCompressedAnswers: every keyed JSON route over 1 KB answers in the
// coding asked, with its own ETag, its own 304, Vary and a Content-Length of
// the compressed bytes, which decompress to the identity answer.
func TestCompressedAnswers(t *testing.T) {
	deps := paidDeps(mustView(t, mustFixture(t)))
	deps.Docs = cardcat.Docs()
	h := mustServer(t, Config{}, deps)
	public := []string{"/openapi.json", "/llms.txt", "/docs/api.md"}
	// keyedTargets' search is under 1 KB: this one is over.
	targets := append(append(public, keyedTargets...), "/dbs/search?q=fb01")
	for _, target := range targets {
		t.Run(target, func(t *testing.T) {
			plain := get(h, target, "X-API-Key", keyUltra)
			if plain.Code != http.StatusOK {
				t.Fatalf("%d: %s", plain.Code, plain.Body)
			}
			if got := plain.Header().Get("Vary"); got != "Accept-Encoding" {
				t.Errorf("identity: Vary %q", got)
			}
			if got := plain.Header().Get("Content-Encoding"); got != "" {
				t.Errorf("identity: Content-Encoding %q", got)
			}
			small := plain.Body.Len() < web.CompressAbove
			tag := plain.Header().Get("ETag")
			keyed := !slices.Contains(public, target)
			if keyed != (tag != "") {
				t.Errorf("identity: ETag %q", tag)
			}
			browser := "br" // a search is made per request: zstd on a tie
			if strings.Contains(target, "/search") {
				browser = "zstd"
			}
			for _, enc := range []struct{ accept, encoding, suffix string }{
				{"gzip", "gzip", "-gz"},
				{"zstd", "zstd", "-zst"},
				{"br", "br", "-br"},
				{"gzip;q=0.5, zstd;q=0.9", "zstd", "-zst"},
				{"gzip, deflate, br, zstd", browser, map[string]string{"br": "-br", "zstd": "-zst"}[browser]},
				{"br;q=0, gzip", "gzip", "-gz"},
			} {
				w := get(h, target, "X-API-Key", keyUltra, "Accept-Encoding", enc.accept)
				hd := w.Header()
				if w.Code != http.StatusOK || hd.Get("Vary") != "Accept-Encoding" {
					t.Fatalf("%s: %d, Vary %q", enc.accept, w.Code, hd.Get("Vary"))
				}
				if small {
					if hd.Get("Content-Encoding") != "" || !bytes.Equal(w.Body.Bytes(), plain.Body.Bytes()) || hd.Get("ETag") != tag {
						t.Errorf("%s: a body under 1 KB was compressed (%q)", enc.accept, hd.Get("Content-Encoding"))
					}
					continue
				}
				if got := hd.Get("Content-Encoding"); got != enc.encoding {
					t.Fatalf("%s: Content-Encoding %q, want %q", enc.accept, got, enc.encoding)
				}
				if cl := hd.Get("Content-Length"); cl != "" && cl != strconv.Itoa(w.Body.Len()) {
					t.Errorf("%s: Content-Length %s of a %d-byte body", enc.accept, cl, w.Body.Len())
				}
				if w.Body.Len() >= plain.Body.Len() {
					t.Errorf("%s: %d bytes compressed from %d", enc.accept, w.Body.Len(), plain.Body.Len())
				}
				if got := testkit.Decode(t, enc.encoding, w.Body.Bytes()); !bytes.Equal(got, plain.Body.Bytes()) {
					t.Errorf("%s: the body does not decompress to the identity answer", enc.accept)
				}
				if !keyed {
					continue
				}
				vtag := hd.Get("ETag")
				if want := tag[:len(tag)-1] + enc.suffix + `"`; vtag != want {
					t.Fatalf("%s: ETag %q, want %q", enc.accept, vtag, want)
				}
				nm := get(h, target, "X-API-Key", keyUltra, "Accept-Encoding", enc.accept, "If-None-Match", vtag)
				if nm.Code != http.StatusNotModified || nm.Body.Len() != 0 || nm.Header().Get("ETag") != vtag ||
					nm.Header().Get("Vary") != "Accept-Encoding" || nm.Header().Get("Content-Encoding") != "" {
					t.Errorf("%s: its tag gets %d %v, want a 304 with Vary", enc.accept, nm.Code, nm.Header())
				}
				// The identity tag names another representation: the coded one is sent.
				other := get(h, target, "X-API-Key", keyUltra, "Accept-Encoding", enc.accept, "If-None-Match", tag)
				if other.Code != http.StatusOK || other.Header().Get("ETag") != vtag {
					t.Errorf("%s with the identity tag: %d %q, want 200 %s", enc.accept, other.Code, other.Header().Get("ETag"), vtag)
				}
				// And the coded tag is not the identity answer's.
				if w := get(h, target, "X-API-Key", keyUltra, "If-None-Match", vtag); w.Code != http.StatusOK {
					t.Errorf("identity with the %s tag: %d, want 200", enc.accept, w.Code)
				}
			}
		})
	}
}

// TestCompressionLeavesAlone: errors, small answers, images and the bulk
// downloads are sent as they are whatever Accept-Encoding says.
func TestCompressionLeavesAlone(t *testing.T) {
	h := fixtureHandler(t)
	for _, target := range []string{"/dbs/cards/nope", "/dbs/sets?page=x", "/mtg/search?q=zzzzzzzz"} {
		w := get(h, target, "Accept-Encoding", "gzip, zstd, br")
		if ce := w.Header().Get("Content-Encoding"); ce != "" || w.Body.Len() >= web.CompressAbove {
			t.Errorf("%s: %d, Content-Encoding %q, %d bytes", target, w.Code, ce, w.Body.Len())
		}
		if w.Code != http.StatusOK && w.Header().Get("Vary") != "" {
			t.Errorf("%s: an error says Vary %q", target, w.Header().Get("Vary"))
		}
	}

	bh, _, _ := bulkHandler(t)
	for _, name := range []string{bulk.CardsFile, bulk.PricesFile} {
		plain := get(bh, "/dbs/bulk/"+name)
		w := get(bh, "/dbs/bulk/"+name, "Accept-Encoding", "zstd, gzip, br")
		if w.Code != http.StatusOK || !bytes.Equal(w.Body.Bytes(), plain.Body.Bytes()) ||
			w.Header().Get("Content-Encoding") != plain.Header().Get("Content-Encoding") || w.Header().Get("Vary") != "" {
			t.Errorf("%s: %d, Content-Encoding %q, Vary %q: the download was changed", name, w.Code, w.Header().Get("Content-Encoding"), w.Header().Get("Vary"))
		}
	}

	ih := imageHandler(t, newFakeCDN(t))
	w := get(ih, "/dbs/images/"+catalog.TCGCardID("dbs", 535600), "Accept-Encoding", "gzip, zstd, br")
	if w.Code != http.StatusOK || w.Body.String() != string(jpeg) || w.Header().Get("Content-Encoding") != "" {
		t.Errorf("image: %d, Content-Encoding %q", w.Code, w.Header().Get("Content-Encoding"))
	}
}

// TestSetPageRatio measures the target of issue 15 on the sample: a set page
// of 200 cards in each coding, as a share of its identity bytes. The target
// is 12%; the sample's pages, without prices and with a 64-hex Cardmarket id
// per card (incompressible), reach about 16% in br, 17% in zstd and 18% in
// gzip (see the test's log and bench/README.md): the bounds here guard
// against a regression, and br, the coding of a browser's tie, must be the
// smallest.
func TestSetPageRatio(t *testing.T) {
	c := mustMirror(t, sampleDir)
	v := mustView(t, c)
	h := mustServer(t, Config{}, testDeps(v))
	for _, g := range v.Games() {
		code := g.Game().Code
		var set string
		var most int
		sets := g.Sets()
		for i := range sets {
			first, end := sets[i].Cards()
			if n := int(end - first); n > most {
				set, most = sets[i].ID, n
			}
		}
		if most < 200 {
			t.Logf("%s: the largest set has %d cards, under 200", code, most)
			continue
		}
		target := prefix(code) + "/sets/" + url.PathEscape(set) + "?limit=200"
		plain := get(h, target)
		size := map[string]int{}
		for _, enc := range []string{"gzip", "zstd", "br"} {
			w := get(h, target, "Accept-Encoding", enc)
			size[enc] = w.Body.Len()
			ratio := float64(w.Body.Len()) / float64(plain.Body.Len())
			t.Logf("%s: %s %d → %d bytes, %.1f%%", target, enc, plain.Body.Len(), w.Body.Len(), 100*ratio)
			if ratio > 0.20 {
				t.Errorf("%s %s: %.1f%% of the identity bytes, want at most 20%%", target, enc, 100*ratio)
			}
		}
		if size["br"] >= size["zstd"] || size["br"] >= size["gzip"] {
			t.Errorf("%s: br %d bytes, zstd %d, gzip %d: br should be the smallest", target, size["br"], size["zstd"], size["gzip"])
		}
	}
}

// TestSetPageTag: a set page's tag is the snapshot's (SetPageTag), the same
// for each of its requests and the same in a snapshot built again from the
// same catalogue, another page's differs; its 304 and its kept compressed
// variants are answered without assembling it, and the size the reply
// announces before assembling is the assembled page's.
func TestSetPageTag(t *testing.T) {
	view := mustView(t, mustFixture(t))
	s, err := New(Config{}, testDeps(view))
	if err != nil {
		t.Fatal(err)
	}
	h := s.Handler()
	const target = "/dbs/sets/FB01?limit=3&page=1"
	plain := get(h, target)
	tag := plain.Header().Get("ETag")
	g := view.Game("dbs")
	sets := g.SetsByCode("FB01")
	if len(sets) != 1 {
		t.Fatalf("%d sets of code FB01, want 1", len(sets))
	}
	set := sets[0]
	if want := g.SetPageTag(set, 1, 3); tag != want {
		t.Fatalf("ETag %s, want the snapshot's %s", tag, want)
	}
	if again := mustView(t, mustFixture(t)).Game("dbs"); again.SetPageTag(set, 1, 3) != tag {
		t.Error("the same catalogue gives another tag")
	}
	if g.SetPageTag(set, 2, 3) == tag || g.SetPageTag(set, 1, 4) == tag {
		t.Error("another page has the same tag")
	}

	first := get(h, target, "Accept-Encoding", "gzip")
	if first.Header().Get("Content-Encoding") != "gzip" {
		t.Fatalf("the page is not compressed (%d bytes): the test needs one over 1 KB", plain.Body.Len())
	}
	if got := testkit.Decode(t, "gzip", first.Body.Bytes()); !bytes.Equal(got, plain.Body.Bytes()) {
		t.Error("the compressed page does not decompress to the page")
	}
	for _, tc := range []struct{ accept, inm string }{
		{"gzip", first.Header().Get("ETag")},
		{"", tag},
		{"", "W/" + tag},
	} {
		nm := get(h, target, "Accept-Encoding", tc.accept, "If-None-Match", tc.inm)
		if nm.Code != http.StatusNotModified || nm.Body.Len() != 0 || nm.Header().Get("ETag") != web.VariantTag(tag, web.Negotiate([]string{tc.accept}, web.Kept)) ||
			nm.Header().Get("Vary") != "Accept-Encoding" {
			t.Errorf("revalidation of the page (%q, %s): %d %v", tc.accept, tc.inm, nm.Code, nm.Header())
		}
	}

	// The size announced before assembling is the page's, for every window.
	handler := s.handleSetCards("dbs")
	for _, q := range []string{"limit=1", "limit=3&page=2", "limit=200", "limit=2&page=999", ""} {
		r := httptest.NewRequest(http.MethodGet, "/dbs/sets/FB01?"+q, nil)
		r.SetPathValue("set", "FB01")
		rp, err := handler(r)
		if err != nil {
			t.Fatal(err)
		}
		want := rp.length()
		rp.bytes()
		if len(rp.body) != want {
			t.Errorf("?%s: %d bytes assembled, %d announced", q, len(rp.body), want)
		}
		rp.release()
	}
}

// TestMadeBodies: a body made per request (a search) is compressed for its
// request and never kept, and goes zstd on a browser's tie; a kept body
// (a card) goes br and is kept.
func TestMadeBodies(t *testing.T) {
	s, err := New(Config{}, testDeps(mustView(t, mustFixture(t))))
	if err != nil {
		t.Fatal(err)
	}
	h := s.Handler()
	const search = "/dbs/search?q=fb01"
	plain := get(h, search)
	if plain.Body.Len() < web.CompressAbove {
		t.Fatalf("%s is %d bytes: the test needs one over 1 KB", search, plain.Body.Len())
	}
	for _, accept := range []string{"gzip, deflate, br, zstd", "br", "gzip"} {
		w := get(h, search, "Accept-Encoding", accept)
		ce := w.Header().Get("Content-Encoding")
		if want := map[string]string{"gzip, deflate, br, zstd": "zstd", "br": "br", "gzip": "gzip"}[accept]; ce != want {
			t.Errorf("%s: Content-Encoding %q, want %q", accept, ce, want)
		}
		if !bytes.Equal(testkit.Decode(t, ce, w.Body.Bytes()), plain.Body.Bytes()) {
			t.Errorf("%s: does not decompress to the identity answer", accept)
		}
	}
	if n := s.encoded.Len(); n != 0 {
		t.Errorf("%d variants kept after searches, want none", n)
	}
	if w := get(h, cardPath, "Accept-Encoding", "gzip, deflate, br, zstd"); w.Header().Get("Content-Encoding") != "br" {
		t.Fatalf("card: Content-Encoding %q, want br", w.Header().Get("Content-Encoding"))
	}
	if n := s.encoded.Len(); n != 1 {
		t.Errorf("%d variants kept after a card, want 1", n)
	}
}
