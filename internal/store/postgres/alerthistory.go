package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/cardcat/cardcat/internal/alerts"
	"github.com/cardcat/cardcat/internal/store/sqlrow"
)

var _ alerts.HistoryStore = (*DB)(nil)

// pruneCandidates are the next events of a prune's walk, older than $1 and
// after the cursor ($2, $3), by creation time then id (the index
// alert_events_created, migration 0014), each with whether it is finished:
// no delivery left to send (not delivered or failed, or resent since $1)
// and no email left to send (not sent, failed, cancelled or capped). A
// state not named here (a new one) keeps the event. The checks are a
// LATERAL subquery, probed per event on the event_id indexes: as NOT EXISTS
// in the select list the planner may hash each whole table once instead
// (it did, a sequential scan of a million deliveries per batch), as it
// plans for every event before the cutoff, not for the LIMIT.
const pruneCandidates = `SELECT e.id, e.created_at, u.unfinished IS NULL
	FROM alert_events e LEFT JOIN LATERAL (
		SELECT 1 AS unfinished FROM webhook_deliveries d WHERE d.event_id = e.id
			AND (d.state NOT IN ('delivered', 'failed') OR d.resent_at >= $1)
		UNION ALL
		SELECT 1 FROM alert_emails m WHERE m.event_id = e.id
			AND m.state NOT IN ('sent', 'failed', 'cancelled', 'capped')
		LIMIT 1) u ON true
	WHERE e.created_at < $1 AND (e.created_at, e.id) > ($2, $3)
	ORDER BY e.created_at, e.id LIMIT $4`

// The deletes of a batch's finished events ($1) and of what hangs off them,
// the referencing rows first: the order DeleteAccount and DeleteEndpoint
// delete in, so that a prune and one of them wait for each other rather
// than each for the other. The deliveries and emails are deleted only in a
// final state ($2: the cutoff): a row a resend or a worker changed after
// the batch was read is re-checked by PostgreSQL when it is deleted (READ
// COMMITTED), and kept.
const (
	pruneAttempts = `DELETE FROM webhook_attempts WHERE delivery_id IN
	(SELECT id FROM webhook_deliveries WHERE event_id = ANY($1))`
	pruneDeliveries = `DELETE FROM webhook_deliveries WHERE event_id = ANY($1)
	AND state IN ('delivered', 'failed') AND (resent_at IS NULL OR resent_at < $2)`
	pruneEmails = `DELETE FROM alert_emails WHERE event_id = ANY($1)
	AND state IN ('sent', 'failed', 'cancelled', 'capped')`
	// pruneLeft counts what the two deletes above kept: a delivery resent,
	// or an email changed, since the batch was read.
	pruneLeft = `SELECT (SELECT count(*) FROM webhook_deliveries WHERE event_id = ANY($1))
	+ (SELECT count(*) FROM alert_emails WHERE event_id = ANY($1))`
	pruneEvents = `DELETE FROM alert_events WHERE id = ANY($1)`
)

// errPruneRaced is a batch that found one of its events changed between
// its read and its delete: it is rolled back and read again.
var errPruneRaced = errors.New("an event's delivery or email changed during the prune")

// pruneTries bounds the tries of one batch that races a resend, or is
// chosen as a deadlock's victim.
const pruneTries = 3

// PruneAlertHistory deletes the finished events created before before, a
// batch per transaction. The batch's states are read without locks (the
// workers claim with SKIP LOCKED and would not wait anyway); the deletes
// then re-check them, and a batch in which one changed (a resend of an old
// delivery at that very moment) is rolled back, so that no event loses the
// attempts of a delivery that stays, and read again.
func (db *DB) PruneAlertHistory(ctx context.Context, before time.Time, batch int) (alerts.Pruned, error) {
	if batch <= 0 {
		batch = alerts.DefaultPruneBatch
	}
	var total alerts.Pruned
	cutoff := sqlrow.Time(before)
	afterAt, afterID := time.Time{}, ""
	for {
		var read int
		var p alerts.Pruned
		var nextAt time.Time
		var nextID string
		var err error
		for try := 1; ; try++ {
			read, p, nextAt, nextID = 0, alerts.Pruned{}, afterAt, afterID
			err = db.tx(ctx, "prune alert history", func(tx pgx.Tx) error {
				rows, err := tx.Query(ctx, pruneCandidates, cutoff, afterAt, afterID, batch)
				if err != nil {
					return err
				}
				var finished []string
				for rows.Next() {
					var done bool
					if err := rows.Scan(&nextID, &nextAt, &done); err != nil {
						rows.Close()
						return err
					}
					read++
					if done {
						finished = append(finished, nextID)
					}
				}
				rows.Close()
				if err := rows.Err(); err != nil {
					return err
				}
				if len(finished) == 0 {
					return nil
				}
				return pruneBatch(ctx, tx, finished, cutoff, &p)
			})
			if err == nil || try == pruneTries || !(errors.Is(err, errPruneRaced) || isDeadlock(err)) {
				break
			}
		}
		if err != nil {
			return total, err
		}
		afterAt, afterID = nextAt, nextID
		p.Batches = 1
		total.Add(p)
		if read < batch {
			return total, nil
		}
	}
}

// pruneBatch deletes the finished events ids and what hangs off them,
// counting the rows in p; errPruneRaced when one of them changed since it
// was read.
func pruneBatch(ctx context.Context, tx pgx.Tx, ids []string, cutoff time.Time, p *alerts.Pruned) error {
	for _, d := range []struct {
		what, query string
		args        []any
		n           *int64
	}{
		{"attempts", pruneAttempts, []any{ids}, &p.Attempts},
		{"deliveries", pruneDeliveries, []any{ids, cutoff}, &p.Deliveries},
		{"emails", pruneEmails, []any{ids}, &p.Emails},
	} {
		tag, err := tx.Exec(ctx, d.query, d.args...)
		if err != nil {
			return fmt.Errorf("%s: %w", d.what, err)
		}
		*d.n = tag.RowsAffected()
	}
	var left int64
	if err := tx.QueryRow(ctx, pruneLeft, ids).Scan(&left); err != nil {
		return fmt.Errorf("what is left: %w", err)
	}
	if left > 0 {
		return errPruneRaced
	}
	tag, err := tx.Exec(ctx, pruneEvents, ids)
	if err != nil {
		return fmt.Errorf("events: %w", err)
	}
	p.Events = tag.RowsAffected()
	return nil
}

// isDeadlock reports whether PostgreSQL ended the transaction to break a
// deadlock (a prune meeting an account's deletion on the same rows).
func isDeadlock(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "40P01"
}
