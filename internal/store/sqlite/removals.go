package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/cardcat/cardcat/internal/store"
)

var _ store.RemovalStore = (*DB)(nil)

// removalLookup bounds the ids of one lookup of RemovedCardSets, far below
// SQLite's limit of 32766 parameters.
const removalLookup = 500

// RecordCardRemovals keeps the set each of removals left; see
// store.RemovalStore.
func (db *DB) RecordCardRemovals(ctx context.Context, game string, at time.Time, removals []store.CardRemoval, keepFrom time.Time) error {
	return db.catalogueTx(ctx, "record card removals of "+game, func(tx *sql.Tx) error {
		b := newBatch(tx, "card_removals", "game", "card_id", "set_id", "removed_at")
		defer b.close()
		b.suffix = `
ON CONFLICT (game, card_id) DO UPDATE SET set_id = excluded.set_id, removed_at = excluded.removed_at`
		for _, r := range removals {
			if err := b.add(ctx, game, r.ID, r.SetID, micros(at)); err != nil {
				return err
			}
		}
		if err := b.flush(ctx); err != nil {
			return err
		}
		if keepFrom.IsZero() {
			return nil
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM card_removals WHERE game = ? AND removed_at < ?`, game, micros(keepFrom)); err != nil {
			return fmt.Errorf("prune: %w", err)
		}
		return nil
	})
}

// RemovedCardSets returns the set each of ids was last removed from; see
// store.RemovalStore.
func (db *DB) RemovedCardSets(ctx context.Context, game string, ids []string) (map[string]string, error) {
	sets := map[string]string{}
	for start := 0; start < len(ids); start += removalLookup {
		chunk := ids[start:min(start+removalLookup, len(ids))]
		args := make([]any, 0, len(chunk)+1)
		args = append(args, game)
		for _, id := range chunk {
			args = append(args, id)
		}
		rows, err := db.read.QueryContext(ctx, `SELECT card_id, set_id FROM card_removals WHERE game = ? AND card_id IN (?`+
			strings.Repeat(", ?", len(chunk)-1)+`)`, args...)
		if err != nil {
			return nil, fmt.Errorf("sqlite: removed card sets of %s: %w", game, err)
		}
		for rows.Next() {
			var id, set string
			if err := rows.Scan(&id, &set); err != nil {
				rows.Close()
				return nil, fmt.Errorf("sqlite: removed card sets of %s: %w", game, err)
			}
			sets[id] = set
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("sqlite: removed card sets of %s: %w", game, err)
		}
	}
	return sets, nil
}
