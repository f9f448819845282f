package sqlite_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/store/sqlite"
	"github.com/cardcat/cardcat/internal/store/storetest"
)

// holdWriteLock takes the write lock of the SQLite file at path from a
// connection of its own, as an ingest's replace does for its whole length,
// until the test ends.
func holdWriteLock(t *testing.T, path string) {
	t.Helper()
	raw, err := sql.Open("sqlite", "file:"+path+"?_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	tx, err := raw.Begin()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		tx.Rollback()
		raw.Close()
	})
}

// TestAccountsWriteDuringAnIngest: while another process holds the catalogue
// file's write lock (an ingest's replace: minutes at a million cards), the
// writes of a sign-up, a login, a key and the queues go through at once,
// where in one file they waited for the busy timeout (10 s) and failed; and
// the catalogue is still read. The writes would fail after that timeout if
// they waited for the lock.
func TestAccountsWriteDuringAnIngest(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "cardcat.db")
	db := mustOpen(t, path)
	now := time.Now().UTC().Truncate(time.Microsecond)
	if _, err := db.ReplaceCatalog(ctx, 0, trimmed(storetest.Generate("dbs", 50, now), 50), "{}", now); err != nil {
		t.Fatal(err)
	}

	// A delivery due, so that the worker's claim writes (with none due it
	// only reads).
	queued := storetest.QueueDelivery(t, db, "alerts@example.com")

	holdWriteLock(t, sqlite.CataloguePath(path))
	start := time.Now()
	a := &account.Account{Email: "during-ingest@example.com", Plan: "free"}
	if err := db.CreateAccount(ctx, a); err != nil {
		t.Fatalf("CreateAccount while the catalogue is written: %v", err)
	}
	if err := db.CreateKey(ctx, &account.Key{AccountID: a.ID, Hash: "h", Prefix: "pk_live_x"}); err != nil {
		t.Fatalf("CreateKey while the catalogue is written: %v", err)
	}
	if err := db.CreateSession(ctx, &account.Session{IDHash: "session", AccountID: a.ID, CreatedAt: now, LastSeenAt: now}); err != nil {
		t.Fatalf("CreateSession while the catalogue is written: %v", err)
	}
	if d, err := db.ClaimDelivery(ctx, time.Now(), time.Minute); err != nil || d.EventID != queued {
		t.Fatalf("ClaimDelivery while the catalogue is written = %+v, %v; want the delivery of %s", d, err, queued)
	}
	t.Logf("four writes in %s with the catalogue file locked", time.Since(start))
	if v, err := db.CatalogVersion(ctx); err != nil || v != 1 {
		t.Errorf("CatalogVersion while the catalogue is written = %d, %v; want 1", v, err)
	}

	// And the other way round: the catalogue is written while the store's
	// own file is locked (a long portal transaction, a backup's copy).
	other := filepath.Join(t.TempDir(), "cardcat.db")
	db2 := mustOpen(t, other)
	holdWriteLock(t, other)
	if _, err := db2.ReplaceCatalog(ctx, 0, trimmed(storetest.Generate("dbs", 50, now), 50), "{}", now); err != nil {
		t.Fatalf("ReplaceCatalog while the store's file is locked: %v", err)
	}
}

// legacyStore makes at path a store of migration 0015, before the catalogue
// file: every table in one file, with version 1 of a catalogue, a price point
// and an account.
func legacyStore(t *testing.T, path string) {
	t.Helper()
	raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(wal)")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	steps := []string{`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL DEFAULT 0)`}
	files, err := filepath.Glob("migrations/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range files[:15] {
		steps = append(steps, mustReadFile(t, f),
			`INSERT INTO schema_migrations (version, name) VALUES (`+strconv.Itoa(i+1)+`, '`+filepath.Base(f)+`')`)
	}
	steps = append(steps,
		`INSERT INTO catalog_versions (version, created_at, report) VALUES (1, 1, '{"legacy":true}')`,
		`INSERT INTO price_points (game, card_id, market, finish, day, v1) VALUES ('dbs', 'dbs_1', 't', 'Normal', '2026-11-01', 123)`,
		`INSERT INTO accounts (id, email, plan, created_at) VALUES (1, 'legacy@example.com', 'pro', 1)`)
	for _, s := range steps {
		if _, err := raw.Exec(s); err != nil {
			t.Fatalf("%.60s: %v", s, err)
		}
	}
}

