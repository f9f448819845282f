package httpapi

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/etag"
	"github.com/cardcat/cardcat/internal/serving"
)

// The benchmarks run the whole handler (middleware chain, routing, key
// check) on a generated 1,000,000-card game, next to a "ceiling" handler that
// writes the same card bytes with no routing or checks at all.

var benchWords = strings.Fields(`son goku vegeta gohan trunks piccolo frieza cell buu beerus whis broly gogeta
vegito krillin android bulma goten bardock cooler janemba hit jiren zamasu black rose golden super saiyan blue
ultra instinct awakened pulse fusion world dragon energy wrath fury power strike flash kamehameha final
explosion spirit bomb alania pathmaker fabled passage forest island bloomburrow otter wizard rabbit bat lizard
mouse frog warren season loss truce heist talent doctor tenth tardis dalek exterminate æther vial jötun grunt
lim-dûl necromancer shivan serra angel llanowar elves counterspell lightning bolt knight champion guardian
ancient eternal forgotten hidden lost sacred crown blade shield tower gate temple throne grove hollow marsh`)

func benchCatalog(n int) *catalog.Catalog {
	rng := rand.New(rand.NewPCG(1, 2))
	word := func() string { w := benchWords[rng.IntN(len(benchWords))]; return strings.ToUpper(w[:1]) + w[1:] }
	const perSet = 250
	gc := catalog.GameCatalog{Game: "dbs"}
	at := time.Date(2026, 1, 30, 20, 0, 0, 0, time.UTC)
	for i := 0; i < n; i++ {
		si := i / perSet
		setID, code := fmt.Sprint(100000+si), fmt.Sprintf("S%04d", si)
		if i%perSet == 0 {
			gc.Sets = append(gc.Sets, catalog.Set{Game: "dbs", ID: setID, Code: code, Name: word() + " " + word(),
				Language: "en", ReleaseDate: at.AddDate(0, 0, -rng.IntN(7300)).Format("2006-01-02T15:04:05"), TCGGroupID: 1})
		}
		name := word()
		for w := rng.IntN(3); w > 0; w-- {
			name += " " + word()
		}
		text := "<strong>[Activate: Main]</strong>"
		for w := 15 + rng.IntN(25); w > 0; w-- {
			text += " " + strings.ToLower(word())
		}
		pid := 1_000_000 + i
		c := catalog.Card{Game: "dbs", ID: catalog.TCGCardID("dbs", pid), SetID: setID, TCGProductID: pid,
			Name: name, CleanName: name, CardNumber: fmt.Sprintf("%s-%03d", code, i%perSet+1), Rarity: "Rare",
			CardType: "Battle", ProductType: catalog.ProductCard, CardText: text, ImageCount: 1,
			Extra:     []catalog.ExtraField{{Key: "color", Value: "Red"}, {Key: "power", Value: "15000"}},
			TCGURL:    fmt.Sprintf("https://www.tcgplayer.com/product/%d", pid),
			Variants:  []string{"Normal", "Foil"},
			TCGPrices: []catalog.TCGPrice{{SubType: "Normal", Low: catalog.Cents(12), Mid: catalog.Cents(30), High: catalog.Cents(99), Market: catalog.Cents(25), UpdatedAt: at}, {SubType: "Foil", Low: catalog.Cents(120), Mid: catalog.Cents(300), High: catalog.Cents(990), Market: catalog.Cents(250), UpdatedAt: at}},
		}
		if rng.IntN(10) < 6 {
			c.CMProductID = 2_000_000 + i
			c.CMID = catalog.CMCardID("dbs", 13, c.CMProductID)
			c.CMProductName = name
			c.CMProductURL = "https://www.cardmarket.com/en/DragonBallSuper/Products/Singles/x"
			// Averages from 0.50 to 3.49 EUR, from the index (the random
			// sequence stays as it was), so that trending and growth have data.
			avg7, avg30 := int64(50+(i*7)%300), int64(50+(i*13)%300)
			c.CMPrices = []catalog.CMPrice{{Variant: "normal", Avg: catalog.Cents(avg30), Low: catalog.Cents(10), Trend: catalog.Cents(avg7 + 2), Avg1: catalog.Cents(avg7), Avg7: catalog.Cents(avg7), Avg30: catalog.Cents(avg30), UpdatedAt: at}}
		}
		gc.Cards = append(gc.Cards, c)
	}
	return &catalog.Catalog{Version: 1, CreatedAt: at, Games: []catalog.GameCatalog{gc}}
}

var (
	benchOnce sync.Once
	benchSnap *serving.View
)

func benchSnapshot(b *testing.B) *serving.View {
	benchOnce.Do(func() { benchSnap = mustView(b, benchCatalog(1_000_000)) })
	return benchSnap
}

// sink is a ResponseWriter that keeps nothing, so that the benchmarks
// measure the handler rather than a recorder.
type sink struct{ h http.Header }

func (s *sink) Header() http.Header                 { return s.h }
func (s *sink) Write(b []byte) (int, error)         { return len(b), nil }
func (s *sink) WriteString(str string) (int, error) { return len(str), nil }
func (s *sink) WriteHeader(int)                     {}

