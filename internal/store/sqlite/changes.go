package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/store"
	"github.com/cardcat/cardcat/internal/store/sqlrow"
)

const (
	changeFeedQuery   = `SELECT version, from_at, until_at FROM card_change_feeds WHERE game = ?`
	recordedHashes    = `SELECT card_id, hash FROM card_changes WHERE game = ? ORDER BY card_id`
	upsertCardChanges = `
ON CONFLICT (game, card_id) DO UPDATE SET hash = excluded.hash, changed_at = excluded.changed_at`
)

// RecordCardChanges records the change feed of game at version; see
// store.Store.
func (db *DB) RecordCardChanges(ctx context.Context, version int64, at time.Time, game string, hashes []catalog.CardHash, keepFrom time.Time) (store.ChangeRecord, error) {
	rec, err := db.recordCardChanges(ctx, version, sqlrow.Time(at), game, hashes, keepFrom)
	if err != nil {
		return store.ChangeRecord{}, fmt.Errorf("sqlite: record card changes of %s: %w", game, err)
	}
	return rec, nil
}

func (db *DB) recordCardChanges(ctx context.Context, version int64, at time.Time, game string, hashes []catalog.CardHash, keepFrom time.Time) (store.ChangeRecord, error) {
	tx, err := db.catWrite.BeginTx(ctx, nil)
	if err != nil {
		return store.ChangeRecord{}, err
	}
	defer tx.Rollback()
	feed, found, err := sqlrow.ReadChangeFeed(ctx, reader{tx}, changeFeedQuery, game)
	if err != nil {
		return store.ChangeRecord{}, err
	}
	if found && version <= feed.Version {
		return store.ChangeRecord{}, nil
	}

	var rec store.ChangeRecord
	b := newBatch(tx, "card_changes", "game", "card_id", "hash", "changed_at")
	defer b.close()
	if !found {
		// The first record: nothing to compare with, so the feed starts here.
		if _, err := tx.ExecContext(ctx, `DELETE FROM card_changes WHERE game = ?`, game); err != nil {
			return store.ChangeRecord{}, err
		}
		feed.From = at
	} else {
		var removed []string
		hashes, removed, err = sqlrow.DiffCardHashes(ctx, reader{tx}, recordedHashes, []any{game}, hashes)
		if err != nil {
			return store.ChangeRecord{}, err
		}
		rec.Changed, rec.Removed = len(hashes), len(removed)
		b.suffix = upsertCardChanges
		if err := markRemoved(ctx, tx, game, removed, at); err != nil {
			return store.ChangeRecord{}, err
		}
	}
	for _, h := range hashes {
		if err := b.add(ctx, game, h.ID, h.Hash[:], micros(at)); err != nil {
			return store.ChangeRecord{}, err
		}
	}
	if err := b.flush(ctx); err != nil {
		return store.ChangeRecord{}, err
	}

	if !keepFrom.IsZero() {
		var newest sql.NullInt64
		err := tx.QueryRowContext(ctx, `SELECT count(*), max(changed_at) FROM card_changes
WHERE game = ? AND hash IS NULL AND changed_at < ?`, game, micros(keepFrom)).Scan(&rec.Pruned, &newest)
		if err != nil {
			return store.ChangeRecord{}, fmt.Errorf("prune: %w", err)
		}
		if rec.Pruned > 0 {
			if _, err := tx.ExecContext(ctx, `DELETE FROM card_changes WHERE game = ? AND hash IS NULL AND changed_at < ?`,
				game, micros(keepFrom)); err != nil {
				return store.ChangeRecord{}, fmt.Errorf("prune: %w", err)
			}
			if t := fromMicros(newest.Int64); t.After(feed.From) {
				feed.From = t
			}
		}
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO card_change_feeds (game, version, from_at, until_at) VALUES (?, ?, ?, ?)
ON CONFLICT (game) DO UPDATE SET version = excluded.version, from_at = excluded.from_at, until_at = excluded.until_at`,
		game, version, micros(feed.From), micros(at))
	if err != nil {
		return store.ChangeRecord{}, err
	}
	return rec, tx.Commit()
}

func markRemoved(ctx context.Context, tx *sql.Tx, game string, ids []string, at time.Time) error {
	if len(ids) == 0 {
		return nil
	}
	stmt, err := tx.PrepareContext(ctx, `UPDATE card_changes SET hash = NULL, changed_at = ? WHERE game = ? AND card_id = ?`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, id := range ids {
		if _, err := stmt.ExecContext(ctx, micros(at), game, id); err != nil {
			return fmt.Errorf("removed card %s: %w", id, err)
		}
	}
	return nil
}

// CardChanges returns one page of game's change feed; see store.Store.
func (db *DB) CardChanges(ctx context.Context, game string, since time.Time, offset, limit int) (store.ChangePage, error) {
	p, err := db.cardChanges(ctx, game, since, offset, limit)
	if err != nil {
		return store.ChangePage{}, fmt.Errorf("sqlite: card changes of %s: %w", game, err)
	}
	return p, nil
}

func (db *DB) cardChanges(ctx context.Context, game string, since time.Time, offset, limit int) (store.ChangePage, error) {
	// One read transaction: the feed's state and its rows are of one snapshot.
	tx, err := db.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return store.ChangePage{}, err
	}
	defer tx.Rollback()
	s := micros(since)
	return sqlrow.CardChanges(ctx, reader{tx}, since,
		sqlrow.Query{SQL: changeFeedQuery, Args: []any{game}},
		sqlrow.Query{SQL: `SELECT count(*) FROM card_changes WHERE game = ? AND changed_at > ?`, Args: []any{game, s}},
		sqlrow.Query{SQL: `SELECT card_id, changed_at, hash IS NULL FROM card_changes WHERE game = ? AND changed_at > ?
ORDER BY changed_at, card_id LIMIT ? OFFSET ?`, Args: []any{game, s, limit, offset}})
}