// tablesOf lists the tables of the SQLite file at path.
func tablesOf(t *testing.T, path string) map[string]bool {
	t.Helper()
	raw, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	rows, err := raw.Query(`SELECT name FROM sqlite_schema WHERE type = 'table'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	names := map[string]bool{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		names[n] = true
	}
	return names
}

// TestOpenMovesTheCatalogue: a store made before the catalogue file opens
// with its catalogue, price history and accounts, the catalogue tables moved
// to the catalogue file and gone from the store's; a second open moves
// nothing.
func TestOpenMovesTheCatalogue(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "cardcat.db")
	legacyStore(t, path)
	for range 2 {
		db, err := sqlite.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		vi, err := db.LatestVersion(ctx)
		if err != nil || vi.Version != 1 || vi.Report != `{"legacy":true}` {
			t.Errorf("LatestVersion = %+v, %v; want version 1 of the legacy store", vi, err)
		}
		points, err := db.PriceHistory(ctx, "dbs", "dbs_1")
		if err != nil || len(points) != 1 {
			t.Errorf("PriceHistory = %+v, %v; want the legacy store's point", points, err)
		}
		if a, err := db.AccountByEmail(ctx, "legacy@example.com"); err != nil || a.ID != 1 {
			t.Errorf("AccountByEmail = %+v, %v", a, err)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		main, cat := tablesOf(t, path), tablesOf(t, sqlite.CataloguePath(path))
		for _, name := range []string{"catalog_versions", "cards", "price_points", "card_changes", "card_removals"} {
			if main[name] || !cat[name] {
				t.Errorf("%s: in the store's file %v, in the catalogue file %v; want only the latter", name, main[name], cat[name])
			}
		}
		if !main["accounts"] || cat["accounts"] {
			t.Errorf("accounts: in the store's file %v, in the catalogue file %v; want only the former", main["accounts"], cat["accounts"])
		}
	}
}

// TestRestoredBackupWins: a backup (one file, the catalogue in it) restored
// over the store's file, the newer catalogue file left beside it, opens with
// the backup's catalogue: the store's file wins, as after a crash between the
// move's copy and its drop.
func TestRestoredBackupWins(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "cardcat.db")
	now := time.Now().UTC().Truncate(time.Microsecond)
	full := storetest.Generate("dbs", 40, now)

	db, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ReplaceCatalog(ctx, 0, trimmed(full, 10), "{}", now); err != nil {
		t.Fatal(err)
	}
	backup := filepath.Join(dir, "backup.db")
	if _, err := sqlite.Backup(ctx, path, backup, false); err != nil {
		t.Fatal(err)
	}
	if !tablesOf(t, backup)["cards"] {
		t.Fatal("the backup holds no catalogue")
	}
	if _, err := db.ReplaceCatalog(ctx, 1, trimmed(full, 30), "{}", now); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	// Restore as docs/operations.md says, but leave the catalogue file.
	for _, suffix := range []string{"-wal", "-shm"} {
		os.Remove(path + suffix)
	}
	b, err := os.ReadFile(backup)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	restored := mustOpen(t, path)
	cat, err := restored.LoadCatalog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if cat.Version != 1 || cardCount(cat) != 10 {
		t.Errorf("restored: version %d with %d cards; want the backup's version 1 with 10", cat.Version, cardCount(cat))
	}
}

// TestOpenWithoutTheCatalogueFile: a store whose catalogue file was deleted
// is refused with a message that says so, not served empty.
func TestOpenWithoutTheCatalogueFile(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "cardcat.db")
	db, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	for _, suffix := range []string{"", "-wal", "-shm"} {
		os.Remove(sqlite.CataloguePath(path) + suffix)
	}
	_, err = sqlite.Open(ctx, path)
	if err == nil || !strings.Contains(err.Error(), "catalogue file holds 0 of the 11 catalogue tables") {
		t.Fatalf("Open without the catalogue file: %v", err)
	}
}

// TestBackupOfADamagedCatalogueFile: a catalogue file that is not a
// database fails the backup, which leaves no file behind.
func TestBackupOfADamagedCatalogueFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "cardcat.db")
	db, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	for _, suffix := range []string{"-wal", "-shm"} {
		os.Remove(sqlite.CataloguePath(path) + suffix)
	}
	if err := os.WriteFile(sqlite.CataloguePath(path), []byte(strings.Repeat("not a database ", 300)), 0o644); err != nil {
		t.Fatal(err)
	}
	outDir := t.TempDir()
	_, err = sqlite.Backup(ctx, path, filepath.Join(outDir, "backup.db"), false)
	if err == nil || !strings.Contains(err.Error(), "cardcat.catalogue.db") {
		t.Fatalf("Backup with a damaged catalogue file: %v; want an error naming it", err)
	}
	if entries, _ := os.ReadDir(outDir); len(entries) != 0 {
		t.Errorf("the failed backup left files: %v", entries)
	}
}