// serve runs h on the targets in turn; edit may add headers to request i.
// Besides ns/op it reports cpu-ns/op, the process's CPU time per request
// (garbage collection included), which holds on a busy machine.
func serve(b *testing.B, h http.Handler, targets []string, edit ...func(i int, r *http.Request)) {
	reqs := make([]*http.Request, len(targets))
	for i, t := range targets {
		reqs[i] = httptest.NewRequest(http.MethodGet, t, nil)
		reqs[i].Header.Set("X-API-Key", testKey)
		for _, f := range edit {
			f(i, reqs[i])
		}
	}
	w := &sink{h: http.Header{}}
	b.ReportAllocs()
	i := 0
	cpu := processCPU()
	for b.Loop() {
		clear(w.h)
		h.ServeHTTP(w, reqs[i%len(reqs)])
		i++
	}
	if cpu := processCPU() - cpu; cpu > 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

func BenchmarkHandler(b *testing.B) {
	snap := benchSnapshot(b)
	g := snap.Game("dbs")
	h := mustServer(b, Config{}, testDeps(snap))
	rng := rand.New(rand.NewPCG(7, 8))
	cards := make([]string, 4096)
	for i := range cards {
		body := g.CardJSON(catalog.CardRef(rng.IntN(g.Len())))
		cards[i] = "/dbs/cards/" + body[7:7+20]
	}
	b.Run("Ceiling", func(b *testing.B) {
		bodies := make(map[string]string, len(cards))
		for _, c := range cards {
			r, _ := g.LookupCard(strings.TrimPrefix(c, "/dbs/cards/"))
			bodies[c] = g.CardJSON(r)
		}
		ceiling := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			w.(*sink).WriteString(bodies[r.URL.Path])
		})
		serve(b, ceiling, cards)
	})
	b.Run("CardDetail", func(b *testing.B) { serve(b, h, cards) })
	// The revalidation of a card detail: the same work up to the body, whose
	// tag is compared instead of writing it (a 304).
	b.Run("CardDetail304", func(b *testing.B) {
		tags := make([]string, len(cards))
		for i, c := range cards {
			tags[i] = get(h, c).Header().Get("ETag")
		}
		serve(b, h, cards, func(i int, r *http.Request) { r.Header.Set("If-None-Match", tags[i]) })
	})
	// The small answers, where the chain is the whole cost: an unknown card
	// (404) and no key (401).
	b.Run("CardNotFound", func(b *testing.B) {
		serve(b, h, []string{"/dbs/cards/dbs_0123456789abcdef", "/dbs/cards/dbs_0123456789abcde0"})
	})
	b.Run("NoKey", func(b *testing.B) {
		serve(b, h, cards, func(_ int, r *http.Request) { r.Header.Del("X-API-Key") })
	})
	var setPages []string
	for _, s := range g.Sets()[:512] {
		setPages = append(setPages, "/dbs/sets/"+s.ID)
	}
	b.Run("SetPage50", func(b *testing.B) { serve(b, h, setPages) })
	// Pages from the whole catalogue, as the load harness asks them: the
	// listings are not in cache (bench/README.md, "Set pages as one slice").
	var widePages []string
	for _, s := range g.Sets() {
		for p := 1; p*50 <= s.Total; p++ {
			widePages = append(widePages, fmt.Sprintf("/dbs/sets/%s?page=%d", s.ID, p))
		}
	}
	rng.Shuffle(len(widePages), func(i, j int) { widePages[i], widePages[j] = widePages[j], widePages[i] })
	b.Run("SetPage50Wide", func(b *testing.B) { serve(b, h, widePages) })
	// The revalidation of a set page: the If-None-Match of its answer.
	b.Run("SetPage50_304", func(b *testing.B) {
		tags := make([]string, len(setPages))
		for i, p := range setPages {
			tags[i] = get(h, p).Header().Get("ETag")
		}
		serve(b, h, setPages, func(i int, r *http.Request) { r.Header.Set("If-None-Match", tags[i]) })
	})
	// A set page compressed: its variant kept after the first request.
	b.Run("SetPage50_gzip", func(b *testing.B) {
		serve(b, h, setPages, func(_ int, r *http.Request) { r.Header.Set("Accept-Encoding", "gzip") })
	})
	b.Run("Search", func(b *testing.B) {
		var targets []string
		for i := 0; i < 2048; i++ {
			w1, w2 := benchWords[rng.IntN(len(benchWords))], benchWords[rng.IntN(len(benchWords))]
			switch i % 5 {
			case 0:
				targets = append(targets, "/dbs/search?q="+url.QueryEscape(w1))
			case 1:
				targets = append(targets, "/dbs/search?q="+url.QueryEscape(w1+" "+w2))
			case 2:
				targets = append(targets, "/dbs/search?q="+url.QueryEscape(string([]rune(w1)[:2])))
			case 3:
				targets = append(targets, fmt.Sprintf("/dbs/search?q=S%04d-%03d", rng.IntN(4000), 1+rng.IntN(250)))
			case 4:
				targets = append(targets, "/dbs/search?q=zq"+url.QueryEscape(w1))
			}
		}
		serve(b, h, targets)
	})
}

