package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/store"
	"github.com/cardcat/cardcat/internal/store/sqlite"
)

// The two catalogue versions of the change feed tests: the feed starts at
// the first; the second moves prices and drops a card.
var (
	changesFirst  = time.Date(2026, 1, 31, 6, 0, 0, 123456000, time.UTC)
	changesSecond = time.Date(2026, 2, 1, 6, 0, 0, 654321000, time.UTC)
)

func sinceQuery(t time.Time) string { return url.QueryEscape(t.Format(time.RFC3339Nano)) }

// changeStore is a SQLite store with the change feed of c's games over two
// versions: c at changesFirst, then at changesSecond c with the TCGplayer
// market price of its first two priced cards moved and its last card gone.
// It returns the store and, by game, the ids changed and the id removed.
func changeStore(t *testing.T, c *catalog.Catalog) (st *sqlite.DB, changed map[string][]string, removed map[string]string) {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "cardcat.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	changed, removed = map[string][]string{}, map[string]string{}
	for _, gc := range c.Games {
		g, ok := game.Default().Get(gc.Game)
		if !ok {
			continue
		}
		record := func(v int64, at time.Time, gc *catalog.GameCatalog) {
			hashes, err := catalog.CardBodyHashes(g, gc)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := st.RecordCardChanges(ctx, v, at, gc.Game, hashes, time.Time{}); err != nil {
				t.Fatal(err)
			}
		}
		record(1, changesFirst, &gc)
		next := gc
		next.Cards = slices.Clone(gc.Cards)
		for i := range next.Cards[:len(next.Cards)-1] {
			card := &next.Cards[i]
			if len(card.TCGPrices) == 0 || len(changed[gc.Game]) == 2 {
				continue
			}
			card.TCGPrices = slices.Clone(card.TCGPrices)
			card.TCGPrices[0].Market = catalog.Cents(card.TCGPrices[0].Market.Cents + 1)
			card.TCGPrices[0].UpdatedAt = changesSecond
			changed[gc.Game] = append(changed[gc.Game], card.ID)
		}
		removed[gc.Game] = next.Cards[len(next.Cards)-1].ID
		next.Cards = next.Cards[:len(next.Cards)-1]
		record(2, changesSecond, &next)
	}
	return st, changed, removed
}

func changesHandler(t *testing.T) (http.Handler, map[string][]string, map[string]string) {
	t.Helper()
	c := mustFixture(t)
	st, changed, removed := changeStore(t, c)
	deps := testDeps(mustView(t, c))
	deps.Changes = st
	return mustServer(t, Config{}, deps), changed, removed
}

func TestChangesGolden(t *testing.T) {
	h, _, _ := changesHandler(t)
	unavailable := mustServer(t, Config{}, testDeps(mustView(t, mustFixture(t))))
	since := sinceQuery(changesFirst)
	runGolden(t, h, []goldenCase{
		{"changes_dbs", "/dbs/changes?since=" + since, 200, nil},
		{"changes_dbs_page_2", "/dbs/changes?limit=2&page=2&since=" + since, 200, nil},
		{"changes_dbs_since_until", "/dbs/changes?since=" + sinceQuery(changesSecond), 200, nil},
		{"changes_dbs_since_missing", "/dbs/changes", 400, nil},
		{"changes_dbs_since_invalid", "/dbs/changes?since=yesterday", 400, nil},
		{"changes_dbs_since_too_old", "/dbs/changes?since=2025-01-01T00:00:00Z", 400, nil},
		{"changes_dbs_invalid_limit", "/dbs/changes?limit=0&since=" + since, 400, nil},
	})
	runGolden(t, unavailable, []goldenCase{{"changes_dbs_unavailable", "/dbs/changes?since=" + since, 503, nil}})
}

type changesBody struct {
	Since, Until string
	Changed      []struct {
		ID        string
		ChangedAt string `json:"changed_at"`
		Removed   bool
	}
	Pagination struct {
		Page, Limit, Total int
		TotalPages         int `json:"total_pages"`
	}
}

func getChanges(t *testing.T, h http.Handler, target string) changesBody {
	t.Helper()
	w := get(h, target)
	if w.Code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", target, w.Code, w.Body)
	}
	var b changesBody
	if err := json.Unmarshal(w.Body.Bytes(), &b); err != nil {
		t.Fatal(err)
	}
	return b
}

