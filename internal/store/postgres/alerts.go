package postgres

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/jackc/pgx/v5"

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

func scanAlert(rows pgx.Rows) (alerts.Alert, error) {
	var a alerts.Alert
	var price *int64
	err := rows.Scan(&a.ID, &a.AccountID, &a.Game, &a.CardID, &a.Source, &a.Finish, &a.Rule.Kind, &a.Rule.Cents, &a.Rule.Percent,
		&a.WebhookID, &a.Email, &a.Paused, &a.CreatedAt, &a.Armed, &a.LastVersion, &price)
	a.CreatedAt = a.CreatedAt.UTC()
	if price != nil {
		a.LastPrice = catalog.Cents(*price)
	}
	return a, err
}

// lockAccount serializes the writes that count an account's rows (a limit
// checked and then inserted), across connections and replicas, and with
// DeleteAccount: it reports whether the account is live once locked, so
// that a request that passed its session check just before the account was
// deleted cannot give the deleted account an alert or an endpoint.
func lockAccount(ctx context.Context, tx pgx.Tx, accountID int64) (live bool, err error) {
	var n int
	err = tx.QueryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM accounts WHERE id = $1 AND deleted_at IS NULL FOR UPDATE) a`, accountID).Scan(&n)
	return n > 0, err
}

// deleteAccountAlerts deletes, in DeleteAccount's transaction, the
// account's alerts, their events and emails (sent or not), its webhook
// endpoints, every delivery to them or of its events, and the deliveries'
// attempts: a deleted account's alerts must not fire again, nor its
// endpoints or its address receive anything. The alerts go first: deleting
// them waits for an evaluation that holds them (RecordEvaluations locks the
// alerts it moves, then queues their deliveries and emails) to commit, so
// that its deliveries and emails are deleted next; a later evaluation finds
// the alerts gone and queues nothing. An email a worker holds is deleted
// too (its row lock waits for the claim's short transaction, not for the
// sending): the worker's FinishEmail then finds it gone.
func deleteAccountAlerts(ctx context.Context, tx pgx.Tx, accountID int64) error {
	const deliveries = `SELECT id FROM webhook_deliveries WHERE endpoint_id IN (SELECT id FROM webhook_endpoints WHERE account_id = $1)
	OR event_id IN (SELECT id FROM alert_events WHERE account_id = $1)`
	for _, q := range []string{
		`DELETE FROM alerts WHERE account_id = $1`,
		`DELETE FROM webhook_attempts WHERE delivery_id IN (` + deliveries + `)`,
		`DELETE FROM webhook_deliveries WHERE id IN (` + deliveries + `)`,
		`DELETE FROM alert_emails WHERE account_id = $1`,
		`DELETE FROM alert_events WHERE account_id = $1`,
		`DELETE FROM webhook_endpoints WHERE account_id = $1`,
	} {
		if _, err := tx.Exec(ctx, q, accountID); err != nil {
			return err
		}
	}
	return nil
}

// CreateAlert inserts a unless its account has max alerts.
func (db *DB) CreateAlert(ctx context.Context, a *alerts.Alert, max int) error {
	a.CreatedAt = sqlrow.CreatedAt(a.CreatedAt)
	a.Armed, a.LastVersion, a.LastPrice = true, 0, catalog.Money{}
	return db.tx(ctx, "create alert", func(tx pgx.Tx) error {
		live, err := lockAccount(ctx, tx, a.AccountID)
		if err != nil {
			return err
		}
		if !live {
			return fmt.Errorf("account %d: %w", a.AccountID, alerts.ErrNotFound)
		}
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM alerts WHERE account_id = $1`, a.AccountID).Scan(&n); err != nil {
			return err
		}
		if n >= max {
			return alerts.ErrLimit
		}
		if a.WebhookID != 0 {
			if err := tx.QueryRow(ctx, `SELECT count(*) FROM webhook_endpoints WHERE id = $1 AND account_id = $2`, a.WebhookID, a.AccountID).Scan(&n); err != nil {
				return err
			}
			if n == 0 {
				return fmt.Errorf("webhook %d: %w", a.WebhookID, alerts.ErrNotFound)
			}
		}
		return tx.QueryRow(ctx, `INSERT INTO alerts (account_id, game, card_id, source, finish, rule, amount_cents, percent,
	webhook_id, email, email_token, paused, created_at, armed, last_version, last_price)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, true, 0, NULL)
	RETURNING id`,
			a.AccountID, a.Game, a.CardID, string(a.Source), a.Finish, string(a.Rule.Kind), a.Rule.Cents, a.Rule.Percent,
			a.WebhookID, a.Email, newEmailToken(a.Email), a.Paused, a.CreatedAt).Scan(&a.ID)
	})
}

