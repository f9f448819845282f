package postgres

import (
	"context"
	"embed"
	"fmt"

	"github.com/cardcat/cardcat/internal/store/sqlmigrate"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

func migrate(ctx context.Context, pool *pgxpool.Pool) error {
	ms, err := sqlmigrate.Load(migrationFiles, "migrations")
	if err != nil {
		return err
	}
	return sqlmigrate.Run(ctx, migrator{pool}, ms)
}

// migrator runs each step in a transaction that first takes an advisory lock
// on the schema, so that replicas starting together migrate one at a time and
// each migration is applied once.
type migrator struct{ pool *pgxpool.Pool }

const lockSchema = `SELECT pg_advisory_xact_lock(hashtext('cardcat schema_migrations ' || current_schema()))`

func (m migrator) Applied(ctx context.Context) (int, error) {
	var v int
	err := pgx.BeginFunc(ctx, m.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, lockSchema); err != nil {
			return err
		}
		const create = `CREATE TABLE IF NOT EXISTS schema_migrations (
	version    integer PRIMARY KEY,
	name       text NOT NULL,
	applied_at timestamptz NOT NULL DEFAULT now()
)`
		if _, err := tx.Exec(ctx, create); err != nil {
			return fmt.Errorf("create schema_migrations: %w", err)
		}
		return tx.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&v)
	})
	return v, err
}

func (m migrator) Apply(ctx context.Context, mig sqlmigrate.Migration) error {
	return pgx.BeginFunc(ctx, m.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, lockSchema); err != nil {
			return err
		}
		var done bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM schema_migrations WHERE version = $1)`, mig.Version).Scan(&done); err != nil {
			return err
		}
		if done {
			return nil
		}
		// Without arguments pgx uses the simple protocol, which runs a file of
		// several statements.
		if _, err := tx.Exec(ctx, mig.SQL); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, name) VALUES ($1, $2)`, mig.Version, mig.Name)
		return err
	})
}
