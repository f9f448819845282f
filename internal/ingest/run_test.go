package ingest_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/jackc/pgx/v5"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/ingest"
	"github.com/cardcat/cardcat/internal/ingest/cardmarket"
	"github.com/cardcat/cardcat/internal/store"
	"github.com/cardcat/cardcat/internal/store/postgres"
	"github.com/cardcat/cardcat/internal/store/sqlite"
)

func openSQLite(t *testing.T) store.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "cardcat.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func mustRun(t *testing.T, st store.Store, dir string, at time.Time) *ingest.Report {
	t.Helper()
	rep, err := ingest.Run(context.Background(), st, ingest.DirSource{Dir: dir}, game.Default(), at, ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func mustLoad(t *testing.T, st store.Store) *catalog.Catalog {
	t.Helper()
	c, err := st.LoadCatalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// ignoreVersion compares catalogues by content.
var ignoreVersion = cmpopts.IgnoreFields(catalog.Catalog{}, "Version", "CreatedAt")

func TestRunTwiceChangesNothing(t *testing.T) {
	st := openSQLite(t)
	t1 := now
	t2 := now.Add(24 * time.Hour)
	first := mustRun(t, st, sampleDir, t1)
	before := mustLoad(t, st)
	second := mustRun(t, st, sampleDir, t2)
	after := mustLoad(t, st)

	if second.Version != first.Version+1 {
		t.Errorf("versions %d then %d", first.Version, second.Version)
	}
	for _, g := range second.Games {
		if g.PricesChanged != 0 || g.PricesUnchanged == 0 {
			t.Errorf("%s: second ingest of the same files: %d prices changed, %d unchanged", g.Game, g.PricesChanged, g.PricesUnchanged)
		}
	}
	if diff := cmp.Diff(before, after, ignoreVersion); diff != "" {
		t.Errorf("re-ingest changed the catalogue (-first +second):\n%s", diff)
	}
}

func TestRunKeepsTimesOfUnchangedPrices(t *testing.T) {
	ctx := context.Background()
	st := openSQLite(t)
	m := linkMirror(t)
	t1, t2 := now, now.Add(24*time.Hour)
	mustRun(t, st, m.dir, t1)

	// Next day: Goblin Guide's Cardmarket trend moves, nothing else does.
	m.cardmarket(1,
		readCM(t, m.dir, "products_singles.json"), readCM(t, m.dir, "products_nonsingles.json"),
		[]cardmarket.PriceGuide{
			{IDProduct: 9001, Avg: f(1.5), Low: f(1), Trend: f(1.75), Avg1: f(1.4), Avg7: f(1.5), Avg30: f(1.2)},
			{IDProduct: 9002, AvgFoil: f(3), TrendFoil: f(2.9)},
		},
		[]cardmarket.Expansion{{IDExpansion: 30, EnName: "Cardmarket Promos", Abbreviation: "CMP", ReleaseDate: "2025-06-01T00:00:00+0200", IDGame: 1}},
	)
	rep := mustRun(t, st, m.dir, t2)
	if g := rep.Games[1]; g.PricesChanged != 1 || g.PricesUnchanged != 1 {
		t.Errorf("mtg prices changed %d, unchanged %d; want 1 and 1", g.PricesChanged, g.PricesUnchanged)
	}
	var goblin, saiyan catalog.Card
	for _, c := range mustLoad(t, st).Game("mtg").Cards {
		switch c.TCGProductID {
		case 1001:
			goblin = c
		case 1002:
			saiyan = c
		}
	}
	if got := goblin.CMPrices[0]; !got.UpdatedAt.Equal(t2) || got.Trend != catalog.Cents(175) {
		t.Errorf("changed price: %+v, want updated_at %v", got, t2)
	}
	if got := saiyan.CMPrices[0].UpdatedAt; !got.Equal(t1) {
		t.Errorf("unchanged price updated_at = %v, want %v", got, t1)
	}
	// One price point per card, finish and day.
	hist, err := st.PriceHistory(ctx, "mtg", goblin.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(hist) != 2 || hist[0].Day != "2026-11-22" || hist[1].Day != "2026-11-23" {
		t.Errorf("history = %+v", hist)
	}
	// A second ingest on the same day replaces that day's point.
	mustRun(t, st, m.dir, t2.Add(time.Hour))
	if hist, _ := st.PriceHistory(ctx, "mtg", goblin.ID); len(hist) != 2 {
		t.Errorf("same-day re-ingest: %d points, want 2", len(hist))
	}
}

func readCM(t *testing.T, dir, name string) []cardmarket.Product {
	t.Helper()
	fh, err := os.Open(filepath.Join(dir, "cardmarket", "1", name))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	l, err := cardmarket.DecodeProducts(fh)
	if err != nil {
		t.Fatal(err)
	}
	return l.Products
}

func TestMalformedFileLeavesCatalogue(t *testing.T) {
	tests := []struct {
		name, file, content, wantInMsg string
	}{
		{"bad product record", "tcgplayer/1/100/products.json",
			`{"success": true, "errors": [], "results": [{"productId": 1, "name": "ok"}, {"productId": "x"}]}`, "record 1"},
		{"product without name", "tcgplayer/1/100/products.json",
			`{"success": true, "errors": [], "results": [{"productId": 1, "name": "ok"}, {"productId": 7, "name": ""}]}`, "productId 7"},
		{"truncated prices", "tcgplayer/1/100/prices.json", `{"success": true, "results": [{"productId": 1`, "prices.json"},
		{"negative price", "tcgplayer/1/100/prices.json",
			`{"success": true, "errors": [], "results": [{"productId": 1001, "subTypeName": "Normal", "lowPrice": -1}]}`, "negative price"},
		{"upstream failure", "tcgplayer/1/groups.json", `{"success": false, "errors": ["boom"], "results": []}`, "boom"},
		{"bad price guide", "cardmarket/1/price_guide.json", `{"priceGuides": [{"idProduct": 9001, "avg": "cheap"}]}`, "record 0"},
		{"bad expansion", "cardmarket/1/expansions.json", `{"expansion": [{"enName": "No id"}]}`, "idExpansion"},
		{"bad links.csv", "links/links.csv", "game,tcgplayer_product_id,cardmarket_id_product\nmtg,abc,1\n", "line 2"},
		{"bad links.csv header", "links/links.csv", "tcg,cm\n1,2\n", "header"},
		{"bad mtgjson", "links/mtg-sealed-content/ALP.json", `{"code": "alp", "products": {"X": {"identifiers": {"tcgplayerProductId": "1", "mcmId": "x"}}}}`, "mcmId"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := openSQLite(t)
			m := linkMirror(t)
			mustRun(t, st, m.dir, now)
			before := mustLoad(t, st)

			m.write(tt.file, []byte(tt.content))
			_, err := ingest.Run(context.Background(), st, ingest.DirSource{Dir: m.dir}, game.Default(), now.Add(time.Hour), ingest.Options{})
			if err == nil {
				t.Fatal("ingest of a malformed file succeeded")
			}
			if !strings.Contains(err.Error(), filepath.FromSlash(tt.file)) || !strings.Contains(err.Error(), tt.wantInMsg) {
				t.Errorf("error %q does not name the file %s and %q", err, tt.file, tt.wantInMsg)
			}
			after := mustLoad(t, st)
			if diff := cmp.Diff(before, after); diff != "" {
				t.Errorf("failed ingest changed the catalogue:\n%s", diff)
			}
		})
	}
}

func TestMissingOptionalFiles(t *testing.T) {
	m := linkMirror(t)
	for _, f := range []string{"cardmarket/1/expansions.json", "links/links.csv", "tcgplayer/1/100/prices.json"} {
		if err := os.Remove(filepath.Join(m.dir, f)); err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
	}
	cat, rep, err := ingest.BuildFromMirror(context.Background(), m.dir, game.Default(), now)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Games[1].LinkedOperator != 0 {
		t.Error("operator link without links.csv")
	}
	for _, s := range cat.Game("mtg").Sets {
		if s.ID == "-30" && s.Name != "Cardmarket expansion 30" {
			t.Errorf("unnamed Cardmarket-only set named %q", s.Name)
		}
	}
}

// TestSQLiteAndPostgresAgree ingests the sample into both stores and
// compares what they load.
func TestSQLiteAndPostgresAgree(t *testing.T) {
	url := os.Getenv("CARDCAT_TEST_POSTGRES_URL")
	if url == "" {
		t.Skip("CARDCAT_TEST_POSTGRES_URL is not set; skipping the PostgreSQL comparison")
	}
	schema := "ingest_test_" + strings.ReplaceAll(time.Now().Format("150405.000000"), ".", "_")
	pg := openPostgresSchema(t, url, schema)
	lite := openSQLite(t)
	for _, st := range []store.Store{lite, pg} {
		mustRun(t, st, sampleDir, now)
		mustRun(t, st, sampleDir, now.Add(24*time.Hour))
	}
	a, b := mustLoad(t, lite), mustLoad(t, pg)
	if diff := cmp.Diff(a, b, ignoreVersion); diff != "" {
		t.Errorf("SQLite and PostgreSQL differ (-sqlite +postgres):\n%s", diff)
	}
	// The snapshots built from both answer byte for byte the same.
	snaps := make([]*catalog.Snapshot, 2)
	for i, st := range []store.Store{lite, pg} {
		var err error
		if snaps[i], err = catalog.NewSnapshot(mustLoad(t, st), game.Default()); err != nil {
			t.Fatal(err)
		}
	}
	for _, g := range snaps[0].Games() {
		h := snaps[1].Game(g.Game().Code)
		if string(g.SetListJSON()) != string(h.SetListJSON()) {
			t.Errorf("%s: set lists differ", g.Game().Code)
		}
		if g.Len() != h.Len() {
			t.Fatalf("%s: %d cards vs %d", g.Game().Code, g.Len(), h.Len())
		}
		for r := 0; r < g.Len(); r++ {
			if a, b := g.CardJSON(catalog.CardRef(r)), h.CardJSON(catalog.CardRef(r)); a != b {
				t.Fatalf("%s card %d differs:\nsqlite   %s\npostgres %s", g.Game().Code, r, a, b)
			}
		}
	}
}

// openPostgresSchema opens the store in a fresh schema, dropped at cleanup.
func openPostgresSchema(t *testing.T, url, schema string) store.Store {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), url)
		if err == nil {
			c.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
			c.Close(context.Background())
		}
	})
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	st, err := postgres.Open(ctx, url+sep+"search_path="+schema)
	if err != nil {
		t.Fatalf("open postgres with schema %s: %v", schema, err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}
