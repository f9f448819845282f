package postgres

import (
	"context"
	"embed"

	"github.com/cardcat/cardcat/internal/store/sqlmigrate"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

func migrate(ctx context.Context, pool *pgxpool.Pool) error {
	return sqlmigrate.Migrate(ctx, migrator{pool}, migrationFiles, "migrations")
}

// migrator runs each step in a transaction that first takes an advisory lock
// on the schema, so that replicas starting together migrate one at a time and
// each migration is applied once.
type migrator struct{ pool *pgxpool.Pool }

const lockSchema = `SELECT pg_advisory_xact_lock(hashtext('cardcat schema_migrations ' || current_schema()))`

func (migrator) Dialect() sqlmigrate.Dialect {
	return sqlmigrate.Dialect{
		Create: `CREATE TABLE IF NOT EXISTS schema_migrations (
	version    integer PRIMARY KEY,
	name       text NOT NULL,
	applied_at timestamptz NOT NULL DEFAULT now()
)`,
		Count:  `SELECT count(*) FROM schema_migrations WHERE version = $1`,
		Record: `INSERT INTO schema_migrations (version, name) VALUES ($1, $2)`,
	}
}

func (m migrator) InTx(ctx context.Context, fn func(sqlmigrate.Tx) error) error {
	return pgx.BeginFunc(ctx, m.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, lockSchema); err != nil {
			return err
		}
		return fn(migrationTx{tx})
	})
}

type migrationTx struct{ tx pgx.Tx }

// Exec without args uses pgx's simple protocol, which runs a file of several
// statements.
func (t migrationTx) Exec(ctx context.Context, query string, args ...any) error {
	_, err := t.tx.Exec(ctx, query, args...)
	return err
}

func (t migrationTx) Int(ctx context.Context, query string, args ...any) (n int, err error) {
	err = t.tx.QueryRow(ctx, query, args...).Scan(&n)
	return n, err
}
