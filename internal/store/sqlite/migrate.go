package sqlite

import (
	"context"
	"database/sql"
	"embed"

	"github.com/cardcat/cardcat/internal/store/sqlmigrate"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

func migrate(ctx context.Context, db *sql.DB) error {
	return sqlmigrate.Migrate(ctx, migrator{db}, migrationFiles, "migrations")
}

// migrator runs migrations on the writer pool: each transaction takes the
// write lock at BEGIN (BEGIN IMMEDIATE), so two processes opening a new file
// at once apply each migration once. That pool has the store's file only: a
// migration that creates a catalogue table creates it there, and Open's
// moveCatalogue then moves it (list it in catalogueTables); one that alters
// a catalogue table, once moved, would need the catalogue file attached.
type migrator struct{ db *sql.DB }

func (migrator) Dialect() sqlmigrate.Dialect {
	return sqlmigrate.Dialect{
		Create: `CREATE TABLE IF NOT EXISTS schema_migrations (
	version    INTEGER PRIMARY KEY,
	name       TEXT NOT NULL,
	applied_at INTEGER NOT NULL DEFAULT (CAST(unixepoch('subsec') * 1000000 AS INTEGER))
)`,
		Count:  `SELECT count(*) FROM schema_migrations WHERE version = ?`,
		Record: `INSERT INTO schema_migrations (version, name) VALUES (?, ?)`,
	}
}

func (m migrator) InTx(ctx context.Context, fn func(sqlmigrate.Tx) error) error {
	tx, err := m.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(migrationTx{tx}); err != nil {
		return err
	}
	return tx.Commit()
}

type migrationTx struct{ tx *sql.Tx }

func (t migrationTx) Exec(ctx context.Context, query string, args ...any) error {
	_, err := t.tx.ExecContext(ctx, query, args...)
	return err
}

func (t migrationTx) Int(ctx context.Context, query string, args ...any) (n int, err error) {
	err = t.tx.QueryRowContext(ctx, query, args...).Scan(&n)
	return n, err
}
