package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/store/sqlrow"
)

// LoadCatalog returns the current catalogue of every game, read from one
// snapshot; see sqlrow.LoadCatalog.
func (db *DB) LoadCatalog(ctx context.Context) (*catalog.Catalog, error) {
	cat, err := db.load(ctx)
	if err != nil {
		return nil, fmt.Errorf("sqlite: load catalog: %w", err)
	}
	return cat, nil
}

func (db *DB) load(ctx context.Context) (*catalog.Catalog, error) {
	// In WAL mode a read transaction sees one snapshot from its first SELECT
	// to its end, whatever the writer commits meanwhile.
	tx, err := db.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	return sqlrow.LoadCatalog(ctx, reader{tx})
}
