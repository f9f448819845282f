package postgres

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cardcat/cardcat/internal/alerts"
	"github.com/cardcat/cardcat/internal/store/sqlrow"
)

var _ alerts.EmailStore = (*DB)(nil)

// newEmailToken is the unsubscribe token a new or edited alert is given:
// a new one when it emails (an edited alert keeps the one it has), none
// otherwise.
func newEmailToken(email bool) string {
	if !email {
		return ""
	}
	return alerts.NewEmailToken()
}

// queueEmails queues, in RecordEvaluations' transaction and one INSERT, the
// emails of the evaluations written that say Email (their events are
// written), by alert: each account's are capped past emailsPerHour,
// counting its emails of the hour up to each one's creation and those of
// this batch before it.
func queueEmails(ctx context.Context, tx pgx.Tx, evs []*alerts.Evaluation, emailsPerHour int, rec *alerts.Recorded) error {
	if len(evs) == 0 {
		return nil
	}
	slices.SortFunc(evs, func(a, b *alerts.Evaluation) int { return cmp.Compare(a.AlertID, b.AlertID) })
	ids, names := make([]string, len(evs)), make([]string, len(evs))
	accounts, alertIDs := make([]int64, len(evs)), make([]int64, len(evs))
	created := make([]time.Time, len(evs))
	for i, ev := range evs {
		e := ev.Event
		ids[i], names[i], accounts[i], alertIDs[i], created[i] = e.ID, ev.CardName, e.AccountID, e.AlertID, sqlrow.Time(e.Created)
	}
	rows, err := tx.Query(ctx, `INSERT INTO alert_emails (event_id, account_id, alert_id, card_name, state, attempts, next_at, created_at)
	SELECT v.id, v.account, v.alert, v.name,
		CASE WHEN $6 > 0 AND c.n + row_number() OVER (PARTITION BY v.account ORDER BY v.ord) > $6 THEN 'capped' ELSE 'pending' END,
		0, v.at, v.at
	FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::text[], $5::timestamptz[]) WITH ORDINALITY AS v (id, account, alert, name, at, ord)
	CROSS JOIN LATERAL (SELECT count(*) AS n FROM alert_emails m
		WHERE m.account_id = v.account AND m.created_at > v.at - interval '1 hour' AND m.state NOT IN ('capped', 'cancelled')) c
	RETURNING state`, ids, accounts, alertIDs, names, created, emailsPerHour)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var state alerts.EmailState
		if err := rows.Scan(&state); err != nil {
			return err
		}
		if state == alerts.EmailCapped {
			rec.Capped++
		} else {
			rec.Emailed++
		}
	}
	return rows.Err()
}

const emailColumns = `m.id, m.event_id, m.account_id, m.alert_id, m.card_name, m.state, m.attempts, m.created_at, m.next_at, m.sent_at, m.error`

// scanEmail reads emailColumns into e, then extra.
func scanEmail(sc interface{ Scan(...any) error }, e *alerts.Email, extra ...any) error {
	var sent *time.Time
	err := sc.Scan(append([]any{&e.ID, &e.EventID, &e.AccountID, &e.AlertID, &e.CardName, &e.State, &e.Attempts, &e.CreatedAt, &e.NextAt, &sent, &e.Error},
		extra...)...)
	e.CreatedAt, e.NextAt, e.SentAt = e.CreatedAt.UTC(), e.NextAt.UTC(), timeOrZero(sent)
	return err
}

// ClaimEmail claims the email due first: SKIP LOCKED passes over the rows
// other replicas are claiming at the same moment, so that each takes
// another, and the lease (next_at of a sending row) keeps it theirs while
// they send it. The account and the alert are read as they are now: an
// alert deleted or unsubscribed since the firing sends nothing.
func (db *DB) ClaimEmail(ctx context.Context, now time.Time, lease time.Duration) (alerts.Email, error) {
	var e alerts.Email
	err := scanEmail(db.pool.QueryRow(ctx, `WITH c AS (
	SELECT id FROM alert_emails WHERE state IN ('pending', 'sending') AND next_at <= $1
	ORDER BY next_at, id LIMIT 1 FOR UPDATE SKIP LOCKED
), m AS (
	UPDATE alert_emails u SET state = 'sending', attempts = u.attempts + 1, next_at = $2
	FROM c WHERE u.id = c.id
	RETURNING u.*
)
SELECT `+emailColumns+`,
	coalesce(ac.email, ''), ac.verified_at IS NOT NULL, coalesce(al.email, false), coalesce(al.email_token, ''), ev.body,
	(SELECT count(*) FROM alert_emails x WHERE x.account_id = m.account_id AND x.state = 'capped' AND x.created_at > $3)
FROM m JOIN alert_events ev ON ev.id = m.event_id
LEFT JOIN accounts ac ON ac.id = m.account_id AND ac.deleted_at IS NULL
LEFT JOIN alerts al ON al.id = m.alert_id AND al.account_id = m.account_id`,
		sqlrow.Time(now), sqlrow.Time(now.Add(lease)), sqlrow.Time(now.Add(-time.Hour))), &e,
		&e.To, &e.Verified, &e.AlertEmails, &e.Token, &e.Body, &e.Capped)
	if errors.Is(err, pgx.ErrNoRows) {
		return e, alerts.ErrNoEmail
	}
	if err != nil {
		return e, fmt.Errorf("postgres: claim alert email: %w", err)
	}
	return e, nil
}

