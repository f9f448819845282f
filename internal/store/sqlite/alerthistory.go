package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"time"

	"github.com/cardcat/cardcat/internal/alerts"
	"github.com/cardcat/cardcat/internal/store/sqlrow"
)

var _ alerts.HistoryStore = (*DB)(nil)

// pruneCandidates are the next events of a prune's walk, older than ?1 and
// after the cursor (?2, ?3), by creation time then id (the index
// alert_events_created, migration 0014), each with whether it is finished:
// every delivery delivered or failed and not resent since ?1, and its email,
// if any, in a final state. A state not named here (a new one) keeps the
// event.
const pruneCandidates = `SELECT e.id, e.created_at,
	NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id
		AND (d.state NOT IN ('delivered', 'failed') OR d.resent_at >= ?1))
	AND NOT EXISTS (SELECT 1 FROM alert_emails m WHERE m.event_id = e.id
		AND m.state NOT IN ('sent', 'failed', 'cancelled', 'capped'))
	FROM alert_events e
	WHERE e.created_at < ?1 AND (e.created_at, e.id) > (?2, ?3)
	ORDER BY e.created_at, e.id LIMIT ?4`

// The deletes of a batch's finished events (a JSON array in ?1) and of what
// hangs off them, the referencing rows first.
const (
	pruneAttempts = `DELETE FROM webhook_attempts WHERE delivery_id IN
	(SELECT id FROM webhook_deliveries WHERE event_id IN (SELECT value FROM json_each(?1)))`
	pruneDeliveries = `DELETE FROM webhook_deliveries WHERE event_id IN (SELECT value FROM json_each(?1))`
	pruneEmails     = `DELETE FROM alert_emails WHERE event_id IN (SELECT value FROM json_each(?1))`
	pruneEvents     = `DELETE FROM alert_events WHERE id IN (SELECT value FROM json_each(?1))`
)

// PruneAlertHistory deletes the finished events created before before, a
// batch per write transaction: the transaction that reads a batch's states
// is the one that deletes it, and SQLite's one writer keeps a resend or a
// claim out in between. Between batches the writer is free for others.
func (db *DB) PruneAlertHistory(ctx context.Context, before time.Time, batch int) (alerts.Pruned, error) {
	if batch <= 0 {
		batch = alerts.DefaultPruneBatch
	}
	var total alerts.Pruned
	cutoff := micros(before)
	afterAt, afterID := int64(math.MinInt64), ""
	for {
		var read int
		var p alerts.Pruned
		err := db.writeTx(ctx, "prune alert history", func(tx *sql.Tx) error {
			read, p = 0, alerts.Pruned{}
			rows, err := tx.QueryContext(ctx, pruneCandidates, cutoff, afterAt, afterID, batch)
			if err != nil {
				return err
			}
			defer rows.Close()
			var finished []string
			for rows.Next() {
				var done bool
				if err := rows.Scan(&afterID, &afterAt, &done); err != nil {
					return err
				}
				read++
				if done {
					finished = append(finished, afterID)
				}
			}
			if err := rows.Err(); err != nil {
				return err
			}
			rows.Close()
			if len(finished) == 0 {
				return nil
			}
			ids := string(sqlrow.AppendStrings(nil, finished))
			for _, d := range []struct {
				what, query string
				n           *int64
			}{
				{"attempts", pruneAttempts, &p.Attempts},
				{"deliveries", pruneDeliveries, &p.Deliveries},
				{"emails", pruneEmails, &p.Emails},
				{"events", pruneEvents, &p.Events},
			} {
				res, err := tx.ExecContext(ctx, d.query, ids)
				if err != nil {
					return fmt.Errorf("%s: %w", d.what, err)
				}
				if *d.n, err = res.RowsAffected(); err != nil {
					return fmt.Errorf("%s: %w", d.what, err)
				}
			}
			return nil
		})
		if err != nil {
			return total, err
		}
		p.Batches = 1
		total.Add(p)
		if read < batch {
			return total, nil
		}
	}
}
