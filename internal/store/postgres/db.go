// Package postgres is the scaled-out store: PostgreSQL through pgx, shared by
// every API replica and the ingest job.
//
// The connection URL may name a schema, postgres://.../db?search_path=cardcat,
// to keep cardcat's tables (schema_migrations included) apart from others in
// the database; the schema must exist.
package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/cardcat/cardcat/internal/store"
	"github.com/jackc/pgx/v5/pgxpool"
)

// DB is the PostgreSQL implementation of store.Store.
type DB struct {
	pool *pgxpool.Pool
}

var _ store.Store = (*DB)(nil)

// Open connects to the database at url (a postgres:// URL or key=value
// string; runtime parameters such as search_path are passed on to the server)
// and brings the schema up to date. It refuses a database whose schema is
// newer than this program's (sqlmigrate.ErrSchemaTooNew).
func Open(ctx context.Context, url string) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		// pgx's message shows the URL with its password masked.
		return nil, fmt.Errorf("postgres: open: %w", err)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: open: %w", err)
	}
	db := &DB{pool: pool}
	if err := db.init(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: open %s/%s: %w", cfg.ConnConfig.Host, cfg.ConnConfig.Database, err)
	}
	return db, nil
}

func (db *DB) init(ctx context.Context) error {
	var schema *string
	if err := db.pool.QueryRow(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		return err
	}
	if schema == nil {
		return errors.New("no schema to create the tables in: does the search_path name an existing schema?")
	}
	return migrate(ctx, db.pool)
}

// Ping checks that the database answers.
func (db *DB) Ping(ctx context.Context) error {
	if err := db.pool.Ping(ctx); err != nil {
		return fmt.Errorf("postgres: ping: %w", err)
	}
	return nil
}

// Close closes the connection pool.
func (db *DB) Close() error {
	db.pool.Close()
	return nil
}