// UpdateAlert changes one of the account's alerts and arms it anew.
func (db *DB) UpdateAlert(ctx context.Context, a *alerts.Alert) error {
	return db.tx(ctx, "update alert", func(tx pgx.Tx) error {
		if a.WebhookID != 0 {
			var n int
			if err := tx.QueryRow(ctx, `SELECT count(*) FROM webhook_endpoints WHERE id = $1 AND account_id = $2`, a.WebhookID, a.AccountID).Scan(&n); err != nil {
				return err
			}
			if n == 0 {
				return fmt.Errorf("webhook %d: %w", a.WebhookID, alerts.ErrNotFound)
			}
		}
		// SET's expressions read the row as it was: the last price stays
		// when the alert still watches the same price; the token stays once
		// made.
		tag, err := tx.Exec(ctx, `UPDATE alerts SET
	last_price = CASE WHEN game = $1 AND card_id = $2 AND source = $3 AND finish = $4 THEN last_price END,
	email_token = CASE WHEN email_token = '' THEN $11 ELSE email_token END,
	game = $1, card_id = $2, source = $3, finish = $4, rule = $5, amount_cents = $6, percent = $7, webhook_id = $8, email = $12,
	armed = true, last_version = 0
	WHERE id = $9 AND account_id = $10`,
			a.Game, a.CardID, string(a.Source), a.Finish, string(a.Rule.Kind), a.Rule.Cents, a.Rule.Percent, a.WebhookID, a.ID, a.AccountID,
			newEmailToken(a.Email), a.Email)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return alerts.ErrNotFound
		}
		return nil
	})
}

func (db *DB) readAlerts(ctx context.Context, what, query string, args ...any) ([]alerts.Alert, error) {
	rows, err := db.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("postgres: %s: %w", what, err)
	}
	defer rows.Close()
	var out []alerts.Alert
	for rows.Next() {
		a, err := scanAlert(rows)
		if err != nil {
			return nil, fmt.Errorf("postgres: %s: %w", what, err)
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres: %s: %w", what, err)
	}
	return out, nil
}

// Alerts are the account's alerts, oldest first.
func (db *DB) Alerts(ctx context.Context, accountID int64) ([]alerts.Alert, error) {
	return db.readAlerts(ctx, "alerts", `SELECT `+alertColumns+` FROM alerts WHERE account_id = $1 ORDER BY id`, accountID)
}

// PendingAlerts are the alerts to evaluate at version, after afterID.
func (db *DB) PendingAlerts(ctx context.Context, version, afterID int64, limit int) ([]alerts.Alert, error) {
	return db.readAlerts(ctx, "pending alerts", `SELECT `+alertColumns+` FROM alerts
	WHERE id > $1 AND NOT paused AND last_version < $2 ORDER BY id LIMIT $3`, afterID, version, limit)
}

func (db *DB) changeAlert(ctx context.Context, what, query string, args ...any) error {
	tag, err := db.pool.Exec(ctx, query, args...)
	if err == nil && tag.RowsAffected() == 0 {
		err = alerts.ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("postgres: %s: %w", what, err)
	}
	return nil
}

// SetAlertPaused pauses or resumes one of the account's alerts.
func (db *DB) SetAlertPaused(ctx context.Context, accountID, id int64, paused bool) error {
	return db.changeAlert(ctx, "pause alert", `UPDATE alerts SET paused = $1 WHERE id = $2 AND account_id = $3`, paused, id, accountID)
}

// DeleteAlert deletes one of the account's alerts.
func (db *DB) DeleteAlert(ctx context.Context, accountID, id int64) error {
	return db.changeAlert(ctx, "delete alert", `DELETE FROM alerts WHERE id = $1 AND account_id = $2`, id, accountID)
}