// TestChanges: exactly the changed and removed cards, at the second
// version's time, in order; until sent back as since gives nothing more;
// the forms of since; the pages.
func TestChanges(t *testing.T) {
	h, changed, removed := changesHandler(t)
	at := changesSecond.Format(time.RFC3339Nano)
	for _, code := range []string{"dbs", "mtg"} {
		t.Run(code, func(t *testing.T) {
			b := getChanges(t, h, prefix(code)+"/changes?since="+sinceQuery(changesFirst))
			type entry struct {
				ID      string
				Removed bool
			}
			var want, got []entry
			for _, id := range changed[code] {
				want = append(want, entry{id, false})
			}
			want = append(want, entry{removed[code], true})
			slices.SortFunc(want, func(a, b entry) int { return strings.Compare(a.ID, b.ID) })
			for _, c := range b.Changed {
				got = append(got, entry{c.ID, c.Removed})
				if c.ChangedAt != at {
					t.Errorf("%s changed_at %s, want %s", c.ID, c.ChangedAt, at)
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("changed (-want +got):\n%s", diff)
			}
			if b.Until != at || b.Pagination.Total != len(want) {
				t.Errorf("until %s, total %d; want %s, %d", b.Until, b.Pagination.Total, at, len(want))
			}
			// A client that keeps until and sends it back sees nothing more.
			if next := getChanges(t, h, prefix(code)+"/changes?since="+url.QueryEscape(b.Until)); len(next.Changed) != 0 || next.Until != at {
				t.Errorf("since the last until: %+v", next)
			}
		})
	}

	tests := []struct {
		name, since string
		n           int // changes answered
	}{
		{"the first version's time", "2026-01-31T06:00:00.123456Z", 3},
		{"a microsecond before the second", "2026-02-01T06:00:00.65432Z", 3},
		{"the second version's time", "2026-02-01T06:00:00.654321Z", 0},
		{"an offset, encoded", "2026-02-01T07:00:00.654320%2B01:00", 3},
		{"an offset, its + sent as a space", "2026-02-01T07:00:00.654321+01:00", 0},
		{"in the future", "2030-01-01T00:00:00Z", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if b := getChanges(t, h, "/dbs/changes?since="+tt.since); len(b.Changed) != tt.n {
				t.Errorf("since %s: %d changes, want %d", tt.since, len(b.Changed), tt.n)
			}
		})
	}

	all := getChanges(t, h, "/dbs/changes?since="+sinceQuery(changesFirst)).Changed
	var paged []string
	for page := 1; page <= 4; page++ {
		b := getChanges(t, h, "/dbs/changes?limit=1&page="+itoa(page)+"&since="+sinceQuery(changesFirst))
		if b.Pagination.Total != 3 || b.Pagination.TotalPages != 3 {
			t.Errorf("page %d: %+v", page, b.Pagination)
		}
		for _, c := range b.Changed {
			paged = append(paged, c.ID)
		}
	}
	var ids []string
	for _, c := range all {
		ids = append(ids, c.ID)
	}
	if diff := cmp.Diff(ids, paged); diff != "" {
		t.Errorf("pages of 1 (-one page +pages):\n%s", diff)
	}
	if b := getChanges(t, h, "/dbs/changes?limit=5000&page=9223372036854775807&since="+sinceQuery(changesFirst)); len(b.Changed) != 0 || b.Pagination.Limit != changesPageMax {
		t.Errorf("the last page of the largest limit: %+v", b)
	}
}

// failingFeed is a change feed whose store fails with err.
type failingFeed struct{ err error }

func (f failingFeed) CardChanges(context.Context, string, time.Time, int, int) (store.ChangePage, error) {
	return store.ChangePage{}, f.err
}

// TestChangesStoreFailures: a game never recorded is a 400 (no history:
// every since is too old); a failing store is a 503 with Retry-After.
func TestChangesStoreFailures(t *testing.T) {
	tests := []struct {
		err    error
		status int
	}{
		{store.ErrNotFound, http.StatusBadRequest},
		{errors.New("disk on fire"), http.StatusServiceUnavailable},
		{context.DeadlineExceeded, http.StatusServiceUnavailable},
	}
	for _, tt := range tests {
		deps := testDeps(mustView(t, mustFixture(t)))
		deps.Changes = failingFeed{tt.err}
		w := get(mustServer(t, Config{}, deps), "/dbs/changes?since=2026-01-01T00:00:00Z")
		if w.Code != tt.status {
			t.Errorf("%v: %d %s, want %d", tt.err, w.Code, w.Body, tt.status)
		}
		if tt.status == http.StatusServiceUnavailable && w.Header().Get("Retry-After") == "" {
			t.Errorf("%v: no Retry-After", tt.err)
		}
	}
}
