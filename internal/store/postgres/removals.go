package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cardcat/cardcat/internal/store"
)

var _ store.RemovalStore = (*DB)(nil)

// RecordCardRemovals keeps the set each of removals left; see
// store.RemovalStore.
func (db *DB) RecordCardRemovals(ctx context.Context, game string, at time.Time, removals []store.CardRemoval, keepFrom time.Time) error {
	ids, sets := make([]string, len(removals)), make([]string, len(removals))
	for i, r := range removals {
		ids[i], sets[i] = r.ID, r.SetID
	}
	return db.tx(ctx, "record card removals of "+game, func(tx pgx.Tx) error {
		if len(removals) > 0 {
			// A card listed twice would make the upsert touch its row twice,
			// which PostgreSQL refuses: the last one wins, as in SQLite.
			_, err := tx.Exec(ctx, `INSERT INTO card_removals (game, card_id, set_id, removed_at)
SELECT DISTINCT ON (r.id) $1, r.id, r.set_id, $4 FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS r (id, set_id, n)
ORDER BY r.id, r.n DESC
ON CONFLICT (game, card_id) DO UPDATE SET set_id = excluded.set_id, removed_at = excluded.removed_at`, game, ids, sets, at)
			if err != nil {
				return err
			}
		}
		if keepFrom.IsZero() {
			return nil
		}
		if _, err := tx.Exec(ctx, `DELETE FROM card_removals WHERE game = $1 AND removed_at < $2`, game, keepFrom); err != nil {
			return fmt.Errorf("prune: %w", err)
		}
		return nil
	})
}

// RemovedCardSets returns the set each of ids was last removed from; see
// store.RemovalStore.
func (db *DB) RemovedCardSets(ctx context.Context, game string, ids []string) (map[string]string, error) {
	sets := map[string]string{}
	if len(ids) == 0 {
		return sets, nil
	}
	rows, err := db.pool.Query(ctx, `SELECT card_id, set_id FROM card_removals WHERE game = $1 AND card_id = ANY($2)`, game, ids)
	if err != nil {
		return nil, fmt.Errorf("postgres: removed card sets of %s: %w", game, err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, set string
		if err := rows.Scan(&id, &set); err != nil {
			return nil, fmt.Errorf("postgres: removed card sets of %s: %w", game, err)
		}
		sets[id] = set
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres: removed card sets of %s: %w", game, err)
	}
	return sets, nil
}