// FinishEmail records the end of a claimed email's attempt.
func (db *DB) FinishEmail(ctx context.Context, e alerts.Email, state alerts.EmailState, now, next time.Time, errText string) error {
	if state != alerts.EmailPending {
		next = now
	}
	var sent *time.Time
	if state == alerts.EmailSent {
		t := sqlrow.Time(now)
		sent = &t
	}
	tag, err := db.pool.Exec(ctx, `UPDATE alert_emails SET state = $1, next_at = $2, sent_at = $3, error = $4
	WHERE id = $5 AND state = 'sending' AND attempts = $6`, string(state), sqlrow.Time(next), sent, errText, e.ID, e.Attempts)
	if err != nil {
		return fmt.Errorf("postgres: finish alert email: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return alerts.ErrEmailLeaseLost
	}
	return nil
}

// Emails are the account's alert emails, newest first.
func (db *DB) Emails(ctx context.Context, accountID int64, limit int) ([]alerts.Email, error) {
	rows, err := db.pool.Query(ctx, `SELECT `+emailColumns+` FROM alert_emails m WHERE m.account_id = $1 ORDER BY m.id DESC LIMIT $2`,
		accountID, limit)
	if err != nil {
		return nil, fmt.Errorf("postgres: alert emails: %w", err)
	}
	defer rows.Close()
	var out []alerts.Email
	for rows.Next() {
		var e alerts.Email
		if err := scanEmail(rows, &e); err != nil {
			return nil, fmt.Errorf("postgres: alert emails: %w", err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres: alert emails: %w", err)
	}
	return out, nil
}

// AlertByEmailToken is the alert of an unsubscribe token.
func (db *DB) AlertByEmailToken(ctx context.Context, token string) (alerts.Alert, error) {
	if token == "" {
		return alerts.Alert{}, alerts.ErrNotFound
	}
	as, err := db.readAlerts(ctx, "alert by email token", `SELECT `+alertColumns+` FROM alerts WHERE email_token = $1`, token)
	if err != nil {
		return alerts.Alert{}, err
	}
	if len(as) == 0 {
		return alerts.Alert{}, alerts.ErrNotFound
	}
	return as[0], nil
}

// StopAlertEmails turns off the email of a token's alert, or of all its
// account's alerts.
func (db *DB) StopAlertEmails(ctx context.Context, token string, all bool) (alerts.Alert, int, error) {
	if token == "" {
		return alerts.Alert{}, 0, alerts.ErrNotFound
	}
	var stopped int64
	err := db.tx(ctx, "stop alert emails", func(tx pgx.Tx) error {
		var id, account int64
		err := tx.QueryRow(ctx, `SELECT id, account_id FROM alerts WHERE email_token = $1`, token).Scan(&id, &account)
		if errors.Is(err, pgx.ErrNoRows) {
			return alerts.ErrNotFound
		}
		if err != nil {
			return err
		}
		q, arg := `UPDATE alerts SET email = false WHERE id = $1 AND email`, id
		if all {
			q, arg = `UPDATE alerts SET email = false WHERE account_id = $1 AND email`, account
		}
		tag, err := tx.Exec(ctx, q, arg)
		stopped = tag.RowsAffected()
		return err
	})
	if errors.Is(err, alerts.ErrNotFound) {
		return alerts.Alert{}, 0, alerts.ErrNotFound
	}
	if err != nil {
		return alerts.Alert{}, 0, err
	}
	a, err := db.AlertByEmailToken(ctx, token)
	return a, int(stopped), err
}
