package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/cardcat/cardcat/internal/alerts"
	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/store/sqlrow"
	"github.com/cardcat/cardcat/internal/webhooks"
)

var (
	_ alerts.Store   = (*DB)(nil)
	_ webhooks.Store = (*DB)(nil)
)

const alertColumns = `id, account_id, game, card_id, source, finish, rule, amount_cents, percent, webhook_id, email, paused,
	created_at, armed, last_version, last_price`

func scanAlert(rows *sql.Rows) (alerts.Alert, error) {
	var a alerts.Alert
	var created int64
	var price sql.NullInt64
	err := rows.Scan(&a.ID, &a.AccountID, &a.Game, &a.CardID, &a.Source, &a.Finish, &a.Rule.Kind, &a.Rule.Cents, &a.Rule.Percent,
		&a.WebhookID, &a.Email, &a.Paused, &created, &a.Armed, &a.LastVersion, &price)
	a.CreatedAt = fromMicros(created)
	a.LastPrice = catalog.Money{Cents: price.Int64, OK: price.Valid}
	return a, err
}

func nullMoney(m catalog.Money) any {
	if !m.OK {
		return nil
	}
	return m.Cents
}

// liveAccount reports whether accountID is a live account: a request that
// passed its session check just before the account was deleted must not
// give the deleted account an alert or an endpoint.
func liveAccount(ctx context.Context, tx *sql.Tx, accountID int64) (bool, error) {
	var n int
	err := tx.QueryRowContext(ctx, `SELECT count(*) FROM accounts WHERE id = ? AND deleted_at = 0`, accountID).Scan(&n)
	return n > 0, err
}

// deleteAccountAlerts deletes, in DeleteAccount's transaction, the
// account's alerts, their events and emails (sent or not), its webhook
// endpoints, every delivery to them or of its events, and the deliveries'
// attempts: a deleted account's alerts must not fire again, nor its
// endpoints or its address receive anything.
func deleteAccountAlerts(ctx context.Context, tx *sql.Tx, accountID int64) error {
	const deliveries = `SELECT id FROM webhook_deliveries WHERE endpoint_id IN (SELECT id FROM webhook_endpoints WHERE account_id = ?1)
	OR event_id IN (SELECT id FROM alert_events WHERE account_id = ?1)`
	for _, q := range []string{
		`DELETE FROM alerts WHERE account_id = ?1`,
		`DELETE FROM webhook_attempts WHERE delivery_id IN (` + deliveries + `)`,
		`DELETE FROM webhook_deliveries WHERE id IN (` + deliveries + `)`,
		`DELETE FROM alert_emails WHERE account_id = ?1`,
		`DELETE FROM alert_events WHERE account_id = ?1`,
		`DELETE FROM webhook_endpoints WHERE account_id = ?1`,
	} {
		if _, err := tx.ExecContext(ctx, q, accountID); err != nil {
			return err
		}
	}
	return nil
}

