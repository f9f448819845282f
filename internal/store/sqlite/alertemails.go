package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/cardcat/cardcat/internal/alerts"
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

// queueEmails queues, in RecordEvaluations' transaction, the emails of the
// evaluations written that say Email (their events are written): capped
// past emailsPerHour for their account, counted from the emails of the
// hour up to the first of them and then one by one.
func queueEmails(ctx context.Context, tx *sql.Tx, evs []*alerts.Evaluation, emailsPerHour int, rec *alerts.Recorded) error {
	if len(evs) == 0 {
		return nil
	}
	insert, err := tx.PrepareContext(ctx, `INSERT INTO alert_emails (event_id, account_id, alert_id, card_name, state, attempts, next_at, created_at)
	VALUES (?, ?, ?, ?, ?, 0, ?, ?)`)
	if err != nil {
		return err
	}
	defer insert.Close()
	sent := map[int64]int{} // by account: its emails of the hour so far
	for _, ev := range evs {
		e := ev.Event
		state := alerts.EmailPending
		if emailsPerHour > 0 {
			n, ok := sent[e.AccountID]
			if !ok {
				if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM alert_emails
	WHERE account_id = ? AND created_at > ? AND state NOT IN ('capped', 'cancelled')`,
					e.AccountID, micros(e.Created.Add(-time.Hour))).Scan(&n); err != nil {
					return err
				}
			}
			if n >= emailsPerHour {
				state = alerts.EmailCapped
			} else {
				n++
			}
			sent[e.AccountID] = n
		}
		if _, err := insert.ExecContext(ctx, e.ID, e.AccountID, e.AlertID, ev.CardName, string(state), micros(e.Created), micros(e.Created)); err != nil {
			return err
		}
		if state == alerts.EmailCapped {
			rec.Capped++
		} else {
			rec.Emailed++
		}
	}
	return nil
}

const emailColumns = `m.id, m.event_id, m.account_id, m.alert_id, m.card_name, m.state, m.attempts, m.created_at, m.next_at, m.sent_at, m.error`

// scanEmail reads emailColumns into e, then extra.
func scanEmail(sc interface{ Scan(...any) error }, e *alerts.Email, extra ...any) error {
	var created, next, sent int64
	err := sc.Scan(append([]any{&e.ID, &e.EventID, &e.AccountID, &e.AlertID, &e.CardName, &e.State, &e.Attempts, &created, &next, &sent, &e.Error},
		extra...)...)
	e.CreatedAt, e.NextAt, e.SentAt = fromMicros(created), fromMicros(next), fromMicrosOrZero(sent)
	return err
}

// emailsDue says whether an email is due (anyDue), by alert_emails_due.
const emailsDue = `SELECT EXISTS (SELECT 1 FROM alert_emails WHERE state IN ('pending', 'sending') AND next_at <= ?)`

// ClaimEmail claims the email due first. SQLite has one writer: the write
// transaction is the claim's lock.
func (db *DB) ClaimEmail(ctx context.Context, now time.Time, lease time.Duration) (alerts.Email, error) {
	var e alerts.Email
	if due, err := db.anyDue(ctx, "alert emails", emailsDue, now); err != nil || !due {
		return e, cmpErr(err, alerts.ErrNoEmail)
	}
	err := db.writeTx(ctx, "claim alert email", func(tx *sql.Tx) error {
		var id int64
		err := tx.QueryRowContext(ctx, `UPDATE alert_emails SET state = 'sending', attempts = attempts + 1, next_at = ?
	WHERE id = (SELECT id FROM alert_emails WHERE state IN ('pending', 'sending') AND next_at <= ? ORDER BY next_at, id LIMIT 1)
	RETURNING id`, micros(now.Add(lease)), micros(now)).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			return alerts.ErrNoEmail
		}
		if err != nil {
			return err
		}
		// The account and the alert as they are now: an alert deleted or
		// unsubscribed since the firing sends nothing.
		err = scanEmail(tx.QueryRowContext(ctx, `SELECT `+emailColumns+`,
	coalesce(ac.email, ''), coalesce(ac.verified_at, 0) <> 0, coalesce(al.email, 0), coalesce(al.email_token, ''), ev.body
	FROM alert_emails m JOIN alert_events ev ON ev.id = m.event_id
	LEFT JOIN accounts ac ON ac.id = m.account_id AND ac.deleted_at = 0
	LEFT JOIN alerts al ON al.id = m.alert_id AND al.account_id = m.account_id
	WHERE m.id = ?`, id), &e, &e.To, &e.Verified, &e.AlertEmails, &e.Token, &e.Body)
		if err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, `SELECT count(*) FROM alert_emails WHERE account_id = ? AND state = 'capped' AND created_at > ?`,
			e.AccountID, micros(now.Add(-time.Hour))).Scan(&e.Capped)
	})
	if errors.Is(err, alerts.ErrNoEmail) {
		return e, alerts.ErrNoEmail
	}
	return e, err
}

// FinishEmail records the end of a claimed email's attempt.
func (db *DB) FinishEmail(ctx context.Context, e alerts.Email, state alerts.EmailState, now, next time.Time, errText string) error {
	if state != alerts.EmailPending {
		next = now
	}
	var sent int64
	if state == alerts.EmailSent {
		sent = micros(now)
	}
	err := db.writeTx(ctx, "finish alert email", func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE alert_emails SET state = ?, next_at = ?, sent_at = ?, error = ?
	WHERE id = ? AND state = 'sending' AND attempts = ?`, string(state), micros(next), sent, errText, e.ID, e.Attempts)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return cmpErr(err, alerts.ErrEmailLeaseLost)
		}
		return nil
	})
	if errors.Is(err, alerts.ErrEmailLeaseLost) {
		return alerts.ErrEmailLeaseLost
	}
	return err
}

// Emails are the account's alert emails, newest first.
func (db *DB) Emails(ctx context.Context, accountID int64, limit int) ([]alerts.Email, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT `+emailColumns+` FROM alert_emails m WHERE m.account_id = ? ORDER BY m.id DESC LIMIT ?`,
		accountID, limit)
	if err != nil {
		return nil, fmt.Errorf("sqlite: alert emails: %w", err)
	}
	defer rows.Close()
	var out []alerts.Email
	for rows.Next() {
		var e alerts.Email
		if err := scanEmail(rows, &e); err != nil {
			return nil, fmt.Errorf("sqlite: alert emails: %w", err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: alert emails: %w", err)
	}
	return out, nil
}

// AlertByEmailToken is the alert of an unsubscribe token.
func (db *DB) AlertByEmailToken(ctx context.Context, token string) (alerts.Alert, error) {
	if token == "" {
		return alerts.Alert{}, alerts.ErrNotFound
	}
	as, err := db.readAlerts(ctx, "alert by email token", `SELECT `+alertColumns+` FROM alerts WHERE email_token = ?`, token)
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
	var id, account int64
	var stopped int64
	err := db.writeTx(ctx, "stop alert emails", func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `SELECT id, account_id FROM alerts WHERE email_token = ?`, token).Scan(&id, &account)
		if errors.Is(err, sql.ErrNoRows) {
			return alerts.ErrNotFound
		}
		if err != nil {
			return err
		}
		q, arg := `UPDATE alerts SET email = 0 WHERE id = ? AND email = 1`, id
		if all {
			q, arg = `UPDATE alerts SET email = 0 WHERE account_id = ? AND email = 1`, account
		}
		res, err := tx.ExecContext(ctx, q, arg)
		if err != nil {
			return err
		}
		stopped, err = res.RowsAffected()
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