// ultraAuth accepts every well-formed key as an Ultra caller.
type ultraAuth struct{}

func (ultraAuth) Authenticate(context.Context, string) (account.Caller, error) {
	return account.CallerOf(&account.Account{ID: 1, Plan: account.Ultra}, "pk_test_bench", time.Time{}), nil
}

// BenchmarkPaid runs each paid endpoint through the whole handler (chain,
// routing, key and plan checks, :set lookup, parameter parsing) on the
// 1,000,000-card game: every answer is a body computed for the version (the
// prices bodies on their first request, which the warm-up makes here; see
// analytics' BenchmarkPricesRender for that one-time cost).
func BenchmarkPaid(b *testing.B) {
	v := benchSnapshot(b)
	deps := testDeps(v)
	deps.Auth = ultraAuth{}
	h := mustServer(b, Config{}, deps)
	sets := v.Game("dbs").Sets()[:512]
	targets := func(f func(i int, set string) string) []string {
		var out []string
		for i := range sets {
			out = append(out, f(i, sets[i].ID))
		}
		return out
	}
	cases := []struct {
		name    string
		targets []string
	}{
		{"Prices", targets(func(i int, set string) string {
			return "/dbs/prices/" + set + []string{"", "?source=tcg", "?source=cm"}[i%3]
		})},
		{"Statistics", targets(func(i int, set string) string {
			return "/dbs/sets/" + set + "/statistics" + []string{"", "?variant=foil"}[i%2]
		})},
		{"CompletionValue", targets(func(i int, set string) string { return "/dbs/sets/" + set + "/completion-value" })},
		{"Trending", []string{"/dbs/sets/trending", "/dbs/sets/trending?limit=50", "/dbs/sets/trending?period=7d&limit=3"}},
		{"TopCards", []string{"/dbs/analytics/top-cards", "/dbs/analytics/top-cards?source=cm&limit=100",
			"/dbs/analytics/top-cards?metric=growth&limit=25"}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			bytes := 0
			for _, t := range c.targets { // warm-up: first requests, and every answer is a 200
				r := httptest.NewRequest(http.MethodGet, t, nil)
				r.Header.Set("X-API-Key", testKey)
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				if w.Code != http.StatusOK {
					b.Fatalf("GET %s: %d %.200s", t, w.Code, w.Body)
				}
				bytes += w.Body.Len()
			}
			serve(b, h, c.targets)
			b.ReportMetric(float64(bytes)/float64(len(c.targets)), "body-B")
		})
	}
}

// BenchmarkETagShare measures what tagging adds to an answer, on a shared
// machine: in turns of 256 requests, the whole handler (which tags its 200s)
// and etag.Of of the same bodies alone, so that both see the same load. It
// reports each one's ns per request and tag-% = tag / handler: the share of
// the handler's time that computing the ETag takes.
func BenchmarkETagShare(b *testing.B) {
	snap := benchSnapshot(b)
	g := snap.Game("dbs")
	h := mustServer(b, Config{}, testDeps(snap))
	rng := rand.New(rand.NewPCG(9, 10))
	cases := map[string][]string{}
	for range 4096 {
		body := g.CardJSON(catalog.CardRef(rng.IntN(g.Len())))
		cases["CardDetail"] = append(cases["CardDetail"], "/dbs/cards/"+body[7:7+20])
	}
	for _, s := range g.Sets()[:512] {
		cases["SetPage50"] = append(cases["SetPage50"], "/dbs/sets/"+s.ID)
	}
	for _, name := range []string{"CardDetail", "SetPage50"} {
		targets := cases[name]
		b.Run(name, func(b *testing.B) {
			bodies := make([][]byte, len(targets))
			reqs := make([]*http.Request, len(targets))
			for i, t := range targets {
				bodies[i] = get(h, t).Body.Bytes()
				reqs[i] = httptest.NewRequest(http.MethodGet, t, nil)
				reqs[i].Header.Set("X-API-Key", testKey)
			}
			w := &sink{h: http.Header{}}
			var spent [2]time.Duration
			var count [2]int
			n := 0
			for b.Loop() {
				if n%256 == 0 {
					k := (n / 256) % 2
					start := time.Now()
					for j := range 256 {
						i := (n + j) % len(targets)
						if k == 0 {
							clear(w.h)
							h.ServeHTTP(w, reqs[i])
						} else {
							etag.Of(bodies[i])
						}
					}
					spent[k] += time.Since(start)
					count[k] += 256
				}
				n++
			}
			if count[0] == 0 || count[1] == 0 {
				return
			}
			handler := float64(spent[0].Nanoseconds()) / float64(count[0])
			tag := float64(spent[1].Nanoseconds()) / float64(count[1])
			b.ReportMetric(handler, "handler-ns")
			b.ReportMetric(tag, "tag-ns")
			b.ReportMetric(100*tag/handler, "tag-%")
		})
	}
}