// CreateAlert inserts a unless its account has max alerts.
func (db *DB) CreateAlert(ctx context.Context, a *alerts.Alert, max int) error {
	a.CreatedAt = sqlrow.CreatedAt(a.CreatedAt)
	a.Armed, a.LastVersion, a.LastPrice = true, 0, catalog.Money{}
	return db.writeTx(ctx, "create alert", func(tx *sql.Tx) error {
		if live, err := liveAccount(ctx, tx, a.AccountID); err != nil || !live {
			return cmpErr(err, fmt.Errorf("account %d: %w", a.AccountID, alerts.ErrNotFound))
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM alerts WHERE account_id = ?`, a.AccountID).Scan(&n); err != nil {
			return err
		}
		if n >= max {
			return alerts.ErrLimit
		}
		if a.WebhookID != 0 {
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM webhook_endpoints WHERE id = ? AND account_id = ?`, a.WebhookID, a.AccountID).Scan(&n); err != nil {
				return err
			}
			if n == 0 {
				return fmt.Errorf("webhook %d: %w", a.WebhookID, alerts.ErrNotFound)
			}
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO alerts (account_id, game, card_id, source, finish, rule, amount_cents, percent,
	webhook_id, email, email_token, paused, created_at, armed, last_version, last_price)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, 0, NULL)`,
			a.AccountID, a.Game, a.CardID, string(a.Source), a.Finish, string(a.Rule.Kind), a.Rule.Cents, a.Rule.Percent,
			a.WebhookID, a.Email, newEmailToken(a.Email), a.Paused, micros(a.CreatedAt))
		if err != nil {
			return err
		}
		a.ID, err = res.LastInsertId()
		return err
	})
}

// UpdateAlert changes one of the account's alerts and arms it anew.
func (db *DB) UpdateAlert(ctx context.Context, a *alerts.Alert) error {
	return db.writeTx(ctx, "update alert", func(tx *sql.Tx) error {
		if a.WebhookID != 0 {
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM webhook_endpoints WHERE id = ? AND account_id = ?`, a.WebhookID, a.AccountID).Scan(&n); err != nil {
				return err
			}
			if n == 0 {
				return fmt.Errorf("webhook %d: %w", a.WebhookID, alerts.ErrNotFound)
			}
		}
		// SET's expressions read the row as it was: the last price stays
		// when the alert still watches the same price; the token stays once
		// made.
		res, err := tx.ExecContext(ctx, `UPDATE alerts SET
	last_price = CASE WHEN game = ? AND card_id = ? AND source = ? AND finish = ? THEN last_price END,
	email_token = CASE WHEN email_token = '' THEN ? ELSE email_token END,
	game = ?, card_id = ?, source = ?, finish = ?, rule = ?, amount_cents = ?, percent = ?, webhook_id = ?, email = ?,
	armed = 1, last_version = 0
	WHERE id = ? AND account_id = ?`,
			a.Game, a.CardID, string(a.Source), a.Finish, newEmailToken(a.Email),
			a.Game, a.CardID, string(a.Source), a.Finish, string(a.Rule.Kind), a.Rule.Cents, a.Rule.Percent, a.WebhookID, a.Email,
			a.ID, a.AccountID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return cmpErr(err, alerts.ErrNotFound)
		}
		return nil
	})
}

func (db *DB) readAlerts(ctx context.Context, what, query string, args ...any) ([]alerts.Alert, error) {
	rows, err := db.read.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: %s: %w", what, err)
	}
	defer rows.Close()
	var out []alerts.Alert
	for rows.Next() {
		a, err := scanAlert(rows)
		if err != nil {
			return nil, fmt.Errorf("sqlite: %s: %w", what, err)
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: %s: %w", what, err)
	}
	return out, nil
}

// Alerts are the account's alerts, oldest first.
func (db *DB) Alerts(ctx context.Context, accountID int64) ([]alerts.Alert, error) {
	return db.readAlerts(ctx, "alerts", `SELECT `+alertColumns+` FROM alerts WHERE account_id = ? ORDER BY id`, accountID)
}

// PendingAlerts are the alerts to evaluate at version, after afterID.
func (db *DB) PendingAlerts(ctx context.Context, version, afterID int64, limit int) ([]alerts.Alert, error) {
	return db.readAlerts(ctx, "pending alerts", `SELECT `+alertColumns+` FROM alerts
	WHERE id > ? AND paused = 0 AND last_version < ? ORDER BY id LIMIT ?`, afterID, version, limit)
}

func (db *DB) changeAlert(ctx context.Context, what, query string, args ...any) error {
	return db.writeTx(ctx, what, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, query, args...)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return cmpErr(err, alerts.ErrNotFound)
		}
		return nil
	})
}

func cmpErr(err, otherwise error) error {
	if err != nil {
		return err
	}
	return otherwise
}

// SetAlertPaused pauses or resumes one of the account's alerts.
func (db *DB) SetAlertPaused(ctx context.Context, accountID, id int64, paused bool) error {
	return db.changeAlert(ctx, "pause alert", `UPDATE alerts SET paused = ? WHERE id = ? AND account_id = ?`, paused, id, accountID)
}

// DeleteAlert deletes one of the account's alerts.
func (db *DB) DeleteAlert(ctx context.Context, accountID, id int64) error {
	return db.changeAlert(ctx, "delete alert", `DELETE FROM alerts WHERE id = ? AND account_id = ?`, id, accountID)
}

