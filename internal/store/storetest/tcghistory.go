package storetest

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/store"
	gocmp "github.com/google/go-cmp/cmp"
)

// oddFinishes are TCGplayer finishes of varied bytes: case, spaces,
// non-ASCII, and a name that sorts before the others.
var oddFinishes = []string{"Normal", "normal", "Foil", "1st Edition Holofoil", "Réverse Holofoil", "Unlimited"}

// drawnGame is the catalogue of game on one day, drawn from rng: cards 1..n,
// each present on a day with probability 5/6 (so cards leave and come
// back), priced on TCGplayer only, on Cardmarket only, on both or on
// neither, with one to three of oddFinishes (a market price missing now
// and then, some negative) and Cardmarket normal and foil.
func drawnGame(rng *rand.Rand, game string, n int) catalog.GameCatalog {
	g := catalog.GameCatalog{Game: game, Sets: []catalog.Set{{Game: game, ID: "1", Name: "Set"}}}
	for pid := 1; pid <= n; pid++ {
		if rng.IntN(6) == 0 {
			continue
		}
		c := catalog.Card{Game: game, ID: catalog.TCGCardID(game, pid), SetID: "1", TCGProductID: pid, Name: "Card"}
		switch rng.IntN(4) {
		case 0: // Cardmarket only
		case 1: // neither
			g.Cards = append(g.Cards, c)
			continue
		default:
			for _, i := range rng.Perm(len(oddFinishes))[:1+rng.IntN(3)] {
				var m catalog.Money
				if rng.IntN(8) != 0 {
					m = catalog.Cents(rng.Int64N(20_000) - 50)
				}
				c.TCGPrices = append(c.TCGPrices, catalog.TCGPrice{SubType: oddFinishes[i], Low: catalog.Cents(1), Market: m})
			}
		}
		if len(c.TCGPrices) == 0 || rng.IntN(2) == 0 {
			c.CMPrices = []catalog.CMPrice{{Variant: catalog.CMNormal, Avg: catalog.Cents(rng.Int64N(500))}}
			if rng.IntN(2) == 0 {
				c.CMPrices = append(c.CMPrices, catalog.CMPrice{Variant: catalog.CMFoil, Trend: catalog.Cents(7)})
			}
		}
		g.Cards = append(g.Cards, c)
	}
	return g
}

// testTCGHistoryStored: the history a replace stores for its version equals
// the one computed from the points (as a version written before the stored
// history is read), on drawn catalogues of two games written on about 20
// days spread over 40, twice on some days, one game alone on others; and the
// stored history is what TCGMarketAverages reads, only for the current
// version's day.
func testTCGHistoryStored(t *testing.T, s store.Store) {
	ctx := context.Background()
	r := s.(Reopener)
	rng := rand.New(rand.NewPCG(17, 2))
	var (
		base     int64
		last     time.Time
		averages int
	)
	for k := 40; k >= 0; k-- {
		if rng.IntN(2) == 0 {
			continue
		}
		games := []catalog.GameCatalog{drawnGame(rng, "mtg", 60)}
		if k%4 != 0 { // dbs is kept, not written, on these days: its windows move all the same
			games = append(games, drawnGame(rng, "dbs", 20))
		}
		writes := 1 + rng.IntN(2) // a second replace on a day overwrites its points
		for range writes {
			last = at(k).Add(time.Duration(rng.IntN(11)) * time.Hour)
			base = MustReplace(t, s, base, games, "{}", last)
			games[0] = drawnGame(rng, "mtg", 60)
		}
		stored := map[string]store.TCGHistory{"mtg": mustAverages(t, s, "mtg", last), "dbs": mustAverages(t, s, "dbs", last)}
		// What a store whose version was written before migration 0006 has.
		if err := r.Exec(ctx, `DELETE FROM tcg_history`); err != nil {
			t.Fatal(err)
		}
		for _, game := range []string{"mtg", "dbs"} {
			if diff := gocmp.Diff(mustAverages(t, s, game, last), stored[game], cmpOpts...); diff != "" {
				t.Fatalf("%s on D-%d: stored TCGplayer history (+) differs from the one computed from the points (-):\n%s", game, k, diff)
			}
			averages += len(stored[game].Averages)
		}
	}
	final := mustAverages(t, s, "mtg", last)
	if final.Days < 10 || len(final.Averages) < 30 || averages < 500 {
		t.Fatalf("the drawn history is too thin to compare: %d days, %d averages on the last day, %d in all", final.Days, len(final.Averages), averages)
	}

	// After the checks above deleted it, the next replace stores the history again; TCGMarketAverages reads it,
	// so an average changed behind the store's back shows.
	base = MustReplace(t, s, base, []catalog.GameCatalog{drawnGame(rng, "mtg", 60)}, "{}", last.Add(time.Minute))
	want := mustAverages(t, s, "mtg", last)
	tampered := want.Averages[0]
	tampered.Avg7 = catalog.Cents(123_456_789)
	if err := r.Exec(ctx, `UPDATE tcg_history_averages SET avg7 = 123456789 WHERE card_id = '`+tampered.CardID+`' AND finish = '`+tampered.Finish+`'`); err != nil {
		t.Fatal(err)
	}
	if got := mustAverages(t, s, "mtg", last); got.Averages[0] != tampered {
		t.Errorf("after changing a stored average, TCGMarketAverages gave %+v, want %+v: the stored history is not read", got.Averages[0], tampered)
	}
	// Another day than the version's is computed (the changed average is not read); so is a history
	// stored for another version than the current one.
	if got := mustAverages(t, s, "mtg", last.AddDate(0, 0, 1)); len(got.Averages) > 0 && got.Averages[0] == tampered {
		t.Errorf("TCGMarketAverages of the next day read the stored history of the version's day")
	}
	if err := r.Exec(ctx, `UPDATE tcg_history SET version = version - 1`); err != nil {
		t.Fatal(err)
	}
	if diff := gocmp.Diff(want, mustAverages(t, s, "mtg", last), cmpOpts...); diff != "" {
		t.Errorf("TCGMarketAverages with a history stored for an older version (-want computed +got):\n%s", diff)
	}
	// A game removed from the catalogue has no stored history left.
	MustReplace(t, s, base, []catalog.GameCatalog{{Game: "dbs"}}, "{}", last.Add(2*time.Minute))
	if got := mustAverages(t, s, "dbs", last); got.Days != 0 || len(got.Averages) != 0 {
		t.Errorf("TCGMarketAverages of a removed game = %+v, want no days, no averages", got)
	}
}
