// Package storetest is the test suite every store.Store implementation passes:
// store/sqlite and store/postgres run the same tests, so one dialect cannot
// drift from the other.
package storetest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/store"
	"github.com/cardcat/cardcat/internal/store/sqlmigrate"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// Reopener is a store whose database the suite can open again, as a
// restarted server would, and change behind the store's back.
type Reopener interface {
	store.Store
	// Reopen opens the same database with a new store (which the caller closes).
	Reopen(ctx context.Context) (store.Store, error)
	// Exec runs one SQL statement on the database, outside the store.
	Exec(ctx context.Context, query string) error
}

// Run runs the suite. open returns a new store on a new, empty database,
// closed when t ends; it must implement Reopener. Subtests run in parallel,
// each on its own database.
func Run(t *testing.T, open func(t *testing.T) store.Store) {
	tests := []struct {
		name string
		test func(t *testing.T, s store.Store)
	}{
		{"Empty", testEmpty},
		{"RoundTrip", testRoundTrip},
		{"TimesTruncatedToMicroseconds", testTimesTruncated},
		{"ReplaceKeepsOtherGames", testReplaceKeepsOtherGames},
		{"ReplaceEmptyGameRemovesIt", testReplaceEmptyGame},
		{"VersionConflict", testVersionConflict},
		{"ConcurrentReplace", testConcurrentReplace},
		{"FailedReplaceRollsBack", testFailedReplaceRollsBack},
		{"PricePoints", testPricePoints},
		{"TCGMarketAverages", testTCGMarketAverages},
		{"TCGMarketAveragesCoverage", testTCGMarketAveragesCoverage},
		{"TCGHistoryStored", testTCGHistoryStored},
		{"CardChanges", testCardChanges},
		{"PriceHistoryWindow", testPriceHistoryWindow},
		{"PrunePriceHistory", testPrunePriceHistory},
		{"Migrations", testMigrations},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.test(t, open(t))
		})
	}
}

// Days of the suite's replaces. day1 is in a zone east of UTC, just after
// local midnight, so its UTC day is the day before: price points must be
// keyed by the UTC day.
var (
	day1 = time.Date(2025, 1, 3, 0, 30, 0, 123456000, time.FixedZone("EET", 2*3600)) // 2025-01-02 UTC
	day2 = time.Date(2025, 1, 3, 12, 0, 0, 0, time.UTC)
	day3 = time.Date(2025, 1, 4, 12, 0, 0, 0, time.UTC)
)

// cmpOpts: nil and empty lists are the same catalogue; times compare with
// Equal (cmp uses the method), so the location does not matter.
var cmpOpts = []cmp.Option{cmpopts.EquateEmpty()}

func testEmpty(t *testing.T, s store.Store) {
	ctx := context.Background()
	if err := s.Ping(ctx); err != nil {
		t.Fatalf("Ping: %v", err)
	}
	if v, err := s.CatalogVersion(ctx); err != nil || v != 0 {
		t.Errorf("CatalogVersion = %d, %v; want 0, nil", v, err)
	}
	if _, err := s.LatestVersion(ctx); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("LatestVersion error = %v, want store.ErrNotFound", err)
	}
	if diff := cmp.Diff(&catalog.Catalog{}, MustLoad(t, s), cmpOpts...); diff != "" {
		t.Errorf("LoadCatalog of an empty store (-want +got):\n%s", diff)
	}
	if h, err := s.PriceHistory(ctx, "mtg", "mtg_0000000000000000"); err != nil || len(h) != 0 {
		t.Errorf("PriceHistory of an unknown card = %v, %v; want none, nil", h, err)
	}
	if h, err := s.TCGMarketAverages(ctx, "mtg", day1); err != nil || h.Days != 0 || len(h.Averages) != 0 || h.Day != "2025-01-02" || h.Game != "mtg" {
		t.Errorf("TCGMarketAverages of an empty store = %+v, %v; want day 2025-01-02, nothing, nil", h, err)
	}
}

