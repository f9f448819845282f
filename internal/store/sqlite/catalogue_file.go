package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"modernc.org/sqlite"
)

// The catalogue lives in a file of its own beside the store's (migration
// 0016): SQLite has one writer per file, and an ingest writes a version in one
// transaction (about 5 s at 100,000 cards, minutes at a million), during which
// a sign-up, a login or a queue's claim in the same file would wait and then
// fail. With two files those writes never wait for an ingest. The read pool
// attaches the catalogue file, so that queries name its tables unqualified;
// each writer pool has its own file only, because BEGIN IMMEDIATE locks every
// attached file.

// catalogueSchema is the catalogue file's schema name on the connections that
// attach it.
const catalogueSchema = "catalogue"

// catalogueTables are the tables kept in the catalogue file: what an ingest
// writes.
var catalogueTables = []string{
	"catalog_versions", "sets", "cards", "tcg_prices", "cm_prices", "price_points",
	"tcg_history", "tcg_history_averages", "card_changes", "card_change_feeds", "card_removals",
}

// CataloguePath is the catalogue file of the store at path: cardcat.db's is
// cardcat.catalogue.db, beside it.
func CataloguePath(path string) string {
	ext := filepath.Ext(path)
	return strings.TrimSuffix(path, ext) + ".catalogue" + ext
}

// attachingConnector opens connections on dsn with the catalogue file
// attached.
type attachingConnector struct {
	dsn       string
	catalogue string // the catalogue file's URI
}

func (c attachingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Driver().Open(c.dsn)
	if err != nil {
		return nil, err
	}
	_, err = conn.(driver.ExecerContext).ExecContext(ctx, "ATTACH DATABASE ? AS "+catalogueSchema,
		[]driver.NamedValue{{Ordinal: 1, Value: c.catalogue}})
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("attach the catalogue file: %w", err)
	}
	return conn, nil
}

func (attachingConnector) Driver() driver.Driver { return &sqlite.Driver{} }

// openAttached opens a pool on the store's file at path with the catalogue
// file attached, and checks that a connection opens.
func openAttached(ctx context.Context, path string, pragmas []string, txlock string) (*sql.DB, error) {
	q := url.Values{"_pragma": pragmas}
	if txlock != "" {
		q.Set("_txlock", txlock)
	}
	db := sql.OpenDB(attachingConnector{dsn: fileDSN(path, q), catalogue: fileDSN(CataloguePath(path), nil)})
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	return db, nil
}

// moveCatalogue moves the catalogue tables that the store's file at path
// still holds (a store made before migration 0016, a new store's first open,
// a restored backup) into the catalogue file, replacing those there: the
// store's file wins. The copy commits before the originals are dropped, each
// file's transaction atomic on its own, so that a crash in between leaves the
// tables in both files and the next open moves them again.
func moveCatalogue(ctx context.Context, path string) error {
	if found, err := hasCatalogueTables(ctx, path); err != nil || !found {
		return err
	}
	// Another process may be moving them: wait for it rather than fail (20 s
	// at a million cards), then find nothing left to move.
	db, err := openAttached(ctx, path, []string{"busy_timeout(3600000)", "foreign_keys(1)"}, "immediate")
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)

	var moved []string
	err = inTx(ctx, db, func(tx *sql.Tx) error {
		schema, err := schemaOf(ctx, tx, "main")
		if err != nil {
			return err
		}
		for _, s := range schema {
			if !slices.Contains(catalogueTables, s.table) {
				continue
			}
			if s.kind == "table" {
				moved = append(moved, s.table)
				if _, err := tx.ExecContext(ctx, `DROP TABLE IF EXISTS `+catalogueSchema+`.`+s.table); err != nil {
					return err
				}
			}
			ddl, err := qualify(s, catalogueSchema)
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, ddl); err != nil {
				return fmt.Errorf("%s: %w", s.name, err)
			}
		}
		for _, t := range moved {
			if _, err := tx.ExecContext(ctx, `INSERT INTO `+catalogueSchema+`.`+t+` SELECT * FROM main.`+t); err != nil {
				return fmt.Errorf("copy %s: %w", t, err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("sqlite: move the catalogue to %s: %w", CataloguePath(path), err)
	}
	err = inTx(ctx, db, func(tx *sql.Tx) error {
		for _, t := range moved {
			if _, err := tx.ExecContext(ctx, `DROP TABLE main.`+t); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("sqlite: drop the moved catalogue from %s: %w", path, err)
	}
	// The store's file keeps the moved tables' pages free; give them back.
	// Nothing depends on it: a failure (another writer) leaves them free.
	_, _ = db.ExecContext(ctx, `VACUUM main`)
	return nil
}

// hasCatalogueTables reports whether the store's file at path holds
// catalogue tables, read without a write lock.
func hasCatalogueTables(ctx context.Context, path string) (bool, error) {
	db, err := openPool(ctx, path, slices.Concat(commonPragmas, []string{"query_only(1)"}), "")
	if err != nil {
		return false, err
	}
	defer db.Close()
	n, err := countCatalogueTables(ctx, db, "main")
	if err != nil {
		return false, fmt.Errorf("sqlite: read the schema of %s: %w", path, err)
	}
	return n > 0, nil
}

// countCatalogueTables counts the catalogue tables in a schema of db.
func countCatalogueTables(ctx context.Context, db *sql.DB, schema string) (int, error) {
	var n int
	err := db.QueryRowContext(ctx, `SELECT count(*) FROM `+schema+`.sqlite_schema
WHERE type = 'table' AND name IN ('`+strings.Join(catalogueTables, "', '")+`')`).Scan(&n)
	return n, err
}

// schemaObject is a table or an index of a schema, with the SQL that made it.
type schemaObject struct {
	kind, name, table, sql string
}

// schemaOf returns the tables and indexes of a schema of tx, each table
// before its indexes.
func schemaOf(ctx context.Context, tx *sql.Tx, schema string) ([]schemaObject, error) {
	rows, err := tx.QueryContext(ctx, `SELECT type, name, tbl_name, sql FROM `+schema+`.sqlite_schema
WHERE type IN ('table', 'index') AND sql IS NOT NULL ORDER BY type = 'index', rowid`)
	if err != nil {
		return nil, err
	}
	var objs []schemaObject
	for rows.Next() {
		var o schemaObject
		if err := rows.Scan(&o.kind, &o.name, &o.table, &o.sql); err != nil {
			rows.Close()
			return nil, err
		}
		objs = append(objs, o)
	}
	return objs, errors.Join(rows.Err(), rows.Close())
}

// qualify rewrites the SQL that made o so that it makes o in schema: SQLite
// keeps it as written, and cardcat's migrations write CREATE [UNIQUE] INDEX
// and CREATE TABLE followed by the bare name.
func qualify(o schemaObject, schema string) (string, error) {
	for _, prefix := range []string{"CREATE TABLE ", "CREATE INDEX ", "CREATE UNIQUE INDEX "} {
		if rest, ok := strings.CutPrefix(o.sql, prefix+o.name+" "); ok {
			return prefix + schema + "." + o.name + " " + rest, nil
		}
	}
	return "", fmt.Errorf("%s: unexpected SQL %.40q", o.name, o.sql)
}

// inTx runs fn in a transaction of db, committed when fn returns nil.
func inTx(ctx context.Context, db *sql.DB, fn func(tx *sql.Tx) error) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}