// RecordEvaluations writes the evaluations of version, each only once, with
// statements prepared once per call: parsing a statement costs more than
// running it, and one call writes a whole batch. A kept state moves only
// last_version; the events of the alerts actually written go in multi-row
// INSERTs, before their deliveries and emails (which reference them).
func (db *DB) RecordEvaluations(ctx context.Context, version int64, evs []alerts.Evaluation, emailsPerHour int) (rec alerts.Recorded, err error) {
	err = db.writeTx(ctx, "record alert evaluations", func(tx *sql.Tx) error {
		rec = alerts.Recorded{}
		state, err := tx.PrepareContext(ctx, `UPDATE alerts SET armed = ?, last_version = ?, last_price = ?
	WHERE id = ? AND paused = 0 AND last_version < ?`)
		if err != nil {
			return err
		}
		defer state.Close()
		kept, err := tx.PrepareContext(ctx, `UPDATE alerts SET last_version = ? WHERE id = ? AND paused = 0 AND last_version < ?`)
		if err != nil {
			return err
		}
		defer kept.Close()
		var written []*alerts.Event
		var emails []*alerts.Evaluation
		for i, ev := range evs {
			var res sql.Result
			if ev.Kept {
				res, err = kept.ExecContext(ctx, version, ev.AlertID, version)
			} else {
				res, err = state.ExecContext(ctx, ev.Armed, version, nullMoney(ev.Price), ev.AlertID, version)
			}
			if err != nil {
				return err
			}
			if ev.Event == nil {
				continue
			}
			if n, err := res.RowsAffected(); err != nil || n == 0 {
				if err != nil {
					return err
				}
				continue
			}
			written = append(written, ev.Event)
			if ev.Email {
				emails = append(emails, &evs[i])
			}
		}
		if len(written) == 0 {
			return nil
		}
		events := newBatch(tx, "alert_events", "id", "account_id", "alert_id", "version", "created_at", "body")
		defer events.close()
		for _, e := range written {
			if err := events.add(ctx, e.ID, e.AccountID, e.AlertID, e.Version, micros(e.Created), e.Body); err != nil {
				return err
			}
		}
		if err := events.flush(ctx); err != nil {
			return err
		}
		rec.Fired = len(written)
		deliver, err := tx.PrepareContext(ctx, `INSERT INTO webhook_deliveries (event_id, endpoint_id, state, attempts, next_at, created_at)
	SELECT ?, id, 'pending', 0, ?, ? FROM webhook_endpoints WHERE id = ? AND account_id = ?`)
		if err != nil {
			return err
		}
		defer deliver.Close()
		for _, e := range written {
			if e.WebhookID == 0 {
				continue
			}
			res, err := deliver.ExecContext(ctx, e.ID, micros(e.Created), micros(e.Created), e.WebhookID, e.AccountID)
			if err != nil {
				return err
			}
			n, err := res.RowsAffected()
			if err != nil {
				return err
			}
			rec.Queued += int(n)
		}
		return queueEmails(ctx, tx, emails, emailsPerHour, &rec)
	})
	return rec, err
}

// Events are the account's events, newest first.
func (db *DB) Events(ctx context.Context, accountID int64, limit int) ([]alerts.Event, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT id, account_id, alert_id, version, created_at, body, test FROM alert_events
	WHERE account_id = ? ORDER BY created_at DESC, id DESC LIMIT ?`, accountID, limit)
	if err != nil {
		return nil, fmt.Errorf("sqlite: events: %w", err)
	}
	defer rows.Close()
	var out []alerts.Event
	for rows.Next() {
		var e alerts.Event
		var created int64
		if err := rows.Scan(&e.ID, &e.AccountID, &e.AlertID, &e.Version, &created, &e.Body, &e.Test); err != nil {
			return nil, fmt.Errorf("sqlite: events: %w", err)
		}
		e.Created = fromMicros(created)
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: events: %w", err)
	}
	return out, nil
}

// QueueTestEvent writes a test event and queues its delivery.
func (db *DB) QueueTestEvent(ctx context.Context, e *alerts.Event) error {
	return db.writeTx(ctx, "queue test event", func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM webhook_endpoints WHERE id = ? AND account_id = ?`, e.WebhookID, e.AccountID).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("webhook %d: %w", e.WebhookID, alerts.ErrNotFound)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO alert_events (id, account_id, alert_id, version, created_at, body, test) VALUES (?, ?, ?, ?, ?, ?, 1)`,
			e.ID, e.AccountID, e.AlertID, e.Version, micros(e.Created), e.Body); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO webhook_deliveries (event_id, endpoint_id, state, attempts, next_at, created_at) VALUES (?, ?, 'pending', 0, ?, ?)`,
			e.ID, e.WebhookID, micros(e.Created), micros(e.Created))
		return err
	})
}