func testRoundTrip(t *testing.T, s store.Store) {
	ctx := context.Background()
	report := `{"cards":4,"note":"ünïcode"}`
	v := MustReplace(t, s, 0, []catalog.GameCatalog{sampleMTG(), sampleDBS()}, report, day1)
	if v != 1 {
		t.Errorf("first ReplaceCatalog = version %d, want 1", v)
	}
	want := wantCatalog(1, day1, sampleDBS(), sampleMTG())
	if diff := cmp.Diff(want, MustLoad(t, s), cmpOpts...); diff != "" {
		t.Errorf("LoadCatalog (-want +got):\n%s", diff)
	}
	got, err := s.LatestVersion(ctx)
	if err != nil {
		t.Fatalf("LatestVersion: %v", err)
	}
	if diff := cmp.Diff(store.VersionInfo{Version: 1, CreatedAt: day1, Report: report}, got); diff != "" {
		t.Errorf("LatestVersion (-want +got):\n%s", diff)
	}
	if got.CreatedAt.Location() != time.UTC {
		t.Errorf("LatestVersion.CreatedAt in %v, want UTC", got.CreatedAt.Location())
	}
	if v, err := s.CatalogVersion(ctx); err != nil || v != 1 {
		t.Errorf("CatalogVersion = %d, %v; want 1, nil", v, err)
	}
}

// testTimesTruncated pins down what both stores do with the nanoseconds a
// caller should not pass: they are cut, never rounded.
func testTimesTruncated(t *testing.T, s store.Store) {
	now := day1.Add(999 * time.Nanosecond)
	dbs := sampleDBS()
	dbs.Cards[0].TCGPrices[0].UpdatedAt = updated.Add(1500 * time.Nanosecond)
	MustReplace(t, s, 0, []catalog.GameCatalog{dbs}, "{}", now)
	dbs.Cards[0].TCGPrices[0].UpdatedAt = updated.Add(time.Microsecond)
	want := wantCatalog(1, day1, dbs)
	if diff := cmp.Diff(want, MustLoad(t, s), cmpOpts...); diff != "" {
		t.Errorf("LoadCatalog (-want +got):\n%s", diff)
	}
}

func testReplaceKeepsOtherGames(t *testing.T, s store.Store) {
	MustReplace(t, s, 0, []catalog.GameCatalog{sampleMTG(), sampleDBS()}, "{}", day1)
	dbs := sampleDBS()
	dbs.Cards[0].Name = "Son Goku, renamed"
	dbs.Cards = append(dbs.Cards, catalog.Card{Game: "dbs", ID: catalog.TCGCardID("dbs", 10), SetID: "2345", Name: "Vegeta"})
	if v := MustReplace(t, s, 1, []catalog.GameCatalog{dbs}, "{}", day2); v != 2 {
		t.Errorf("second ReplaceCatalog = version %d, want 2", v)
	}
	want := wantCatalog(2, day2, sampleMTG(), dbs)
	if diff := cmp.Diff(want, MustLoad(t, s), cmpOpts...); diff != "" {
		t.Errorf("LoadCatalog (-want +got):\n%s", diff)
	}
}

func testReplaceEmptyGame(t *testing.T, s store.Store) {
	MustReplace(t, s, 0, []catalog.GameCatalog{sampleMTG(), sampleDBS()}, "{}", day1)
	MustReplace(t, s, 1, []catalog.GameCatalog{{Game: "mtg"}}, "{}", day2)
	want := wantCatalog(2, day2, sampleDBS())
	if diff := cmp.Diff(want, MustLoad(t, s), cmpOpts...); diff != "" {
		t.Errorf("LoadCatalog (-want +got):\n%s", diff)
	}
}

func testVersionConflict(t *testing.T, s store.Store) {
	ctx := context.Background()
	MustReplace(t, s, 0, []catalog.GameCatalog{sampleMTG()}, "{}", day1)
	before := snapshot(t, s)
	for _, base := range []int64{0, 2} {
		_, err := s.ReplaceCatalog(ctx, base, []catalog.GameCatalog{sampleDBS(), {Game: "mtg"}}, "{}", day2)
		if !errors.Is(err, store.ErrVersionConflict) {
			t.Errorf("ReplaceCatalog(base %d) at version 1: error %v, want store.ErrVersionConflict", base, err)
		}
	}
	before.check(t, s)
}

// testConcurrentReplace races two ingests from the same base: one wins, the
// other learns of the conflict and writes nothing.
func testConcurrentReplace(t *testing.T, s store.Store) {
	ctx := context.Background()
	MustReplace(t, s, 0, []catalog.GameCatalog{sampleDBS()}, "{}", day1)
	inputs := [][]catalog.GameCatalog{{sampleMTG()}, {{Game: "dbs"}}}
	errs := make([]error, len(inputs))
	var wg sync.WaitGroup
	for i, games := range inputs {
		wg.Go(func() { _, errs[i] = s.ReplaceCatalog(ctx, 1, games, "{}", day2) })
	}
	wg.Wait()
	var want *catalog.Catalog
	switch {
	case errs[0] == nil && errors.Is(errs[1], store.ErrVersionConflict):
		want = wantCatalog(2, day2, sampleDBS(), sampleMTG())
	case errs[1] == nil && errors.Is(errs[0], store.ErrVersionConflict):
		want = wantCatalog(2, day2)
	default:
		t.Fatalf("concurrent ReplaceCatalog errors %v, %v; want one nil and one store.ErrVersionConflict", errs[0], errs[1])
	}
	if diff := cmp.Diff(want, MustLoad(t, s), cmpOpts...); diff != "" {
		t.Errorf("LoadCatalog (-want +got):\n%s", diff)
	}
}

