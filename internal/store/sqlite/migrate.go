package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"fmt"

	"github.com/cardcat/cardcat/internal/store/sqlmigrate"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

func migrate(ctx context.Context, db *sql.DB) error {
	ms, err := sqlmigrate.Load(migrationFiles, "migrations")
	if err != nil {
		return err
	}
	return sqlmigrate.Run(ctx, migrator{db}, ms)
}

// migrator runs migrations on the writer pool: each transaction takes the
// write lock at BEGIN (BEGIN IMMEDIATE), so two processes opening a new file
// at once apply each migration once.
type migrator struct{ db *sql.DB }

func (m migrator) Applied(ctx context.Context) (int, error) {
	const create = `CREATE TABLE IF NOT EXISTS schema_migrations (
	version    INTEGER PRIMARY KEY,
	name       TEXT NOT NULL,
	applied_at INTEGER NOT NULL DEFAULT (CAST(unixepoch('subsec') * 1000000 AS INTEGER))
)`
	if _, err := m.db.ExecContext(ctx, create); err != nil {
		return 0, fmt.Errorf("create schema_migrations: %w", err)
	}
	var v int
	if err := m.db.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&v); err != nil {
		return 0, fmt.Errorf("read schema_migrations: %w", err)
	}
	return v, nil
}

func (m migrator) Apply(ctx context.Context, mig sqlmigrate.Migration) error {
	tx, err := m.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var done bool
	if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM schema_migrations WHERE version = ?)`, mig.Version).Scan(&done); err != nil {
		return err
	}
	if done {
		return nil
	}
	if _, err := tx.ExecContext(ctx, mig.SQL); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name) VALUES (?, ?)`, mig.Version, mig.Name); err != nil {
		return err
	}
	return tx.Commit()
}