// CreateEndpoint inserts e unless its account has max endpoints.
func (db *DB) CreateEndpoint(ctx context.Context, e *webhooks.Endpoint, max int) error {
	e.CreatedAt = sqlrow.CreatedAt(e.CreatedAt)
	return db.writeTx(ctx, "create webhook endpoint", func(tx *sql.Tx) error {
		if live, err := liveAccount(ctx, tx, e.AccountID); err != nil || !live {
			return cmpErr(err, fmt.Errorf("account %d: %w", e.AccountID, webhooks.ErrNotFound))
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM webhook_endpoints WHERE account_id = ?`, e.AccountID).Scan(&n); err != nil {
			return err
		}
		if n >= max {
			return webhooks.ErrLimit
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO webhook_endpoints (account_id, url, secret, created_at) VALUES (?, ?, ?, ?)`,
			e.AccountID, e.URL, e.Secret, micros(e.CreatedAt))
		if err != nil {
			return err
		}
		e.ID, err = res.LastInsertId()
		return err
	})
}

// Endpoints are the account's endpoints, oldest first.
func (db *DB) Endpoints(ctx context.Context, accountID int64) ([]webhooks.Endpoint, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT id, account_id, url, secret, created_at, previous_secret, previous_until
	FROM webhook_endpoints WHERE account_id = ? ORDER BY id`, accountID)
	if err != nil {
		return nil, fmt.Errorf("sqlite: webhook endpoints: %w", err)
	}
	defer rows.Close()
	var out []webhooks.Endpoint
	for rows.Next() {
		var e webhooks.Endpoint
		var created, until int64
		if err := rows.Scan(&e.ID, &e.AccountID, &e.URL, &e.Secret, &created, &e.PreviousSecret, &until); err != nil {
			return nil, fmt.Errorf("sqlite: webhook endpoints: %w", err)
		}
		e.CreatedAt, e.PreviousUntil = fromMicros(created), fromMicrosOrZero(until)
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: webhook endpoints: %w", err)
	}
	return out, nil
}

const deliveryColumns = `d.id, d.event_id, d.endpoint_id, w.url, w.secret, e.body, d.state, d.attempts, d.created_at, d.next_at,
	w.previous_secret, w.previous_until, d.resent_at, d.resent_after, e.test
	FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id JOIN alert_events e ON e.id = d.event_id`

func scanDelivery(sc interface{ Scan(...any) error }) (webhooks.Delivery, error) {
	d, _, err := scanLoggedDelivery(sc)
	return d, err
}

func scanLoggedDelivery(sc interface{ Scan(...any) error }) (webhooks.Delivery, bool, error) {
	var d webhooks.Delivery
	var created, next, until, resent int64
	var test bool
	err := sc.Scan(&d.ID, &d.EventID, &d.EndpointID, &d.URL, &d.Secret, &d.Body, &d.State, &d.Attempts, &created, &next,
		&d.PreviousSecret, &until, &resent, &d.ResentAfter, &test)
	d.CreatedAt, d.NextAt = fromMicros(created), fromMicros(next)
	d.PreviousUntil, d.ResentAt = fromMicrosOrZero(until), fromMicrosOrZero(resent)
	return d, test, err
}

// anyDue runs a queue's "is anything due at now?" query on the read pool:
// an idle worker's poll (one a second each) then costs a read, not a write
// transaction that finds nothing (a few times its time, on the core that
// serves requests). An item that falls due just after is the next poll's.
func (db *DB) anyDue(ctx context.Context, queue, query string, now time.Time) (bool, error) {
	var due bool
	if err := db.read.QueryRowContext(ctx, query, micros(now)).Scan(&due); err != nil {
		return false, fmt.Errorf("sqlite: due %s: %w", queue, err)
	}
	return due, nil
}

// fromMicrosOrZero reads a time kept as 0 for none.
func fromMicrosOrZero(us int64) time.Time {
	if us == 0 {
		return time.Time{}
	}
	return fromMicros(us)
}

// deliveriesDue says whether a delivery is due (anyDue), by
// webhook_deliveries_due.
const deliveriesDue = `SELECT EXISTS (SELECT 1 FROM webhook_deliveries WHERE state IN ('pending', 'delivering') AND next_at <= ?)`

// ClaimDelivery claims the delivery due first. SQLite has one writer: the
// write transaction is the claim's lock.
func (db *DB) ClaimDelivery(ctx context.Context, now time.Time, lease time.Duration) (webhooks.Delivery, error) {
	var d webhooks.Delivery
	if due, err := db.anyDue(ctx, "webhook deliveries", deliveriesDue, now); err != nil || !due {
		return d, cmpErr(err, webhooks.ErrNoDelivery)
	}
	err := db.writeTx(ctx, "claim webhook delivery", func(tx *sql.Tx) error {
		var id int64
		err := tx.QueryRowContext(ctx, `UPDATE webhook_deliveries SET state = 'delivering', attempts = attempts + 1, next_at = ?
	WHERE id = (SELECT id FROM webhook_deliveries WHERE state IN ('pending', 'delivering') AND next_at <= ? ORDER BY next_at, id LIMIT 1)
	RETURNING id`, micros(now.Add(lease)), micros(now)).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			return webhooks.ErrNoDelivery
		}
		if err != nil {
			return err
		}
		d, err = scanDelivery(tx.QueryRowContext(ctx, `SELECT `+deliveryColumns+` WHERE d.id = ?`, id))
		return err
	})
	if errors.Is(err, webhooks.ErrNoDelivery) {
		return d, webhooks.ErrNoDelivery
	}
	return d, err
}

// FinishDelivery records an attempt of a claimed delivery and its state.
func (db *DB) FinishDelivery(ctx context.Context, d webhooks.Delivery, a webhooks.Attempt, state webhooks.State, next time.Time) error {
	err := db.writeTx(ctx, "finish webhook delivery", func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE webhook_deliveries SET state = ?, next_at = ? WHERE id = ? AND state = 'delivering' AND attempts = ?`,
			string(state), microsOrZero(next), d.ID, d.Attempts)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return cmpErr(err, webhooks.ErrLeaseLost)
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO webhook_attempts (delivery_id, n, at, status, duration_us, error, response) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			d.ID, a.N, micros(a.At), a.Status, a.Duration.Microseconds(), a.Error, a.Response)
		return err
	})
	if errors.Is(err, webhooks.ErrLeaseLost) {
		return webhooks.ErrLeaseLost
	}
	return err
}

