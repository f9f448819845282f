package serving

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cardcat/cardcat"
	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/ingest"
	"github.com/cardcat/cardcat/internal/store"
	"github.com/cardcat/cardcat/internal/store/sqlite"
	"github.com/cardcat/cardcat/internal/testkit"
)

// holderStore serves a catalogue at a version, and fails to read the
// TCGplayer history with historyErr; the other methods of store.Store are
// not used by the holder.
type holderStore struct {
	store.Store
	mu         sync.Mutex // for a test that runs Holder.Watch beside it
	cat        *catalog.Catalog
	loads      int
	historyErr error
	history    []string // the games and days asked for
}

func (s *holderStore) TCGMarketAverages(ctx context.Context, game string, day time.Time) (store.TCGHistory, error) {
	s.history = append(s.history, game+" "+day.UTC().Format(time.DateOnly))
	if err := ctx.Err(); err != nil {
		return store.TCGHistory{}, err
	}
	return store.TCGHistory{}, s.historyErr
}

func (s *holderStore) CatalogVersion(context.Context) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cat.Version, nil
}

// bump writes the next catalogue version; loadCount is how many loads
// there were: both for a test whose Holder.Watch reads the store meanwhile.
func (s *holderStore) bump() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cat.Version++
}

func (s *holderStore) loadCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.loads
}

func (s *holderStore) LoadCatalog(context.Context) (*catalog.Catalog, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.loads++
	b, _ := json.Marshal(s.cat) // a fresh copy, as a store loads it
	var c catalog.Catalog
	return &c, json.Unmarshal(b, &c)
}

// TestHolderRefresh: a new version is built whole (snapshot and paid
// answers of every game, from one catalogue) and swapped in at once; the
// same version is not reloaded; a version that fails to build leaves the
// served one in place.
func TestHolderRefresh(t *testing.T) {
	ctx := context.Background()
	st := &holderStore{cat: mustFixture(t), historyErr: errors.New("price_points: no such table")}
	var logs testkit.SyncBuffer
	h := NewHolder(st, game.Default(), slog.New(slog.NewTextHandler(&logs, nil)))
	if h.Current() != nil {
		t.Fatal("a view before the first refresh")
	}
	if err := h.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	first := h.Current()
	if first == nil || first.Version != st.cat.Version {
		t.Fatalf("after refresh: %+v", first)
	}
	for _, g := range game.Default().All() {
		gs, paid := first.Game(g.Code), first.Paid[g.Code]
		if gs == nil || paid == nil {
			t.Fatalf("game %s: snapshot %v, paid answers %v", g.Code, gs != nil, paid != nil)
		}
		if len(gs.Sets()) == 0 {
			continue // a game of the registry the fixture has no catalogue of
		}
		if set := gs.Sets()[0]; paid.Statistics(set.ID, "").Body == nil {
			t.Errorf("game %s: no statistics of its set %s", g.Code, set.ID)
		}
	}
	// The history is asked for at the version's UTC day; failing to read it
	// is logged, and trending says that it is not available.
	if want := []string{"dbs " + st.cat.CreatedAt.UTC().Format(time.DateOnly), "mtg " + st.cat.CreatedAt.UTC().Format(time.DateOnly)}; !slices.Equal(st.history, want) {
		t.Errorf("history asked for %v, want %v", st.history, want)
	}
	if !strings.Contains(logs.String(), "price_points: no such table") {
		t.Errorf("the history error is not logged:\n%s", logs.String())
	}
	for _, code := range []string{"dbs", "mtg"} {
		if body := string(first.Paid[code].Trending(50).Body); strings.Contains(body, `"market_t":{"price_change"`) ||
			(strings.Contains(body, `"set_id"`) && !strings.Contains(body, "TCGplayer price history is not yet available")) {
			t.Errorf("%s trending without history: %s", code, body)
		}
	}

	if err := h.Refresh(ctx); err != nil || h.Current() != first || st.loads != 1 {
		t.Errorf("same version: err %v, view replaced %v, %d loads", err, h.Current() != first, st.loads)
	}

	st.cat.Version++
	st.cat.Games[0].Cards[0].Name = "Renamed"
	if err := h.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	second := h.Current()
	if second == first || second.Version != st.cat.Version {
		t.Fatalf("new version not swapped in: %d", second.Version)
	}

	st.cat.Version++
	st.cat.Games[0].Sets = nil // every card in an unknown set
	if err := h.Refresh(ctx); err == nil {
		t.Error("a catalogue that cannot be built was accepted")
	}
	if h.Current() != second {
		t.Error("a failed build replaced the served version")
	}

	// Canceled while reading the history: the refresh fails, nothing is swapped.
	st.cat = mustFixture(t)
	st.cat.Version = 100
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if err := h.Refresh(canceled); !errors.Is(err, context.Canceled) {
		t.Errorf("refresh with a canceled context: %v", err)
	}
	if h.Current() != second {
		t.Error("a canceled refresh replaced the served version")
	}
}

