package catalog

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/game"
)

// benchWords are the words of generated card names and texts: real-sounding
// names of both games, a few with accents.
var benchWords = strings.Fields(`
son goku vegeta gohan trunks piccolo frieza cell buu beerus whis broly gogeta vegito krillin yamcha tien
chiaotzu android bulma chi-chi videl goten pan bardock raditz nappa zarbon dodoria ginyu recoome jeice
burter guldo cooler janemba hit jiren toppo dyspo zamasu black rose golden super saiyan blue ultra
instinct awakened pulse fusion world dragon ball energy wrath fury power strike flash kamehameha
galick gun final explosion spirit bomb destructo disc special beam cannon masenko big bang attack
alania pathmaker fabled passage forest island swamp mountain plains bloomburrow otter wizard rabbit
bat lizard mouse frog squirrel raccoon bird weasel warren warleader intrepid tender wildguide
vinelasher season loss truce heist talent nocturne mettle patrol brew sharepot augur tempest
doctor tenth eleventh tardis dalek exterminate companion rose martha donna amy clara river song
sonic screwdriver regeneration gallifrey time lord master missy davros cyberman weeping angel
æther vial jötun grunt lim-dûl necromancer séance ghazbán ogre dandân márton stromgald
shivan dragon serra angel llanowar elves counterspell lightning bolt dark ritual giant growth
swords plowshares wrath god birds paradise sol ring mana crypt vault thought seize hymn
knight champion guardian sentinel warden keeper seeker hunter stalker reaper shade spirit specter
ancient eternal forgotten hidden lost sacred silent twisted wild burning frozen shattered broken
crown blade shield tower gate bridge temple throne citadel sanctum grove glade hollow marsh peak
`)

var benchRarities = []string{"Common", "Uncommon", "Rare", "Super Rare", "Special Rare", "Leader", "Secret Rare"}

// benchCatalog generates a deterministic catalogue of n products of one game
// in sets of 250: names of 1 to 4 words, numbers, rules text, game fields,
// TCGplayer prices for most cards, Cardmarket prices for 60% of them, 10%
// Cardmarket-only cards and 2% sealed products.
func benchCatalog(n int) *Catalog {
	rng := rand.New(rand.NewPCG(1, 2))
	word := func() string { return benchWords[rng.IntN(len(benchWords))] }
	title := func(w string) string {
		if w == "" {
			return w
		}
		return strings.ToUpper(w[:1]) + w[1:]
	}
	const perSet = 250
	gc := GameCatalog{Game: "dbs"}
	updated := time.Date(2026, 1, 30, 20, 0, 0, 0, time.UTC)
	base := time.Date(2005, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < n; i++ {
		si := i / perSet
		setID := fmt.Sprint(100000 + si)
		code := fmt.Sprintf("S%04d", si%5000)
		if i%perSet == 0 {
			gc.Sets = append(gc.Sets, Set{Game: "dbs", ID: setID, Code: code,
				Name:     title(word()) + " " + title(word()),
				Language: "en", ReleaseDate: base.AddDate(0, 0, rng.IntN(7300)).Format("2006-01-02T15:04:05"),
				TCGCategoryID: 80, TCGGroupID: 100000 + si})
		}
		var nb strings.Builder
		for w := rng.IntN(4); w >= 0; w-- {
			if nb.Len() > 0 {
				nb.WriteByte(' ')
			}
			nb.WriteString(title(word()))
		}
		switch rng.IntN(10) {
		case 0:
			nb.WriteString(" (Alternate Art)")
		case 1:
			nb.WriteString(" (Showcase)")
		}
		name := nb.String()
		var text strings.Builder
		text.WriteString("<strong>[Activate: Main]</strong> ")
		for w := 15 + rng.IntN(25); w > 0; w-- {
			text.WriteString(word())
			text.WriteByte(' ')
		}
		c := Card{Game: "dbs", SetID: setID, Name: name, CleanName: name,
			CardNumber: fmt.Sprintf("%s-%03d", code, i%perSet+1), Rarity: benchRarities[rng.IntN(len(benchRarities))],
			CardType: "Battle", ProductType: ProductCard, CardText: text.String(), ImageCount: 1,
			Extra: []ExtraField{{"color", "Red"}, {"power", fmt.Sprint(5000 + 1000*rng.IntN(20))}, {"cost", "2(R)"},
				{"character_traits", "Saiyan;Universe 7"}}}
		kind := rng.IntN(100)
		if kind < 2 {
			c.ProductType, c.CardNumber, c.Rarity, c.CardType, c.Extra = ProductSealed, "", "", "", nil
		}
		if kind >= 10 { // on TCGplayer
			c.TCGProductID = 1_000_000 + i
			c.ID = TCGCardID("dbs", c.TCGProductID)
			c.TCGURL = fmt.Sprintf("https://www.tcgplayer.com/product/%d/dragon-ball-super-%s", c.TCGProductID, strings.ReplaceAll(strings.ToLower(name), " ", "-"))
			c.Variants = []string{"Normal"}
			c.TCGPrices = []TCGPrice{{SubType: "Normal", Low: Cents(int64(rng.IntN(500))), Mid: Cents(int64(rng.IntN(900))),
				High: Cents(int64(rng.IntN(5000))), Market: Cents(int64(rng.IntN(800))), UpdatedAt: updated}}
			if rng.IntN(10) < 4 {
				c.Variants = append(c.Variants, "Foil")
				c.TCGPrices = append(c.TCGPrices, TCGPrice{SubType: "Foil", Low: Cents(int64(rng.IntN(5000))),
					Mid: Cents(int64(rng.IntN(9000))), High: Cents(int64(rng.IntN(50000))), Market: Cents(int64(rng.IntN(8000))),
					DirectLow: Cents(int64(rng.IntN(5000))), UpdatedAt: updated})
			}
		}
		if kind < 10 || rng.IntN(10) < 6 { // on Cardmarket
			c.CMProductID = 2_000_000 + i
			c.CMID = CMCardID("dbs", 13, c.CMProductID)
			if c.ID == "" {
				c.ID = c.CMID
			}
			c.CMProductName = name
			c.CMProductURL = "https://www.cardmarket.com/en/DragonBallSuper/Products/Singles/" + strings.ReplaceAll(name, " ", "-")
			p := func(v string) CMPrice {
				return CMPrice{Variant: v, Avg: Cents(int64(rng.IntN(900))), Low: Cents(int64(rng.IntN(500))),
					Trend: Cents(int64(rng.IntN(900))), Avg1: Cents(int64(rng.IntN(900))), Avg7: Cents(int64(rng.IntN(900))),
					Avg30: Cents(int64(rng.IntN(900))), UpdatedAt: updated}
			}
			c.CMPrices = []CMPrice{p(CMNormal), p(CMFoil)}
		}
		gc.Cards = append(gc.Cards, c)
	}
	return &Catalog{Version: 1, CreatedAt: updated, Games: []GameCatalog{gc}}
}

var (
	benchOnce     sync.Once
	benchSnapshot *Snapshot
)

// benchMillion returns the snapshot of a generated 1,000,000-card catalogue.
func benchMillion(b *testing.B) *Snapshot {
	benchOnce.Do(func() {
		s, err := NewSnapshot(benchCatalog(1_000_000), game.Default())
		if err != nil {
			b.Fatal(err)
		}
		benchSnapshot = s
	})
	return benchSnapshot
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkNewSnapshot builds snapshots of generated catalogues and reports
// the build time per card and the heap the snapshot keeps per card.
func BenchmarkNewSnapshot(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			c := benchCatalog(n)
			before := heapInUse()
			var s *Snapshot
			b.ResetTimer()
			for b.Loop() {
				var err error
				if s, err = NewSnapshot(c, game.Default()); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			kept := heapInUse() - before
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/card")
			b.ReportMetric(float64(kept)/float64(n), "bytes/card")
			runtime.KeepAlive(s)
			runtime.KeepAlive(c)
		})
	}
}

