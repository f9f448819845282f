package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/cardcat/cardcat/internal/status"
)

var _ status.Store = (*DB)(nil)

// RecordCheck inserts c unless its minute has a check, and remembers the
// first minute ever recorded.
func (db *DB) RecordCheck(ctx context.Context, c status.Check) (bool, error) {
	minute := c.Minute.UTC().Truncate(time.Minute).Unix()
	var recorded bool
	err := db.writeTx(ctx, "record check", func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO status_checks (minute, ok, http_status, latency_us, error)
	VALUES (?, ?, ?, ?, ?) ON CONFLICT (minute) DO NOTHING`, minute, c.OK, c.Status, c.Latency.Microseconds(), c.Error)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil || n == 0 {
			return err
		}
		recorded = true
		_, err = tx.ExecContext(ctx, `INSERT INTO status_first_check (id, minute) VALUES (1, ?) ON CONFLICT (id) DO NOTHING`, minute)
		return err
	})
	return recorded, err
}

// HasCheck reports whether the minute has a check.
func (db *DB) HasCheck(ctx context.Context, minute time.Time) (bool, error) {
	var n int
	err := db.read.QueryRowContext(ctx, `SELECT count(*) FROM status_checks WHERE minute = ?`,
		minute.UTC().Truncate(time.Minute).Unix()).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("sqlite: has check: %w", err)
	}
	return n > 0, nil
}

// LatestCheck is the newest check.
func (db *DB) LatestCheck(ctx context.Context) (status.Check, error) {
	var c status.Check
	var minute, latency int64
	err := db.read.QueryRowContext(ctx, `SELECT minute, ok, http_status, latency_us, error FROM status_checks ORDER BY minute DESC LIMIT 1`).
		Scan(&minute, &c.OK, &c.Status, &latency, &c.Error)
	if errors.Is(err, sql.ErrNoRows) {
		err = status.ErrNotFound
	}
	if err != nil {
		return status.Check{}, fmt.Errorf("sqlite: latest check: %w", err)
	}
	c.Minute, c.Latency = time.Unix(minute, 0).UTC(), time.Duration(latency)*time.Microsecond
	return c, nil
}

// FirstCheck is the minute of the first check ever recorded.
func (db *DB) FirstCheck(ctx context.Context) (time.Time, error) {
	var minute int64
	err := db.read.QueryRowContext(ctx, `SELECT minute FROM status_first_check WHERE id = 1`).Scan(&minute)
	if errors.Is(err, sql.ErrNoRows) {
		err = status.ErrNotFound
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("sqlite: first check: %w", err)
	}
	return time.Unix(minute, 0).UTC(), nil
}

// CheckDays counts the checks of [from, to) per UTC day.
func (db *DB) CheckDays(ctx context.Context, from, to time.Time) ([]status.DayChecks, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT minute / 86400, count(*), sum(ok) FROM status_checks
	WHERE minute >= ? AND minute < ? GROUP BY minute / 86400 ORDER BY 1`, from.Unix(), to.Unix())
	if err != nil {
		return nil, fmt.Errorf("sqlite: check days: %w", err)
	}
	defer rows.Close()
	var out []status.DayChecks
	for rows.Next() {
		var day int64
		var d status.DayChecks
		if err := rows.Scan(&day, &d.Recorded, &d.Up); err != nil {
			return nil, fmt.Errorf("sqlite: check days: %w", err)
		}
		d.Day = time.Unix(day*86400, 0).UTC()
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: check days: %w", err)
	}
	return out, nil
}