// TestHolderTCGHistory: the sample ingested into SQLite, then 29 more
// daily versions whose TCGplayer market prices are those of the sample,
// plus 3 USD on the last 7 days. With 29 days of points trending says how
// many days are covered; with 30, market_t is computed: each card's 30-day
// mean is its price + 0.70 and its 7-day mean its price + 3.00, exactly, so
// every set's two means differ by exactly 2.30 whatever its cards.
func TestHolderTCGHistory(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "cardcat.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	reg := game.Default()
	day0 := time.Date(2026, 2, 1, 6, 0, 0, 0, time.UTC)
	if _, err := ingest.Run(ctx, st, ingest.FSSource{FS: cardcat.Sample(), Name: "sample"}, reg, day0, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	cat, err := st.LoadCatalog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	h := NewHolder(st, reg, slog.New(slog.DiscardHandler))
	for k := 1; k < 30; k++ {
		if k == 23 { // the first of the last 7 days
			for gi := range cat.Games {
				for ci := range cat.Games[gi].Cards {
					for pi := range cat.Games[gi].Cards[ci].TCGPrices {
						if p := &cat.Games[gi].Cards[ci].TCGPrices[pi]; p.Market.OK {
							p.Market.Cents += 300
						}
					}
				}
			}
		}
		if _, err := st.ReplaceCatalog(ctx, int64(k), cat.Games, "{}", day0.AddDate(0, 0, k)); err != nil {
			t.Fatal(err)
		}
		if k < 28 {
			continue
		}
		if err := h.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
		for _, code := range []string{"dbs", "mtg"} {
			checkTrendingMarketT(t, code, k+1, h.Current().Paid[code].Trending(50).Body)
		}
	}
}

// checkTrendingMarketT checks the market_t of a game's trending body after
// days days of points (see TestHolderTCGHistory).
func checkTrendingMarketT(t *testing.T, code string, days int, body []byte) {
	t.Helper()
	var got struct {
		TrendingSets []struct {
			SetID   string `json:"set_id"`
			MarketT *struct {
				Status           string  `json:"status"`
				Message          string  `json:"message"`
				PriceChange      string  `json:"price_change"`
				AvgPriceCurrent  float64 `json:"avg_price_current"`
				AvgPricePrevious float64 `json:"avg_price_previous"`
				TopMovers        []struct {
					Name   string `json:"name"`
					Change string `json:"change"`
				} `json:"top_movers"`
			} `json:"market_t"`
		} `json:"trending_sets"`
	}
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatalf("%s: %v\n%s", code, err, body)
	}
	if len(got.TrendingSets) == 0 {
		t.Fatalf("%s: no trending set", code)
	}
	computed := 0
	for _, it := range got.TrendingSets {
		mt := it.MarketT
		switch {
		case days < 30:
			want := "covers 29 of the 30 days"
			if mt == nil || mt.Status != "unavailable" || !strings.Contains(mt.Message, want) {
				t.Errorf("%s set %s after %d days: market_t %+v, want the status object saying %q", code, it.SetID, days, mt, want)
			}
		case mt == nil: // no TCGplayer card from 1 USD up
		default:
			computed++
			diff := math.Round(mt.AvgPriceCurrent*100) - math.Round(mt.AvgPricePrevious*100)
			if mt.Status != "" || !strings.HasPrefix(mt.PriceChange, "+") || diff != 230 || len(mt.TopMovers) == 0 {
				t.Errorf("%s set %s: market_t %+v, want a rise with means 2.30 apart", code, it.SetID, mt)
			}
			for _, m := range mt.TopMovers {
				if !strings.HasPrefix(m.Change, "+") || m.Change == "+0.0%" {
					t.Errorf("%s set %s: mover %+v", code, it.SetID, m)
				}
			}
		}
	}
	if days == 30 && computed == 0 {
		t.Errorf("%s: no set with a computed market_t:\n%s", code, body)
	}
}