func testFailedReplaceRollsBack(t *testing.T, s store.Store) {
	MustReplace(t, s, 0, []catalog.GameCatalog{sampleMTG(), sampleDBS()}, "{}", day1)
	before := snapshot(t, s)

	// Each input changes the good game first, so that a partial write would show.
	changedDBS := sampleDBS()
	changedDBS.Cards[0].TCGPrices[0].Market = catalog.Cents(1)
	tests := []struct {
		name   string
		ctx    func() context.Context
		broken func() catalog.GameCatalog
	}{
		{"duplicate card id", context.Background, func() catalog.GameCatalog {
			g := sampleMTG()
			g.Cards = append(g.Cards, g.Cards[1])
			return g
		}},
		{"duplicate set id", context.Background, func() catalog.GameCatalog {
			g := sampleMTG()
			g.Sets = append(g.Sets, g.Sets[0])
			return g
		}},
		{"finish priced twice", context.Background, func() catalog.GameCatalog {
			g := sampleMTG()
			g.Cards[0].CMPrices = append(g.Cards[0].CMPrices, g.Cards[0].CMPrices[0])
			return g
		}},
		{"card of another game", context.Background, func() catalog.GameCatalog {
			g := sampleMTG()
			g.Cards[2].Game = "dbs"
			return g
		}},
		{"context canceled", func() context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx
		}, sampleMTG},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := s.ReplaceCatalog(tt.ctx(), 1, []catalog.GameCatalog{changedDBS, tt.broken()}, "{}", day2)
			if err == nil {
				t.Fatalf("ReplaceCatalog = version %d, nil; want an error", v)
			}
			if errors.Is(err, store.ErrVersionConflict) {
				t.Errorf("ReplaceCatalog error %v is a version conflict", err)
			}
			before.check(t, s)
		})
	}
}

func testPricePoints(t *testing.T, s store.Store) {
	ctx := context.Background()
	mtg := sampleMTG()
	lotus := mtg.Cards[0].ID
	MustReplace(t, s, 0, []catalog.GameCatalog{mtg}, "{}", day1)

	// Later on the same UTC day, with new prices: the day's points are replaced.
	mtg.Cards[0].TCGPrices[0].Low = catalog.Cents(150)
	mtg.Cards[0].CMPrices[0].Avg = catalog.Money{}
	MustReplace(t, s, 1, []catalog.GameCatalog{mtg}, "{}", day1.Add(time.Hour))
	// Points of one day come by market, then finish.
	first := []store.PricePoint{
		cmPoint(lotus, catalog.CMFoil, "2025-01-02"),
		cmPoint(lotus, catalog.CMNormal, "2025-01-02", catalog.Money{}, catalog.Cents(0), catalog.Cents(120), catalog.Money{}, catalog.Money{}, catalog.Cents(90)),
		tcgPoint(lotus, "Foil", "2025-01-02", catalog.Money{}, catalog.Money{}, catalog.Money{}, catalog.Cents(1), catalog.Money{}),
		tcgPoint(lotus, "Normal", "2025-01-02", catalog.Cents(150), catalog.Cents(123_456_789), catalog.Cents(-5), catalog.Cents(99), catalog.Money{}),
	}
	checkHistory(t, s, "mtg", lotus, first)

	// The next day adds points; the history keeps the first day's.
	mtg.Cards[0].TCGPrices = mtg.Cards[0].TCGPrices[:1]
	mtg.Cards[0].TCGPrices[0].Low = catalog.Cents(200)
	mtg.Cards[0].CMPrices = nil
	MustReplace(t, s, 2, []catalog.GameCatalog{mtg}, "{}", day2)
	second := append(first, tcgPoint(lotus, "Normal", "2025-01-03", catalog.Cents(200), catalog.Cents(123_456_789), catalog.Cents(-5), catalog.Cents(99), catalog.Money{}))
	checkHistory(t, s, "mtg", lotus, second)

	// A replace without the card keeps its history.
	mtg.Cards = mtg.Cards[1:]
	MustReplace(t, s, 3, []catalog.GameCatalog{mtg}, "{}", day3)
	checkHistory(t, s, "mtg", lotus, second)
	if h, err := s.PriceHistory(ctx, "dbs", lotus); err != nil || len(h) != 0 {
		t.Errorf("PriceHistory of the card in another game = %v, %v; want none", h, err)
	}
	// The card priced nowhere has no history.
	checkHistory(t, s, "mtg", catalog.TCGCardID("mtg", 2), nil)
}

