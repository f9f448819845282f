package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/cardcat/cardcat/internal/store"
	"github.com/cardcat/cardcat/internal/store/sqlite"
	"github.com/cardcat/cardcat/internal/store/storetest"
)

func TestStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		return mustOpen(t, filepath.Join(t.TempDir(), "data", "cardcat.db"))
	})
}

// testDB gives the suite what it needs beyond store.Store.
type testDB struct {
	*sqlite.DB
	path string
}

func (db testDB) Reopen(ctx context.Context) (store.Store, error) { return sqlite.Open(ctx, db.path) }

func (db testDB) Exec(ctx context.Context, query string) error {
	raw, err := sql.Open("sqlite", db.path)
	if err != nil {
		return err
	}
	defer raw.Close()
	raw.SetMaxOpenConns(1) // the connection that attached the catalogue file
	if _, err := raw.ExecContext(ctx, `ATTACH DATABASE ? AS catalogue`, sqlite.CataloguePath(db.path)); err != nil {
		return err
	}
	_, err = raw.ExecContext(ctx, query)
	return err
}

func mustOpen(tb testing.TB, path string) testDB {
	tb.Helper()
	db, err := sqlite.Open(context.Background(), path)
	if err != nil {
		tb.Fatalf("Open(%s): %v", path, err)
	}
	tb.Cleanup(func() {
		if err := db.Close(); err != nil {
			tb.Errorf("Close: %v", err)
		}
	})
	return testDB{DB: db, path: path}
}

func TestOpenSetsPragmas(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cardcat.db")
	mustOpen(t, path)
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var mode string
	if err := raw.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil {
		t.Fatal(err)
	}
	if mode != "wal" {
		t.Errorf("journal_mode = %q, want wal", mode)
	}
}

// BenchmarkReplaceLoad replaces and loads $CARDCAT_BENCH_CARDS cards (20,000
// by default): CARDCAT_BENCH_CARDS=1000000 go test -run - -bench ReplaceLoad -benchtime 1x
func BenchmarkReplaceLoad(b *testing.B) {
	db := mustOpen(b, filepath.Join(b.TempDir(), "cardcat.db"))
	storetest.BenchReplaceLoad(b, db, storetest.BenchCards(b))
}

// BenchmarkLoadCatalog loads $CARDCAT_BENCH_CARDS cards (20,000 by default):
// CARDCAT_BENCH_CARDS=1000000 go test -run - -bench LoadCatalog -benchtime 1x
func BenchmarkLoadCatalog(b *testing.B) {
	db := mustOpen(b, filepath.Join(b.TempDir(), "cardcat.db"))
	storetest.BenchLoadCatalog(b, db, storetest.BenchCards(b))
}

// BenchmarkTCGMarketAverages writes the 30th daily version of $CARDCAT_BENCH_CARDS
// cards (20,000 by default), reads its TCGplayer averages stored and computed,
// and prunes the first day (storetest.BenchTCGMarketAverages):
// CARDCAT_BENCH_CARDS=100000 go test -run - -bench TCGMarketAverages -benchtime 1x
func BenchmarkTCGMarketAverages(b *testing.B) {
	db := mustOpen(b, filepath.Join(b.TempDir(), "cardcat.db"))
	storetest.BenchTCGMarketAverages(b, db, storetest.BenchCards(b))
}