// PruneChecks deletes the checks before before.
func (db *DB) PruneChecks(ctx context.Context, before time.Time) (int64, error) {
	var n int64
	err := db.writeTx(ctx, "prune checks", func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM status_checks WHERE minute < ?`, before.Unix())
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return n, err
}

// OpenIncident stores in, whose one update is its first.
func (db *DB) OpenIncident(ctx context.Context, in *status.Incident) error {
	if len(in.Updates) != 1 {
		return fmt.Errorf("sqlite: open incident: want its first update only, got %d", len(in.Updates))
	}
	u := in.Updates[0]
	return db.writeTx(ctx, "open incident", func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO status_incidents (title, impact, state, created_at, updated_at) VALUES (?, ?, ?, ?, ?)`,
			in.Title, string(in.Impact), string(u.State), micros(u.At), micros(u.At))
		if err != nil {
			return err
		}
		if in.ID, err = res.LastInsertId(); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO status_incident_updates (incident_id, seq, state, message, at) VALUES (?, 1, ?, ?, ?)`,
			in.ID, string(u.State), u.Message, micros(u.At))
		if err == nil {
			in.State, in.CreatedAt, in.UpdatedAt = u.State, fromMicros(micros(u.At)), fromMicros(micros(u.At))
			in.Updates[0].At = in.CreatedAt
		}
		return err
	})
}

// UpdateIncident adds u to incident id's timeline.
func (db *DB) UpdateIncident(ctx context.Context, id int64, u status.Update) (status.Incident, error) {
	err := db.writeTx(ctx, fmt.Sprintf("update incident %d", id), func(tx *sql.Tx) error {
		var state string
		err := tx.QueryRowContext(ctx, `SELECT state FROM status_incidents WHERE id = ?`, id).Scan(&state)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return status.ErrNotFound
		case err != nil:
			return err
		case status.State(state) == status.Resolved:
			return status.ErrResolved
		}
		resolved := int64(0)
		if u.State == status.Resolved {
			resolved = micros(u.At)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE status_incidents SET state = ?, updated_at = ?, resolved_at = ? WHERE id = ?`,
			string(u.State), micros(u.At), resolved, id); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO status_incident_updates (incident_id, seq, state, message, at)
	SELECT ?, coalesce(max(seq), 0) + 1, ?, ?, ? FROM status_incident_updates WHERE incident_id = ?`,
			id, string(u.State), u.Message, micros(u.At), id)
		return err
	})
	if err != nil {
		return status.Incident{}, err
	}
	return db.Incident(ctx, id)
}

// Incident is the incident with the id.
func (db *DB) Incident(ctx context.Context, id int64) (status.Incident, error) {
	ins, err := db.incidents(ctx, `WHERE id = ?`, id)
	if err == nil && len(ins) == 0 {
		err = status.ErrNotFound
	}
	if err != nil {
		return status.Incident{}, fmt.Errorf("sqlite: incident %d: %w", id, err)
	}
	return ins[0], nil
}

// Incidents are the incidents open or updated since since.
func (db *DB) Incidents(ctx context.Context, since time.Time) ([]status.Incident, error) {
	ins, err := db.incidents(ctx, `WHERE resolved_at = 0 OR updated_at >= ?`, micros(since))
	if err != nil {
		return nil, fmt.Errorf("sqlite: incidents: %w", err)
	}
	return ins, nil
}

// incidents reads the incidents where cond holds, the last updated first,
// then their updates, in one read transaction (one snapshot: an update
// committed between the two reads is in both or neither).
func (db *DB) incidents(ctx context.Context, cond string, arg any) ([]status.Incident, error) {
	tx, err := db.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `SELECT id, title, impact, state, created_at, updated_at, resolved_at
	FROM status_incidents `+cond+` ORDER BY updated_at DESC, id DESC`, arg)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []status.Incident
	at := map[int64]int{}
	for rows.Next() {
		var in status.Incident
		var created, updated, resolved int64
		if err := rows.Scan(&in.ID, &in.Title, &in.Impact, &in.State, &created, &updated, &resolved); err != nil {
			return nil, err
		}
		in.CreatedAt, in.UpdatedAt = fromMicros(created), fromMicros(updated)
		if resolved != 0 {
			in.ResolvedAt = fromMicros(resolved)
		}
		at[in.ID] = len(out)
		out = append(out, in)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	if len(out) == 0 {
		return nil, nil
	}
	urows, err := tx.QueryContext(ctx, `SELECT incident_id, state, message, at FROM status_incident_updates
	WHERE incident_id IN (SELECT id FROM status_incidents `+cond+`) ORDER BY incident_id, seq`, arg)
	if err != nil {
		return nil, err
	}
	defer urows.Close()
	for urows.Next() {
		var id, t int64
		var u status.Update
		if err := urows.Scan(&id, &u.State, &u.Message, &t); err != nil {
			return nil, err
		}
		u.At = fromMicros(t)
		if i, ok := at[id]; ok {
			out[i].Updates = append(out[i].Updates, u)
		}
	}
	return out, urows.Err()
}