// Deliveries are an event's deliveries, by ID.
func (db *DB) Deliveries(ctx context.Context, eventID string) ([]webhooks.Delivery, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT `+deliveryColumns+` WHERE d.event_id = ? ORDER BY d.id`, eventID)
	if err != nil {
		return nil, fmt.Errorf("sqlite: webhook deliveries: %w", err)
	}
	defer rows.Close()
	var out []webhooks.Delivery
	for rows.Next() {
		d, err := scanDelivery(rows)
		if err != nil {
			return nil, fmt.Errorf("sqlite: webhook deliveries: %w", err)
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: webhook deliveries: %w", err)
	}
	return out, nil
}

// Attempts are a delivery's attempts, first first.
func (db *DB) Attempts(ctx context.Context, deliveryID int64) ([]webhooks.Attempt, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT delivery_id, n, at, status, duration_us, error, response FROM webhook_attempts
	WHERE delivery_id = ? ORDER BY n`, deliveryID)
	if err != nil {
		return nil, fmt.Errorf("sqlite: webhook attempts: %w", err)
	}
	defer rows.Close()
	var out []webhooks.Attempt
	for rows.Next() {
		var a webhooks.Attempt
		var at, us int64
		if err := rows.Scan(&a.DeliveryID, &a.N, &at, &a.Status, &us, &a.Error, &a.Response); err != nil {
			return nil, fmt.Errorf("sqlite: webhook attempts: %w", err)
		}
		a.At, a.Duration = fromMicros(at), time.Duration(us)*time.Microsecond
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: webhook attempts: %w", err)
	}
	return out, nil
}

