package postgres

import (
	"context"
	"fmt"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/store/sqlrow"
	"github.com/jackc/pgx/v5"
)

// LoadCatalog returns the current catalogue of every game, read from one
// snapshot; see sqlrow.LoadCatalog.
func (db *DB) LoadCatalog(ctx context.Context) (*catalog.Catalog, error) {
	var cat *catalog.Catalog
	// REPEATABLE READ: every query of the load sees the same snapshot, whatever
	// an ingest commits meanwhile.
	opts := pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}
	err := pgx.BeginTxFunc(ctx, db.pool, opts, func(tx pgx.Tx) error {
		var err error
		cat, err = sqlrow.LoadCatalog(ctx, reader{tx})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: load catalog: %w", err)
	}
	return cat, nil
}