// RecordEvaluations writes the evaluations of version, each only once: one
// statement updates every alert of the batch whose last version is still
// below version (the row locks it takes make a second writer of the same
// alerts wait, then find them evaluated), and returns those it updated;
// only their events are written. A kept state leaves armed and last_price
// as they are. The events and then their deliveries go in one INSERT each:
// a few round trips per batch rather than some per alert; so do the
// emails.
func (db *DB) RecordEvaluations(ctx context.Context, version int64, evs []alerts.Evaluation, emailsPerHour int) (rec alerts.Recorded, err error) {
	ids := make([]int64, len(evs))
	kept := make([]bool, len(evs))
	armed := make([]bool, len(evs))
	prices := make([]*int64, len(evs))
	fires := make(map[int64]*alerts.Evaluation)
	for i, ev := range evs {
		ids[i], kept[i], armed[i] = ev.AlertID, ev.Kept, ev.Armed
		if ev.Price.OK {
			prices[i] = &ev.Price.Cents
		}
		if ev.Event != nil {
			fires[ev.AlertID] = &evs[i]
		}
	}
	err = db.tx(ctx, "record alert evaluations", func(tx pgx.Tx) error {
		rec = alerts.Recorded{}
		rows, err := tx.Query(ctx, `UPDATE alerts a SET last_version = $1,
	armed = CASE WHEN v.kept THEN a.armed ELSE v.armed END, last_price = CASE WHEN v.kept THEN a.last_price ELSE v.price END
	FROM unnest($2::bigint[], $3::boolean[], $4::boolean[], $5::bigint[]) AS v (id, kept, armed, price)
	WHERE a.id = v.id AND NOT a.paused AND a.last_version < $1
	RETURNING a.id`, version, ids, kept, armed, prices)
		if err != nil {
			return err
		}
		var (
			eventIDs, bodies         = []string{}, [][]byte{}
			accounts, alertIDs, vers = []int64{}, []int64{}, []int64{}
			hooks                    = []int64{}
			created                  = []time.Time{}
			emails                   []*alerts.Evaluation
		)
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			if ev := fires[id]; ev != nil {
				e := ev.Event
				eventIDs, bodies = append(eventIDs, e.ID), append(bodies, e.Body)
				accounts, alertIDs, vers = append(accounts, e.AccountID), append(alertIDs, e.AlertID), append(vers, e.Version)
				hooks, created = append(hooks, e.WebhookID), append(created, sqlrow.Time(e.Created))
				if ev.Email {
					emails = append(emails, ev)
				}
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if len(eventIDs) == 0 {
			return nil
		}
		tag, err := tx.Exec(ctx, `INSERT INTO alert_events (id, account_id, alert_id, version, created_at, body)
	SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[], $5::timestamptz[], $6::bytea[])`,
			eventIDs, accounts, alertIDs, vers, created, bodies)
		if err != nil {
			return err
		}
		rec.Fired = int(tag.RowsAffected())
		tag, err = tx.Exec(ctx, `INSERT INTO webhook_deliveries (event_id, endpoint_id, state, attempts, next_at, created_at)
	SELECT v.id, w.id, 'pending', 0, v.at, v.at
	FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::timestamptz[]) AS v (id, hook, account, at)
	JOIN webhook_endpoints w ON w.id = v.hook AND w.account_id = v.account`, eventIDs, hooks, accounts, created)
		if err != nil {
			return err
		}
		rec.Queued = int(tag.RowsAffected())
		return queueEmails(ctx, tx, emails, emailsPerHour, &rec)
	})
	return rec, err
}

// Events are the account's events, newest first.
func (db *DB) Events(ctx context.Context, accountID int64, limit int) ([]alerts.Event, error) {
	rows, err := db.pool.Query(ctx, `SELECT id, account_id, alert_id, version, created_at, body, test FROM alert_events
	WHERE account_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`, accountID, limit)
	if err != nil {
		return nil, fmt.Errorf("postgres: events: %w", err)
	}
	defer rows.Close()
	var out []alerts.Event
	for rows.Next() {
		var e alerts.Event
		if err := rows.Scan(&e.ID, &e.AccountID, &e.AlertID, &e.Version, &e.Created, &e.Body, &e.Test); err != nil {
			return nil, fmt.Errorf("postgres: events: %w", err)
		}
		e.Created = e.Created.UTC()
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres: events: %w", err)
	}
	return out, nil
}

// QueueTestEvent writes a test event and queues its delivery.
func (db *DB) QueueTestEvent(ctx context.Context, e *alerts.Event) error {
	return db.tx(ctx, "queue test event", func(tx pgx.Tx) error {
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM webhook_endpoints WHERE id = $1 AND account_id = $2`, e.WebhookID, e.AccountID).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("webhook %d: %w", e.WebhookID, alerts.ErrNotFound)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO alert_events (id, account_id, alert_id, version, created_at, body, test) VALUES ($1, $2, $3, $4, $5, $6, true)`,
			e.ID, e.AccountID, e.AlertID, e.Version, sqlrow.Time(e.Created), e.Body); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO webhook_deliveries (event_id, endpoint_id, state, attempts, next_at, created_at) VALUES ($1, $2, 'pending', 0, $3, $3)`,
			e.ID, e.WebhookID, sqlrow.Time(e.Created))
		return err
	})
}

// CreateEndpoint inserts e unless its account has max endpoints.
func (db *DB) CreateEndpoint(ctx context.Context, e *webhooks.Endpoint, max int) error {
	e.CreatedAt = sqlrow.CreatedAt(e.CreatedAt)
	return db.tx(ctx, "create webhook endpoint", func(tx pgx.Tx) error {
		live, err := lockAccount(ctx, tx, e.AccountID)
		if err != nil {
			return err
		}
		if !live {
			return fmt.Errorf("account %d: %w", e.AccountID, webhooks.ErrNotFound)
		}
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM webhook_endpoints WHERE account_id = $1`, e.AccountID).Scan(&n); err != nil {
			return err
		}
		if n >= max {
			return webhooks.ErrLimit
		}
		return tx.QueryRow(ctx, `INSERT INTO webhook_endpoints (account_id, url, secret, created_at) VALUES ($1, $2, $3, $4) RETURNING id`,
			e.AccountID, e.URL, e.Secret, e.CreatedAt).Scan(&e.ID)
	})
}

