// Package sqlite is the embedded store: one SQLite file, through the pure-Go
// driver (modernc.org/sqlite, no cgo).
//
// SQLite allows one writer at a time. The store keeps a pool of exactly one
// writer connection, so that writers queue in Go rather than in busy retries,
// and a separate pool of read-only connections, which WAL lets read a
// consistent snapshot while the writer writes.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"

	"github.com/cardcat/cardcat/internal/store"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// DB is the SQLite implementation of store.Store.
type DB struct {
	write    *sql.DB // the store's file: accounts, keys, usage, alerts, status
	catWrite *sql.DB // the catalogue file (see catalogue_file.go)
	read     *sql.DB // the store's file with the catalogue file attached
}

var _ store.Store = (*DB)(nil)

// Pragmas of every connection. busy_timeout covers another process (an ingest
// next to a server) holding the write lock; foreign_keys is off by default in
// SQLite.
var commonPragmas = []string{
	"busy_timeout(10000)",
	"foreign_keys(1)",
}

// Pragmas of the writer. WAL lets readers read while it writes, and with WAL,
// synchronous=NORMAL is durable across application crashes (a power loss may
// lose the last commits, not corrupt the file). journal_size_limit truncates
// the WAL after a checkpoint, which a million-card replace would otherwise
// leave at its full size; the larger cache speeds up index maintenance during
// such a replace.
var writerPragmas = []string{
	"journal_mode(WAL)",
	"synchronous(NORMAL)",
	"journal_size_limit(67108864)",
	"cache_size(-65536)",
}

// Open opens (creating them and their directory when missing) the database
// file at path and its catalogue file (CataloguePath), and brings their schema
// up to date, moving the catalogue tables to the catalogue file (see
// moveCatalogue). It refuses a database whose schema is newer than this
// program's (sqlmigrate.ErrSchemaTooNew).
func Open(ctx context.Context, path string) (*DB, error) {
	if path == "" {
		return nil, errors.New("sqlite: open: empty path")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("sqlite: open: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return nil, fmt.Errorf("sqlite: open: %w", err)
	}

	// The catalogue file first: its writer makes it, in WAL mode, before
	// any connection attaches it.
	catWrite, err := openWriter(ctx, CataloguePath(abs))
	if err != nil {
		return nil, err
	}
	write, err := openWriter(ctx, abs)
	if err != nil {
		catWrite.Close()
		return nil, err
	}
	db := &DB{write: write, catWrite: catWrite}
	if err := migrate(ctx, write); err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	if err := moveCatalogue(ctx, abs); err != nil {
		db.Close()
		return nil, err
	}

	db.read, err = openAttached(ctx, abs, slices.Concat(commonPragmas, []string{"query_only(1)"}), "")
	if err != nil {
		db.Close()
		return nil, err
	}
	n := max(4, runtime.GOMAXPROCS(0))
	db.read.SetMaxOpenConns(n)
	db.read.SetMaxIdleConns(n)
	if err := checkCatalogue(ctx, db.read, CataloguePath(abs)); err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	return db, nil
}

// openWriter opens the one-connection writer pool of the file at path.
func openWriter(ctx context.Context, path string) (*sql.DB, error) {
	w, err := openPool(ctx, path, slices.Concat(commonPragmas, writerPragmas), "immediate")
	if err != nil {
		return nil, err
	}
	// One connection, kept open: SQLite has one writer anyway.
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	w.SetConnMaxIdleTime(0)
	return w, nil
}

// checkCatalogue checks that the catalogue file holds every catalogue table:
// it is missing them when it was deleted or replaced by another file.
func checkCatalogue(ctx context.Context, read *sql.DB, path string) error {
	n, err := countCatalogueTables(ctx, read, catalogueSchema)
	if err != nil {
		return fmt.Errorf("read the catalogue file's schema: %w", err)
	}
	if n != len(catalogueTables) {
		return fmt.Errorf("the catalogue file holds %d of the %d catalogue tables: was %s deleted or replaced? Restore it, or the store's file with it from a backup", n, len(catalogueTables), path)
	}
	return nil
}

// openPool opens a connection pool on the file with the given pragmas, and
// checks that a connection opens. txlock "immediate" makes every transaction
// take the write lock at BEGIN, so that a read-then-write transaction (the
// version check of a replace) cannot fail halfway with SQLITE_BUSY.
func openPool(ctx context.Context, path string, pragmas []string, txlock string) (*sql.DB, error) {
	q := url.Values{"_pragma": pragmas}
	if txlock != "" {
		q.Set("_txlock", txlock)
	}
	db, err := sql.Open("sqlite", fileDSN(path, q))
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	return db, nil
}

// fileDSN is the driver's name of the database at the absolute path with
// the parameters q: a file: URI, so that a path with '?' or '%' is taken
// literally.
func fileDSN(path string, q url.Values) string {
	return "file:" + (&url.URL{Path: filepath.ToSlash(path)}).EscapedPath() + "?" + q.Encode()
}

// Ping checks that the database answers.
func (db *DB) Ping(ctx context.Context) error {
	if err := db.read.PingContext(ctx); err != nil {
		return fmt.Errorf("sqlite: ping: %w", err)
	}
	return nil
}

// Close closes both pools.
func (db *DB) Close() error {
	var err error
	for _, p := range []*sql.DB{db.read, db.write, db.catWrite} {
		if p != nil {
			err = errors.Join(err, p.Close())
		}
	}
	if err != nil {
		return fmt.Errorf("sqlite: close: %w", err)
	}
	return nil
}