// stuckStore never answers a version check until its context ends, like a
// black-holed database, while blocked is set; otherwise it is holderStore.
type stuckStore struct {
	*holderStore
	blocked atomic.Bool
}

func (s *stuckStore) CatalogVersion(ctx context.Context) (int64, error) {
	if s.blocked.Load() {
		<-ctx.Done()
		return 0, ctx.Err()
	}
	return s.holderStore.CatalogVersion(ctx)
}

// TestHolderRefreshDeadline: a version check that gets no answer ends at
// VersionTimeout, with an error that says so; the served version stays; the
// outage is logged once, its end too, and FailingSince follows it.
func TestHolderRefreshDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := &stuckStore{holderStore: &holderStore{cat: mustFixture(t)}}
		var logs testkit.SyncBuffer
		h := NewHolder(st, game.Default(), slog.New(slog.NewTextHandler(&logs, nil)))
		if err := h.Refresh(t.Context()); err != nil {
			t.Fatal(err)
		}
		served := h.Current()
		st.blocked.Store(true)
		for range 3 {
			start := time.Now()
			err := h.Refresh(t.Context())
			if took := time.Since(start); took != DefaultVersionTimeout || err == nil || !strings.Contains(err.Error(), "catalogue version check: no answer within 5s") {
				t.Fatalf("a black-holed version check: %v after %v", err, took)
			}
		}
		if h.Current() != served || h.FailingSince().IsZero() {
			t.Errorf("during the outage: view swapped %v, failing since %v", h.Current() != served, h.FailingSince())
		}
		st.blocked.Store(false)
		if err := h.Refresh(t.Context()); err != nil || !h.FailingSince().IsZero() {
			t.Fatalf("after the outage: %v, failing since %v", err, h.FailingSince())
		}
		if n := strings.Count(logs.String(), `level=WARN msg="catalogue refresh failing`); n != 1 {
			t.Errorf("%d WARN lines for one outage:\n%s", n, logs.String())
		}
		if !strings.Contains(logs.String(), `level=INFO msg="catalogue refresh recovered" outage=10s failures=3`) {
			t.Errorf("no recovery line:\n%s", logs.String())
		}
	})
}

// TestHolderOnPublish: OnPublish sees each new version once, right after it
// is served, and never a version that failed or did not change.
func TestHolderOnPublish(t *testing.T) {
	ctx := context.Background()
	st := &holderStore{cat: mustFixture(t)}
	h := NewHolder(st, game.Default(), slog.New(slog.DiscardHandler))
	var published []int64
	h.OnPublish = func(v *View) {
		if h.Current() != v {
			t.Errorf("OnPublish of version %d before it is served", v.Version)
		}
		published = append(published, v.Version)
	}
	first := st.cat.Version
	for range 2 {
		if err := h.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
	}
	st.cat.Version++
	if err := h.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	st.cat.Version++
	st.cat.Games[0].Sets = nil // cannot be built
	h.Refresh(ctx)
	if want := []int64{first, first + 1}; !slices.Equal(published, want) {
		t.Errorf("published %v, want %v", published, want)
	}
}
