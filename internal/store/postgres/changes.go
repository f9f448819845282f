package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/store"
	"github.com/cardcat/cardcat/internal/store/sqlrow"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

const (
	changeFeedQuery = `SELECT version, from_at, until_at FROM card_change_feeds WHERE game = $1`
	recordedHashes  = `SELECT card_id, hash FROM card_changes WHERE game = $1 ORDER BY card_id`
)

// RecordCardChanges records the change feed of game at version; see
// store.Store.
func (db *DB) RecordCardChanges(ctx context.Context, version int64, at time.Time, game string, hashes []catalog.CardHash, keepFrom time.Time) (store.ChangeRecord, error) {
	at = sqlrow.Time(at)
	var rec store.ChangeRecord
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		// Two records of one game at once would both read the old hashes.
		if _, err := tx.Exec(ctx, `LOCK TABLE card_change_feeds IN EXCLUSIVE MODE`); err != nil {
			return err
		}
		feed, found, err := sqlrow.ReadChangeFeed(ctx, reader{tx}, changeFeedQuery, game)
		if err != nil {
			return err
		}
		if found && version <= feed.Version {
			return nil
		}
		if !found {
			// The first record: nothing to compare with, so the feed starts here.
			if _, err := tx.Exec(ctx, `DELETE FROM card_changes WHERE game = $1`, game); err != nil {
				return err
			}
			feed.From = at
		} else {
			var removed []string
			hashes, removed, err = sqlrow.DiffCardHashes(ctx, reader{tx}, recordedHashes, []any{game}, hashes)
			if err != nil {
				return err
			}
			rec.Changed, rec.Removed = len(hashes), len(removed)
			ids := make([]string, len(hashes))
			for i, h := range hashes {
				ids[i] = h.ID
			}
			if _, err := tx.Exec(ctx, `DELETE FROM card_changes WHERE game = $1 AND card_id = ANY($2)`, game, ids); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `UPDATE card_changes SET hash = NULL, changed_at = $2 WHERE game = $1 AND card_id = ANY($3)`,
				game, at, removed); err != nil {
				return fmt.Errorf("removed cards: %w", err)
			}
		}
		_, err = tx.CopyFrom(ctx, pgx.Identifier{"card_changes"}, []string{"game", "card_id", "hash", "changed_at"},
			pgx.CopyFromSlice(len(hashes), func(i int) ([]any, error) {
				return []any{game, hashes[i].ID, hashes[i].Hash[:], at}, nil
			}))
		if err != nil {
			return fmt.Errorf("copy into card_changes: %w", err)
		}

		if !keepFrom.IsZero() {
			var newest pgtype.Timestamptz
			err := tx.QueryRow(ctx, `WITH pruned AS (
	DELETE FROM card_changes WHERE game = $1 AND hash IS NULL AND changed_at < $2 RETURNING changed_at
) SELECT count(*), max(changed_at) FROM pruned`, game, keepFrom).Scan(&rec.Pruned, &newest)
			if err != nil {
				return fmt.Errorf("prune: %w", err)
			}
			if newest.Valid && newest.Time.After(feed.From) {
				feed.From = newest.Time.UTC()
			}
		}
		_, err = tx.Exec(ctx, `INSERT INTO card_change_feeds (game, version, from_at, until_at) VALUES ($1, $2, $3, $4)
ON CONFLICT (game) DO UPDATE SET version = excluded.version, from_at = excluded.from_at, until_at = excluded.until_at`,
			game, version, feed.From, at)
		return err
	})
	if err != nil {
		return store.ChangeRecord{}, fmt.Errorf("postgres: record card changes of %s: %w", game, err)
	}
	return rec, nil
}

// CardChanges returns one page of game's change feed; see store.Store.
func (db *DB) CardChanges(ctx context.Context, game string, since time.Time, offset, limit int) (store.ChangePage, error) {
	var p store.ChangePage
	// One read-only snapshot: the feed's state and its rows agree.
	err := pgx.BeginTxFunc(ctx, db.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		s := sqlrow.Time(since)
		var err error
		p, err = sqlrow.CardChanges(ctx, reader{tx}, since,
			sqlrow.Query{SQL: changeFeedQuery, Args: []any{game}},
			sqlrow.Query{SQL: `SELECT count(*) FROM card_changes WHERE game = $1 AND changed_at > $2`, Args: []any{game, s}},
			sqlrow.Query{SQL: `SELECT card_id, changed_at, hash IS NULL FROM card_changes WHERE game = $1 AND changed_at > $2
ORDER BY changed_at, card_id LIMIT $3 OFFSET $4`, Args: []any{game, s, limit, offset}})
		return err
	})
	if err != nil {
		return store.ChangePage{}, fmt.Errorf("postgres: card changes of %s: %w", game, err)
	}
	return p, nil
}