// Endpoints are the account's endpoints, oldest first.
func (db *DB) Endpoints(ctx context.Context, accountID int64) ([]webhooks.Endpoint, error) {
	rows, err := db.pool.Query(ctx, `SELECT id, account_id, url, secret, created_at, previous_secret, previous_until
	FROM webhook_endpoints WHERE account_id = $1 ORDER BY id`, accountID)
	if err != nil {
		return nil, fmt.Errorf("postgres: webhook endpoints: %w", err)
	}
	defer rows.Close()
	var out []webhooks.Endpoint
	for rows.Next() {
		var e webhooks.Endpoint
		var until *time.Time
		if err := rows.Scan(&e.ID, &e.AccountID, &e.URL, &e.Secret, &e.CreatedAt, &e.PreviousSecret, &until); err != nil {
			return nil, fmt.Errorf("postgres: webhook endpoints: %w", err)
		}
		e.CreatedAt, e.PreviousUntil = e.CreatedAt.UTC(), timeOrZero(until)
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres: webhook endpoints: %w", err)
	}
	return out, nil
}

const deliveryColumns = `d.id, d.event_id, d.endpoint_id, w.url, w.secret, e.body, d.state, d.attempts, d.created_at, d.next_at,
	w.previous_secret, w.previous_until, d.resent_at, d.resent_after, e.test`

const deliveryJoin = ` JOIN webhook_endpoints w ON w.id = d.endpoint_id JOIN alert_events e ON e.id = d.event_id`

func scanDelivery(sc interface{ Scan(...any) error }) (webhooks.Delivery, error) {
	d, _, err := scanLoggedDelivery(sc)
	return d, err
}

func scanLoggedDelivery(sc interface{ Scan(...any) error }) (webhooks.Delivery, bool, error) {
	var d webhooks.Delivery
	var until, resent *time.Time
	var test bool
	err := sc.Scan(&d.ID, &d.EventID, &d.EndpointID, &d.URL, &d.Secret, &d.Body, &d.State, &d.Attempts, &d.CreatedAt, &d.NextAt,
		&d.PreviousSecret, &until, &resent, &d.ResentAfter, &test)
	d.CreatedAt, d.NextAt = d.CreatedAt.UTC(), d.NextAt.UTC()
	d.PreviousUntil, d.ResentAt = timeOrZero(until), timeOrZero(resent)
	return d, test, err
}

// timeOrZero reads a time kept as NULL for none.
func timeOrZero(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.UTC()
}

// ClaimDelivery claims the delivery due first: SKIP LOCKED passes over the
// rows other replicas are claiming at the same moment, so that each takes
// another, and the lease (next_at of a delivering row) keeps it theirs
// while they send it.
func (db *DB) ClaimDelivery(ctx context.Context, now time.Time, lease time.Duration) (webhooks.Delivery, error) {
	d, err := scanDelivery(db.pool.QueryRow(ctx, `WITH c AS (
	SELECT id FROM webhook_deliveries WHERE state IN ('pending', 'delivering') AND next_at <= $1
	ORDER BY next_at, id LIMIT 1 FOR UPDATE SKIP LOCKED
), d AS (
	UPDATE webhook_deliveries u SET state = 'delivering', attempts = u.attempts + 1, next_at = $2
	FROM c WHERE u.id = c.id
	RETURNING u.id, u.event_id, u.endpoint_id, u.state, u.attempts, u.created_at, u.next_at, u.resent_at, u.resent_after
)
SELECT `+deliveryColumns+` FROM d`+deliveryJoin, sqlrow.Time(now), sqlrow.Time(now.Add(lease))))
	if errors.Is(err, pgx.ErrNoRows) {
		return d, webhooks.ErrNoDelivery
	}
	if err != nil {
		return d, fmt.Errorf("postgres: claim webhook delivery: %w", err)
	}
	return d, nil
}

