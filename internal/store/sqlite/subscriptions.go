package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/cardcat/cardcat/internal/alerts"
	"github.com/cardcat/cardcat/internal/store/sqlrow"
)

var _ alerts.SubscriptionStore = (*DB)(nil)

const subscriptionColumns = `id, account_id, webhook_id, game, set_id, cards, created_at, last_version, last_at`

// deleteAccountSubscriptions deletes, in DeleteAccount's transaction, the
// account's subscriptions, before its endpoints and events go.
func deleteAccountSubscriptions(ctx context.Context, tx *sql.Tx, accountID int64) error {
	_, err := tx.ExecContext(ctx, `DELETE FROM card_subscriptions WHERE account_id = ?`, accountID)
	return err
}

// CreateSubscription inserts s unless its account has max subscriptions.
func (db *DB) CreateSubscription(ctx context.Context, s *alerts.Subscription, max int) error {
	s.CreatedAt = sqlrow.CreatedAt(s.CreatedAt)
	s.LastVersion, s.LastAt = 0, time.Time{}
	return db.writeTx(ctx, "create subscription", func(tx *sql.Tx) error {
		if live, err := liveAccount(ctx, tx, s.AccountID); err != nil || !live {
			return cmpErr(err, fmt.Errorf("account %d: %w", s.AccountID, alerts.ErrNotFound))
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM card_subscriptions WHERE account_id = ?`, s.AccountID).Scan(&n); err != nil {
			return err
		}
		if n >= max {
			return alerts.ErrLimit
		}
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM webhook_endpoints WHERE id = ? AND account_id = ?`, s.WebhookID, s.AccountID).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("webhook %d: %w", s.WebhookID, alerts.ErrNotFound)
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO card_subscriptions (account_id, webhook_id, game, set_id, cards, created_at, last_version, last_at)
	VALUES (?, ?, ?, ?, ?, ?, 0, 0)`, s.AccountID, s.WebhookID, s.Game, s.SetID, strings.Join(s.Cards, "\n"), micros(s.CreatedAt))
		if err != nil {
			return err
		}
		s.ID, err = res.LastInsertId()
		return err
	})
}

func (db *DB) readSubscriptions(ctx context.Context, what, query string, args ...any) ([]alerts.Subscription, error) {
	rows, err := db.read.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: %s: %w", what, err)
	}
	defer rows.Close()
	var out []alerts.Subscription
	for rows.Next() {
		var s alerts.Subscription
		var cards string
		var created, last int64
		if err := rows.Scan(&s.ID, &s.AccountID, &s.WebhookID, &s.Game, &s.SetID, &cards, &created, &s.LastVersion, &last); err != nil {
			return nil, fmt.Errorf("sqlite: %s: %w", what, err)
		}
		if cards != "" {
			s.Cards = strings.Split(cards, "\n")
		}
		s.CreatedAt, s.LastAt = fromMicros(created), fromMicrosOrZero(last)
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: %s: %w", what, err)
	}
	return out, nil
}

// Subscriptions are the account's subscriptions, oldest first.
func (db *DB) Subscriptions(ctx context.Context, accountID int64) ([]alerts.Subscription, error) {
	return db.readSubscriptions(ctx, "subscriptions", `SELECT `+subscriptionColumns+` FROM card_subscriptions WHERE account_id = ? ORDER BY id`, accountID)
}

// PendingSubscriptions are the subscriptions to evaluate at version, after
// afterID.
func (db *DB) PendingSubscriptions(ctx context.Context, version, afterID int64, limit int) ([]alerts.Subscription, error) {
	return db.readSubscriptions(ctx, "pending subscriptions", `SELECT `+subscriptionColumns+` FROM card_subscriptions
	WHERE id > ? AND last_version < ? ORDER BY id LIMIT ?`, afterID, version, limit)
}

// DeleteSubscription deletes one of the account's subscriptions.
func (db *DB) DeleteSubscription(ctx context.Context, accountID, id int64) error {
	return db.changeAlert(ctx, "delete subscription", `DELETE FROM card_subscriptions WHERE id = ? AND account_id = ?`, id, accountID)
}

// RecordSubscriptions writes the evaluations of version, each only once.
func (db *DB) RecordSubscriptions(ctx context.Context, version int64, at time.Time, evs []alerts.SubscriptionEvaluation) (fired, queued int, err error) {
	err = db.writeTx(ctx, "record subscription evaluations", func(tx *sql.Tx) error {
		fired, queued = 0, 0
		for _, ev := range evs {
			res, err := tx.ExecContext(ctx, `UPDATE card_subscriptions SET last_version = ?, last_at = ? WHERE id = ? AND last_version < ?`,
				version, micros(at), ev.SubscriptionID, version)
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err != nil || n == 0 {
				if err != nil {
					return err
				}
				continue
			}
			for _, e := range ev.Events {
				if _, err := tx.ExecContext(ctx, `INSERT INTO alert_events (id, account_id, alert_id, subscription_id, version, created_at, body)
	VALUES (?, ?, 0, ?, ?, ?, ?)`, e.ID, e.AccountID, ev.SubscriptionID, e.Version, micros(e.Created), e.Body); err != nil {
					return err
				}
				fired++
				res, err := tx.ExecContext(ctx, `INSERT INTO webhook_deliveries (event_id, endpoint_id, state, attempts, next_at, created_at)
	SELECT ?, id, 'pending', 0, ?, ? FROM webhook_endpoints WHERE id = ? AND account_id = ?`,
					e.ID, micros(e.Created), micros(e.Created), e.WebhookID, e.AccountID)
				if err != nil {
					return err
				}
				n, err := res.RowsAffected()
				if err != nil {
					return err
				}
				queued += int(n)
			}
		}
		return nil
	})
	return fired, queued, err
}