func tcgPoint(id, finish, day string, values ...catalog.Money) store.PricePoint {
	return store.PricePoint{Game: "mtg", CardID: id, Market: store.MarketTCG, Finish: finish, Day: day, Values: values}
}

func cmPoint(id, finish, day string, values ...catalog.Money) store.PricePoint {
	if values == nil {
		values = make([]catalog.Money, 6)
	}
	return store.PricePoint{Game: "mtg", CardID: id, Market: store.MarketCM, Finish: finish, Day: day, Values: values}
}

func checkHistory(t *testing.T, s store.Store, game, id string, want []store.PricePoint) {
	t.Helper()
	got, err := s.PriceHistory(context.Background(), game, id)
	if err != nil {
		t.Fatalf("PriceHistory(%s, %s): %v", game, id, err)
	}
	if diff := cmp.Diff(want, got, cmpOpts...); diff != "" {
		t.Errorf("PriceHistory(%s, %s) (-want +got):\n%s", game, id, diff)
	}
}

func testMigrations(t *testing.T, s store.Store) {
	ctx := context.Background()
	r, ok := s.(Reopener)
	if !ok {
		t.Fatalf("open returned a %T, which does not implement storetest.Reopener", s)
	}
	MustReplace(t, s, 0, []catalog.GameCatalog{sampleMTG()}, "{}", day1)
	want := MustLoad(t, s)

	for i := range 2 {
		again, err := r.Reopen(ctx)
		if err != nil {
			t.Fatalf("reopen %d: %v", i+1, err)
		}
		if diff := cmp.Diff(want, MustLoad(t, again), cmpOpts...); diff != "" {
			t.Errorf("LoadCatalog after reopen %d (-want +got):\n%s", i+1, diff)
		}
		if err := again.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}

	if err := r.Exec(ctx, `INSERT INTO schema_migrations (version, name) VALUES (9999, '9999_from_the_future.sql')`); err != nil {
		t.Fatalf("record a future migration: %v", err)
	}
	newer, err := r.Reopen(ctx)
	if err == nil {
		newer.Close()
		t.Fatal("reopen of a database with a newer schema succeeded")
	}
	if !errors.Is(err, sqlmigrate.ErrSchemaTooNew) {
		t.Errorf("reopen of a database with a newer schema: error %v, want sqlmigrate.ErrSchemaTooNew", err)
	}
}

// MustReplace writes games, failing the test on an error.
func MustReplace(tb testing.TB, s store.Store, base int64, games []catalog.GameCatalog, report string, now time.Time) int64 {
	tb.Helper()
	v, err := s.ReplaceCatalog(context.Background(), base, games, report, now)
	if err != nil {
		tb.Fatalf("ReplaceCatalog: %v", err)
	}
	return v
}

// MustLoad loads the catalogue, failing the test on an error.
func MustLoad(tb testing.TB, s store.Store) *catalog.Catalog {
	tb.Helper()
	c, err := s.LoadCatalog(context.Background())
	if err != nil {
		tb.Fatalf("LoadCatalog: %v", err)
	}
	return c
}

// state is everything a failed write must leave as it was.
type state struct {
	catalog *catalog.Catalog
	version store.VersionInfo
	history map[string][]store.PricePoint
}

func snapshot(tb testing.TB, s store.Store) state {
	tb.Helper()
	st := state{catalog: MustLoad(tb, s), history: map[string][]store.PricePoint{}}
	var err error
	if st.version, err = s.LatestVersion(context.Background()); err != nil {
		tb.Fatalf("LatestVersion: %v", err)
	}
	for _, g := range st.catalog.Games {
		for _, c := range g.Cards {
			if st.history[g.Game+"/"+c.ID], err = s.PriceHistory(context.Background(), g.Game, c.ID); err != nil {
				tb.Fatalf("PriceHistory: %v", err)
			}
		}
	}
	return st
}

// check fails the test when s no longer holds the state.
func (st state) check(tb testing.TB, s store.Store) {
	tb.Helper()
	now := snapshot(tb, s)
	if diff := cmp.Diff(st, now, cmp.AllowUnexported(state{}), cmpopts.EquateEmpty()); diff != "" {
		tb.Errorf("store changed (-before +after):\n%s", diff)
	}
}
