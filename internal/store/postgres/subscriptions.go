package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cardcat/cardcat/internal/alerts"
	"github.com/cardcat/cardcat/internal/store/sqlrow"
)

var _ alerts.SubscriptionStore = (*DB)(nil)

const subscriptionColumns = `id, account_id, webhook_id, game, set_id, cards, created_at, last_version, last_at`

// deleteAccountSubscriptions deletes, in DeleteAccount's transaction, the
// account's subscriptions first: deleting them waits for an evaluation that
// holds them (RecordSubscriptions locks the subscriptions it moves, then
// queues their deliveries) to commit, so that deleteAccountAlerts deletes
// its deliveries next.
func deleteAccountSubscriptions(ctx context.Context, tx pgx.Tx, accountID int64) error {
	_, err := tx.Exec(ctx, `DELETE FROM card_subscriptions WHERE account_id = $1`, accountID)
	return err
}

// CreateSubscription inserts s unless its account has max subscriptions.
func (db *DB) CreateSubscription(ctx context.Context, s *alerts.Subscription, max int) error {
	s.CreatedAt = sqlrow.CreatedAt(s.CreatedAt)
	s.LastVersion, s.LastAt = 0, time.Time{}
	cards := s.Cards
	if cards == nil {
		cards = []string{}
	}
	return db.tx(ctx, "create subscription", func(tx pgx.Tx) error {
		live, err := lockAccount(ctx, tx, s.AccountID)
		if err != nil {
			return err
		}
		if !live {
			return fmt.Errorf("account %d: %w", s.AccountID, alerts.ErrNotFound)
		}
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM card_subscriptions WHERE account_id = $1`, s.AccountID).Scan(&n); err != nil {
			return err
		}
		if n >= max {
			return alerts.ErrLimit
		}
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM webhook_endpoints WHERE id = $1 AND account_id = $2`, s.WebhookID, s.AccountID).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("webhook %d: %w", s.WebhookID, alerts.ErrNotFound)
		}
		return tx.QueryRow(ctx, `INSERT INTO card_subscriptions (account_id, webhook_id, game, set_id, cards, created_at, last_version, last_at)
	VALUES ($1, $2, $3, $4, $5, $6, 0, NULL) RETURNING id`, s.AccountID, s.WebhookID, s.Game, s.SetID, cards, s.CreatedAt).Scan(&s.ID)
	})
}

func (db *DB) readSubscriptions(ctx context.Context, what, query string, args ...any) ([]alerts.Subscription, error) {
	rows, err := db.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("postgres: %s: %w", what, err)
	}
	defer rows.Close()
	var out []alerts.Subscription
	for rows.Next() {
		var s alerts.Subscription
		var last *time.Time
		if err := rows.Scan(&s.ID, &s.AccountID, &s.WebhookID, &s.Game, &s.SetID, &s.Cards, &s.CreatedAt, &s.LastVersion, &last); err != nil {
			return nil, fmt.Errorf("postgres: %s: %w", what, err)
		}
		if len(s.Cards) == 0 {
			s.Cards = nil
		}
		s.CreatedAt = s.CreatedAt.UTC()
		if last != nil {
			s.LastAt = last.UTC()
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres: %s: %w", what, err)
	}
	return out, nil
}

// Subscriptions are the account's subscriptions, oldest first.
func (db *DB) Subscriptions(ctx context.Context, accountID int64) ([]alerts.Subscription, error) {
	return db.readSubscriptions(ctx, "subscriptions", `SELECT `+subscriptionColumns+` FROM card_subscriptions WHERE account_id = $1 ORDER BY id`, accountID)
}

// PendingSubscriptions are the subscriptions to evaluate at version, after
// afterID.
func (db *DB) PendingSubscriptions(ctx context.Context, version, afterID int64, limit int) ([]alerts.Subscription, error) {
	return db.readSubscriptions(ctx, "pending subscriptions", `SELECT `+subscriptionColumns+` FROM card_subscriptions
	WHERE id > $1 AND last_version < $2 ORDER BY id LIMIT $3`, afterID, version, limit)
}

// DeleteSubscription deletes one of the account's subscriptions.
func (db *DB) DeleteSubscription(ctx context.Context, accountID, id int64) error {
	return db.changeAlert(ctx, "delete subscription", `DELETE FROM card_subscriptions WHERE id = $1 AND account_id = $2`, id, accountID)
}

// RecordSubscriptions writes the evaluations of version, each only once:
// the subscriptions still below version are moved (and locked) first, then
// only their events are written.
func (db *DB) RecordSubscriptions(ctx context.Context, version int64, at time.Time, evs []alerts.SubscriptionEvaluation) (fired, queued int, err error) {
	ids := make([]int64, len(evs))
	events := make(map[int64][]*alerts.Event, len(evs))
	for i, ev := range evs {
		ids[i] = ev.SubscriptionID
		events[ev.SubscriptionID] = ev.Events
	}
	err = db.tx(ctx, "record subscription evaluations", func(tx pgx.Tx) error {
		fired, queued = 0, 0
		rows, err := tx.Query(ctx, `UPDATE card_subscriptions SET last_version = $1, last_at = $2
	WHERE id = ANY($3::bigint[]) AND last_version < $1 RETURNING id`, version, sqlrow.Time(at), ids)
		if err != nil {
			return err
		}
		var moved []int64
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			moved = append(moved, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, id := range moved {
			for _, e := range events[id] {
				if _, err := tx.Exec(ctx, `INSERT INTO alert_events (id, account_id, alert_id, subscription_id, version, created_at, body)
	VALUES ($1, $2, 0, $3, $4, $5, $6)`, e.ID, e.AccountID, id, e.Version, sqlrow.Time(e.Created), e.Body); err != nil {
					return err
				}
				fired++
				tag, err := tx.Exec(ctx, `INSERT INTO webhook_deliveries (event_id, endpoint_id, state, attempts, next_at, created_at)
	SELECT $1, id, 'pending', 0, $2, $2 FROM webhook_endpoints WHERE id = $3 AND account_id = $4`,
					e.ID, sqlrow.Time(e.Created), e.WebhookID, e.AccountID)
				if err != nil {
					return err
				}
				queued += int(tag.RowsAffected())
			}
		}
		return nil
	})
	return fired, queued, err
}