// BenchmarkSnapshotReads measures the snapshot side of a card detail and of
// a set page of 50.
func BenchmarkSnapshotReads(b *testing.B) {
	s := benchMillion(b)
	g := s.Game("dbs")
	ids := make([]string, 4096)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range ids {
		ids[i] = cardID(g, CardRef(rng.IntN(g.Len())))
	}
	b.Run("CardDetail", func(b *testing.B) {
		n := 0
		i := 0
		for b.Loop() {
			r, ok := g.LookupCard(ids[i%len(ids)])
			if !ok {
				b.Fatal("not found")
			}
			n += len(g.CardJSON(r))
			i++
		}
	})
	// A server's card detail: a random card of the whole catalogue, its
	// tag, its body; each request's card depends on the last's bytes, so
	// that the misses come one after another as a server's requests do.
	coldIDs := make([]string, 1<<20)
	for i := range coldIDs {
		coldIDs[i] = cardID(g, CardRef(rng.IntN(g.Len())))
	}
	b.Run("CardDetailCold", func(b *testing.B) {
		buf := make([]byte, 0, 1<<14)
		i := 0
		for b.Loop() {
			r, ok := g.LookupCard(coldIDs[i])
			if !ok {
				b.Fatal("not found")
			}
			tag := g.CardTag(r)
			buf = g.AppendCard(buf[:0], r)
			i = (i + 1 + int(buf[len(buf)-2]&1) + int(tag[3]&1)) % len(coldIDs)
		}
	})
	b.Run("LookupCold", func(b *testing.B) {
		i := 0
		for b.Loop() {
			r, ok := g.LookupCard(coldIDs[i])
			if !ok {
				b.Fatal("not found")
			}
			i = (i + 1 + int(r&1)) % len(coldIDs)
		}
	})
	b.Run("SetPage50", func(b *testing.B) {
		buf := make([]byte, 0, 1<<17)
		sets := g.Sets()
		i := 0
		for b.Loop() {
			set := &sets[i%len(sets)]
			first, _ := set.Cards()
			buf = buf[:0]
			for r := first; r < first+50; r++ {
				buf = g.AppendListing(buf, r)
			}
			i++
		}
	})
}

func cardID(g *GameSnapshot, r CardRef) string {
	var p CardPrices
	g.CardPrices(r, &p)
	return p.ID
}