// DeleteEndpoint deletes one of the account's endpoints, its deliveries and
// their attempts, and detaches the alerts that sent to it.
func (db *DB) DeleteEndpoint(ctx context.Context, accountID, id int64) error {
	return db.writeTx(ctx, "delete webhook endpoint", func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM webhook_endpoints WHERE id = ? AND account_id = ?`, id, accountID).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return webhooks.ErrNotFound
		}
		for _, q := range []string{
			`DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM webhook_deliveries WHERE endpoint_id = ?)`,
			`DELETE FROM webhook_deliveries WHERE endpoint_id = ?`,
			`UPDATE alerts SET webhook_id = 0 WHERE webhook_id = ?`,
			`DELETE FROM webhook_endpoints WHERE id = ?`,
		} {
			if _, err := tx.ExecContext(ctx, q, id); err != nil {
				return err
			}
		}
		return nil
	})
}

// RotateSecret replaces an endpoint's secret, the old one signing beside it
// until previousUntil.
func (db *DB) RotateSecret(ctx context.Context, accountID, id int64, secret string, previousUntil time.Time) error {
	return db.writeTx(ctx, "rotate webhook secret", func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE webhook_endpoints SET
	previous_secret = CASE WHEN ? > 0 THEN secret ELSE '' END, previous_until = ?, secret = ?
	WHERE id = ? AND account_id = ?`, microsOrZero(previousUntil), microsOrZero(previousUntil), secret, id, accountID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return cmpErr(err, webhooks.ErrNotFound)
		}
		return nil
	})
}

// DeliveryLog is an endpoint's deliveries, newest first, with their
// attempts.
func (db *DB) DeliveryLog(ctx context.Context, accountID, endpointID, beforeID int64, limit int) ([]webhooks.LoggedDelivery, error) {
	var n int
	if err := db.read.QueryRowContext(ctx, `SELECT count(*) FROM webhook_endpoints WHERE id = ? AND account_id = ?`, endpointID, accountID).Scan(&n); err != nil {
		return nil, fmt.Errorf("sqlite: webhook delivery log: %w", err)
	}
	if n == 0 {
		return nil, webhooks.ErrNotFound
	}
	if beforeID <= 0 {
		beforeID = math.MaxInt64
	}
	rows, err := db.read.QueryContext(ctx, `SELECT `+deliveryColumns+` WHERE d.endpoint_id = ? AND d.id < ? ORDER BY d.id DESC LIMIT ?`,
		endpointID, beforeID, limit)
	if err != nil {
		return nil, fmt.Errorf("sqlite: webhook delivery log: %w", err)
	}
	defer rows.Close()
	var out []webhooks.LoggedDelivery
	for rows.Next() {
		d, test, err := scanLoggedDelivery(rows)
		if err != nil {
			return nil, fmt.Errorf("sqlite: webhook delivery log: %w", err)
		}
		d.Secret, d.PreviousSecret, d.Body = "", "", nil
		out = append(out, webhooks.LoggedDelivery{Delivery: d, Test: test})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: webhook delivery log: %w", err)
	}
	rows.Close()
	for i := range out {
		if out[i].Log, err = db.Attempts(ctx, out[i].ID); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ResendDelivery queues a delivery to one of the account's endpoints again
// at now.
func (db *DB) ResendDelivery(ctx context.Context, accountID, endpointID, deliveryID int64, now time.Time) error {
	return db.writeTx(ctx, "resend webhook delivery", func(tx *sql.Tx) error {
		var state string
		var next int64
		err := tx.QueryRowContext(ctx, `SELECT d.state, d.next_at FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id
	WHERE d.id = ? AND d.endpoint_id = ? AND w.account_id = ?`, deliveryID, endpointID, accountID).Scan(&state, &next)
		if errors.Is(err, sql.ErrNoRows) {
			return webhooks.ErrNotFound
		}
		if err != nil {
			return err
		}
		if webhooks.State(state) == webhooks.Delivering && next > micros(now) {
			return webhooks.ErrInFlight
		}
		_, err = tx.ExecContext(ctx, `UPDATE webhook_deliveries SET state = 'pending', next_at = ?, resent_at = ?, resent_after = attempts WHERE id = ?`,
			micros(now), micros(now), deliveryID)
		return err
	})
}
