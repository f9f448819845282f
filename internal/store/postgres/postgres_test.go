package postgres_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"sync"
	"testing"

	"github.com/cardcat/cardcat/internal/store"
	"github.com/cardcat/cardcat/internal/store/postgres"
	"github.com/cardcat/cardcat/internal/store/storetest"
	"github.com/jackc/pgx/v5"
)

// urlEnv names the database the tests may use, e.g.
// postgres://postgres@127.0.0.1:5432/test?sslmode=disable. Each test works in
// a schema of its own, dropped at its end.
const urlEnv = "CARDCAT_TEST_POSTGRES_URL"

func TestStore(t *testing.T) {
	baseURL(t)
	storetest.Run(t, func(t *testing.T) store.Store { return mustOpen(t, newSchema(t)) })
}

// baseURL returns $CARDCAT_TEST_POSTGRES_URL, and skips the test when it is
// not set.
func baseURL(tb testing.TB) string {
	tb.Helper()
	u := os.Getenv(urlEnv)
	if u == "" {
		tb.Skipf("PostgreSQL tests need %s, e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable", urlEnv)
	}
	return u
}

// testDB gives the suite what it needs beyond store.Store.
type testDB struct {
	*postgres.DB
	url  string
	exec *execConn
}

// execConn is testDB's connection for Exec, opened on first use (a
// connection costs about 100 ms here, and a test may Exec dozens of times).
type execConn struct {
	mu   sync.Mutex
	conn *pgx.Conn
}

func (db testDB) Reopen(ctx context.Context) (store.Store, error) { return postgres.Open(ctx, db.url) }

func (db testDB) Exec(ctx context.Context, query string) error {
	db.exec.mu.Lock()
	defer db.exec.mu.Unlock()
	if db.exec.conn == nil {
		conn, err := pgx.Connect(ctx, db.url)
		if err != nil {
			return err
		}
		db.exec.conn = conn
	}
	_, err := db.exec.conn.Exec(ctx, query)
	return err
}

func mustOpen(tb testing.TB, url string) testDB {
	tb.Helper()
	db, err := postgres.Open(context.Background(), url)
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	exec := &execConn{}
	tb.Cleanup(func() {
		if exec.conn != nil {
			exec.conn.Close(context.Background())
		}
		if err := db.Close(); err != nil {
			tb.Errorf("Close: %v", err)
		}
	})
	return testDB{DB: db, url: url, exec: exec}
}

// newSchema creates a schema with a random name, dropped when tb ends, and
// returns the test database's URL with its search_path set to it.
func newSchema(tb testing.TB) string {
	tb.Helper()
	base := baseURL(tb)
	u, err := url.Parse(base)
	if err != nil {
		tb.Fatalf("%s: %v", urlEnv, err)
	}
	schema := "cardcat_test_" + hex.EncodeToString(randomBytes(tb, 8))
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		tb.Fatalf("connect to %s: %v", urlEnv, err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		tb.Fatalf("create schema: %v", err)
	}
	// Registered before mustOpen's Close, so it runs after it.
	tb.Cleanup(func() {
		conn, err := pgx.Connect(ctx, base)
		if err != nil {
			tb.Errorf("drop schema %s: %v", schema, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			tb.Errorf("drop schema %s: %v", schema, err)
		}
	})
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

func randomBytes(tb testing.TB, n int) []byte {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		tb.Fatal(err)
	}
	return b
}

func TestOpenWithoutSchema(t *testing.T) {
	u, err := url.Parse(newSchema(t))
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", "cardcat_test_does_not_exist")
	u.RawQuery = q.Encode()
	db, err := postgres.Open(context.Background(), u.String())
	if err == nil {
		db.Close()
		t.Fatal("Open with a search_path naming no schema succeeded")
	}
}

// BenchmarkReplaceLoad replaces and loads $CARDCAT_BENCH_CARDS cards (20,000
// by default): CARDCAT_BENCH_CARDS=1000000 go test -run - -bench ReplaceLoad -benchtime 1x
func BenchmarkReplaceLoad(b *testing.B) {
	db := mustOpen(b, newSchema(b))
	storetest.BenchReplaceLoad(b, db, storetest.BenchCards(b))
}

// BenchmarkLoadCatalog loads $CARDCAT_BENCH_CARDS cards (20,000 by default):
// CARDCAT_BENCH_CARDS=1000000 go test -run - -bench LoadCatalog -benchtime 1x
func BenchmarkLoadCatalog(b *testing.B) {
	db := mustOpen(b, newSchema(b))
	storetest.BenchLoadCatalog(b, db, storetest.BenchCards(b))
}

// BenchmarkTCGMarketAverages writes the 30th daily version of $CARDCAT_BENCH_CARDS
// cards (20,000 by default), reads its TCGplayer averages stored and computed,
// and prunes the first day (storetest.BenchTCGMarketAverages):
// CARDCAT_BENCH_CARDS=100000 go test -run - -bench TCGMarketAverages -benchtime 1x
func BenchmarkTCGMarketAverages(b *testing.B) {
	db := mustOpen(b, newSchema(b))
	storetest.BenchTCGMarketAverages(b, db, storetest.BenchCards(b))
}