// FinishDelivery records an attempt of a claimed delivery and its state.
func (db *DB) FinishDelivery(ctx context.Context, d webhooks.Delivery, a webhooks.Attempt, state webhooks.State, next time.Time) error {
	if next.IsZero() {
		next = a.At
	}
	err := db.tx(ctx, "finish webhook delivery", func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE webhook_deliveries SET state = $1, next_at = $2 WHERE id = $3 AND state = 'delivering' AND attempts = $4`,
			string(state), sqlrow.Time(next), d.ID, d.Attempts)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return webhooks.ErrLeaseLost
		}
		_, err = tx.Exec(ctx, `INSERT INTO webhook_attempts (delivery_id, n, at, status, duration_us, error, response) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
			d.ID, a.N, sqlrow.Time(a.At), a.Status, a.Duration.Microseconds(), a.Error, a.Response)
		return err
	})
	if errors.Is(err, webhooks.ErrLeaseLost) {
		return webhooks.ErrLeaseLost
	}
	return err
}

// Deliveries are an event's deliveries, by ID.
func (db *DB) Deliveries(ctx context.Context, eventID string) ([]webhooks.Delivery, error) {
	rows, err := db.pool.Query(ctx, `SELECT `+deliveryColumns+` FROM webhook_deliveries d`+deliveryJoin+` WHERE d.event_id = $1 ORDER BY d.id`, eventID)
	if err != nil {
		return nil, fmt.Errorf("postgres: webhook deliveries: %w", err)
	}
	defer rows.Close()
	var out []webhooks.Delivery
	for rows.Next() {
		d, err := scanDelivery(rows)
		if err != nil {
			return nil, fmt.Errorf("postgres: webhook deliveries: %w", err)
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres: webhook deliveries: %w", err)
	}
	return out, nil
}

// Attempts are a delivery's attempts, first first.
func (db *DB) Attempts(ctx context.Context, deliveryID int64) ([]webhooks.Attempt, error) {
	rows, err := db.pool.Query(ctx, `SELECT delivery_id, n, at, status, duration_us, error, response FROM webhook_attempts
	WHERE delivery_id = $1 ORDER BY n`, deliveryID)
	if err != nil {
		return nil, fmt.Errorf("postgres: webhook attempts: %w", err)
	}
	defer rows.Close()
	var out []webhooks.Attempt
	for rows.Next() {
		var a webhooks.Attempt
		var us int64
		if err := rows.Scan(&a.DeliveryID, &a.N, &a.At, &a.Status, &us, &a.Error, &a.Response); err != nil {
			return nil, fmt.Errorf("postgres: webhook attempts: %w", err)
		}
		a.At, a.Duration = a.At.UTC(), time.Duration(us)*time.Microsecond
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres: webhook attempts: %w", err)
	}
	return out, nil
}

// DeleteEndpoint deletes one of the account's endpoints, its deliveries and
// their attempts, and detaches the alerts that sent to it.
func (db *DB) DeleteEndpoint(ctx context.Context, accountID, id int64) error {
	return db.tx(ctx, "delete webhook endpoint", func(tx pgx.Tx) error {
		// Locked first, so that a delivery queued meanwhile waits, then
		// finds no endpoint.
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM webhook_endpoints WHERE id = $1 AND account_id = $2 FOR UPDATE) e`,
			id, accountID).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return webhooks.ErrNotFound
		}
		for _, q := range []string{
			`DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM webhook_deliveries WHERE endpoint_id = $1)`,
			`DELETE FROM webhook_deliveries WHERE endpoint_id = $1`,
			`UPDATE alerts SET webhook_id = 0 WHERE webhook_id = $1`,
			`DELETE FROM webhook_endpoints WHERE id = $1`,
		} {
			if _, err := tx.Exec(ctx, q, id); err != nil {
				return err
			}
		}
		return nil
	})
}

// RotateSecret replaces an endpoint's secret, the old one signing beside it
// until previousUntil.
func (db *DB) RotateSecret(ctx context.Context, accountID, id int64, secret string, previousUntil time.Time) error {
	var until *time.Time
	if !previousUntil.IsZero() {
		t := sqlrow.Time(previousUntil)
		until = &t
	}
	tag, err := db.pool.Exec(ctx, `UPDATE webhook_endpoints SET
	previous_secret = CASE WHEN $1::timestamptz IS NULL THEN '' ELSE secret END, previous_until = $1, secret = $2
	WHERE id = $3 AND account_id = $4`, until, secret, id, accountID)
	if err == nil && tag.RowsAffected() == 0 {
		err = webhooks.ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("postgres: rotate webhook secret: %w", err)
	}
	return nil
}

// DeliveryLog is an endpoint's deliveries, newest first, with their
// attempts.
func (db *DB) DeliveryLog(ctx context.Context, accountID, endpointID, beforeID int64, limit int) ([]webhooks.LoggedDelivery, error) {
	var n int
	if err := db.pool.QueryRow(ctx, `SELECT count(*) FROM webhook_endpoints WHERE id = $1 AND account_id = $2`, endpointID, accountID).Scan(&n); err != nil {
		return nil, fmt.Errorf("postgres: webhook delivery log: %w", err)
	}
	if n == 0 {
		return nil, webhooks.ErrNotFound
	}
	if beforeID <= 0 {
		beforeID = math.MaxInt64
	}
	rows, err := db.pool.Query(ctx, `SELECT `+deliveryColumns+` FROM webhook_deliveries d`+deliveryJoin+`
	WHERE d.endpoint_id = $1 AND d.id < $2 ORDER BY d.id DESC LIMIT $3`, endpointID, beforeID, limit)
	if err != nil {
		return nil, fmt.Errorf("postgres: webhook delivery log: %w", err)
	}
	var out []webhooks.LoggedDelivery
	index := map[int64]int{}
	var ids []int64
	for rows.Next() {
		d, test, err := scanLoggedDelivery(rows)
		if err != nil {
			rows.Close()
			return nil, fmt.Errorf("postgres: webhook delivery log: %w", err)
		}
		d.Secret, d.PreviousSecret, d.Body = "", "", nil
		index[d.ID] = len(out)
		ids = append(ids, d.ID)
		out = append(out, webhooks.LoggedDelivery{Delivery: d, Test: test})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres: webhook delivery log: %w", err)
	}
	if len(ids) == 0 {
		return out, nil
	}
	rows, err = db.pool.Query(ctx, `SELECT delivery_id, n, at, status, duration_us, error, response FROM webhook_attempts
	WHERE delivery_id = ANY($1) ORDER BY delivery_id, n`, ids)
	if err != nil {
		return nil, fmt.Errorf("postgres: webhook delivery log: attempts: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var a webhooks.Attempt
		var us int64
		if err := rows.Scan(&a.DeliveryID, &a.N, &a.At, &a.Status, &us, &a.Error, &a.Response); err != nil {
			return nil, fmt.Errorf("postgres: webhook delivery log: attempts: %w", err)
		}
		a.At, a.Duration = a.At.UTC(), time.Duration(us)*time.Microsecond
		i := index[a.DeliveryID]
		out[i].Log = append(out[i].Log, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres: webhook delivery log: attempts: %w", err)
	}
	return out, nil
}

// ResendDelivery queues one of the account's deliveries again at now.
func (db *DB) ResendDelivery(ctx context.Context, accountID, endpointID, deliveryID int64, now time.Time) error {
	return db.tx(ctx, "resend webhook delivery", func(tx pgx.Tx) error {
		var state webhooks.State
		var next time.Time
		err := tx.QueryRow(ctx, `SELECT d.state, d.next_at FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id
	WHERE d.id = $1 AND d.endpoint_id = $2 AND w.account_id = $3 FOR UPDATE OF d`, deliveryID, endpointID, accountID).Scan(&state, &next)
		if errors.Is(err, pgx.ErrNoRows) {
			return webhooks.ErrNotFound
		}
		if err != nil {
			return err
		}
		if state == webhooks.Delivering && next.After(now) {
			return webhooks.ErrInFlight
		}
		_, err = tx.Exec(ctx, `UPDATE webhook_deliveries SET state = 'pending', next_at = $1, resent_at = $1, resent_after = attempts WHERE id = $2`,
			sqlrow.Time(now), deliveryID)
		return err
	})
}
