package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cardcat/cardcat/internal/status"
	"github.com/cardcat/cardcat/internal/store/sqlrow"
)

var _ status.Store = (*DB)(nil)

// RecordCheck inserts c unless its minute has a check: of several replicas
// probing the same minute, the primary key keeps the first, whose insert
// the others' wait on and then skip.
func (db *DB) RecordCheck(ctx context.Context, c status.Check) (bool, error) {
	minute := c.Minute.UTC().Truncate(time.Minute).Unix()
	var recorded bool
	err := db.tx(ctx, "record check", func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `INSERT INTO status_checks (minute, ok, http_status, latency_us, error)
	VALUES ($1, $2, $3, $4, $5) ON CONFLICT (minute) DO NOTHING`, minute, c.OK, c.Status, c.Latency.Microseconds(), c.Error)
		if err != nil || tag.RowsAffected() == 0 {
			return err
		}
		recorded = true
		_, err = tx.Exec(ctx, `INSERT INTO status_first_check (id, minute) VALUES (1, $1) ON CONFLICT (id) DO NOTHING`, minute)
		return err
	})
	return recorded, err
}

// HasCheck reports whether the minute has a check.
func (db *DB) HasCheck(ctx context.Context, minute time.Time) (bool, error) {
	var has bool
	err := db.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM status_checks WHERE minute = $1)`,
		minute.UTC().Truncate(time.Minute).Unix()).Scan(&has)
	if err != nil {
		return false, fmt.Errorf("postgres: has check: %w", err)
	}
	return has, nil
}

// LatestCheck is the newest check.
func (db *DB) LatestCheck(ctx context.Context) (status.Check, error) {
	var c status.Check
	var minute, latency int64
	err := db.pool.QueryRow(ctx, `SELECT minute, ok, http_status, latency_us, error FROM status_checks ORDER BY minute DESC LIMIT 1`).
		Scan(&minute, &c.OK, &c.Status, &latency, &c.Error)
	if errors.Is(err, pgx.ErrNoRows) {
		err = status.ErrNotFound
	}
	if err != nil {
		return status.Check{}, fmt.Errorf("postgres: latest check: %w", err)
	}
	c.Minute, c.Latency = time.Unix(minute, 0).UTC(), time.Duration(latency)*time.Microsecond
	return c, nil
}

// FirstCheck is the minute of the first check ever recorded.
func (db *DB) FirstCheck(ctx context.Context) (time.Time, error) {
	var minute int64
	err := db.pool.QueryRow(ctx, `SELECT minute FROM status_first_check WHERE id = 1`).Scan(&minute)
	if errors.Is(err, pgx.ErrNoRows) {
		err = status.ErrNotFound
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("postgres: first check: %w", err)
	}
	return time.Unix(minute, 0).UTC(), nil
}

// CheckDays counts the checks of [from, to) per UTC day.
func (db *DB) CheckDays(ctx context.Context, from, to time.Time) ([]status.DayChecks, error) {
	rows, err := db.pool.Query(ctx, `SELECT minute / 86400, count(*), count(*) FILTER (WHERE ok) FROM status_checks
	WHERE minute >= $1 AND minute < $2 GROUP BY minute / 86400 ORDER BY 1`, from.Unix(), to.Unix())
	if err != nil {
		return nil, fmt.Errorf("postgres: check days: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (status.DayChecks, error) {
		var day, recorded, up int64
		err := row.Scan(&day, &recorded, &up)
		return status.DayChecks{Day: time.Unix(day*86400, 0).UTC(), Recorded: int(recorded), Up: int(up)}, err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: check days: %w", err)
	}
	return out, nil
}

// PruneChecks deletes the checks before before.
func (db *DB) PruneChecks(ctx context.Context, before time.Time) (int64, error) {
	tag, err := db.pool.Exec(ctx, `DELETE FROM status_checks WHERE minute < $1`, before.Unix())
	if err != nil {
		return 0, fmt.Errorf("postgres: prune checks: %w", err)
	}
	return tag.RowsAffected(), nil
}

// OpenIncident stores in, whose one update is its first.
func (db *DB) OpenIncident(ctx context.Context, in *status.Incident) error {
	if len(in.Updates) != 1 {
		return fmt.Errorf("postgres: open incident: want its first update only, got %d", len(in.Updates))
	}
	u := in.Updates[0]
	at := sqlrow.Time(u.At)
	return db.tx(ctx, "open incident", func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, `INSERT INTO status_incidents (title, impact, state, created_at, updated_at)
	VALUES ($1, $2, $3, $4, $4) RETURNING id`, in.Title, string(in.Impact), string(u.State), at).Scan(&in.ID)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO status_incident_updates (incident_id, seq, state, message, at) VALUES ($1, 1, $2, $3, $4)`,
			in.ID, string(u.State), u.Message, at)
		if err == nil {
			in.State, in.CreatedAt, in.UpdatedAt = u.State, at, at
			in.Updates[0].At = at
		}
		return err
	})
}

// UpdateIncident adds u to incident id's timeline.
func (db *DB) UpdateIncident(ctx context.Context, id int64, u status.Update) (status.Incident, error) {
	at := sqlrow.Time(u.At)
	err := db.tx(ctx, fmt.Sprintf("update incident %d", id), func(tx pgx.Tx) error {
		var state string
		// FOR UPDATE: two updates of one incident take turns, so that
		// their seq differ and a resolved incident stays resolved.
		err := tx.QueryRow(ctx, `SELECT state FROM status_incidents WHERE id = $1 FOR UPDATE`, id).Scan(&state)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			return status.ErrNotFound
		case err != nil:
			return err
		case status.State(state) == status.Resolved:
			return status.ErrResolved
		}
		var resolved any
		if u.State == status.Resolved {
			resolved = at
		}
		if _, err := tx.Exec(ctx, `UPDATE status_incidents SET state = $1, updated_at = $2, resolved_at = $3 WHERE id = $4`,
			string(u.State), at, resolved, id); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO status_incident_updates (incident_id, seq, state, message, at)
	SELECT $1, coalesce(max(seq), 0) + 1, $2, $3, $4 FROM status_incident_updates WHERE incident_id = $1`,
			id, string(u.State), u.Message, at)
		return err
	})
	if err != nil {
		return status.Incident{}, err
	}
	return db.Incident(ctx, id)
}

// Incident is the incident with the id.
func (db *DB) Incident(ctx context.Context, id int64) (status.Incident, error) {
	ins, err := db.incidents(ctx, `WHERE id = $1`, id)
	if err == nil && len(ins) == 0 {
		err = status.ErrNotFound
	}
	if err != nil {
		return status.Incident{}, fmt.Errorf("postgres: incident %d: %w", id, err)
	}
	return ins[0], nil
}

// Incidents are the incidents open or updated since since.
func (db *DB) Incidents(ctx context.Context, since time.Time) ([]status.Incident, error) {
	ins, err := db.incidents(ctx, `WHERE resolved_at IS NULL OR updated_at >= $1`, sqlrow.Time(since))
	if err != nil {
		return nil, fmt.Errorf("postgres: incidents: %w", err)
	}
	return ins, nil
}

// incidents reads the incidents where cond holds, the last updated first,
// then their updates, in one snapshot.
func (db *DB) incidents(ctx context.Context, cond string, arg any) ([]status.Incident, error) {
	var out []status.Incident
	err := pgx.BeginTxFunc(ctx, db.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT id, title, impact, state, created_at, updated_at, resolved_at
	FROM status_incidents `+cond+` ORDER BY updated_at DESC, id DESC`, arg)
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (status.Incident, error) {
			var in status.Incident
			var resolved *time.Time
			err := row.Scan(&in.ID, &in.Title, &in.Impact, &in.State, &in.CreatedAt, &in.UpdatedAt, &resolved)
			in.CreatedAt, in.UpdatedAt = in.CreatedAt.UTC(), in.UpdatedAt.UTC()
			if resolved != nil {
				in.ResolvedAt = resolved.UTC()
			}
			return in, err
		})
		if err != nil || len(out) == 0 {
			return err
		}
		at := map[int64]int{}
		for i, in := range out {
			at[in.ID] = i
		}
		rows, err = tx.Query(ctx, `SELECT incident_id, state, message, at FROM status_incident_updates
	WHERE incident_id IN (SELECT id FROM status_incidents `+cond+`) ORDER BY incident_id, seq`, arg)
		if err != nil {
			return err
		}
		var id int64
		var u status.Update
		_, err = pgx.ForEachRow(rows, []any{&id, &u.State, &u.Message, &u.At}, func() error {
			if i, ok := at[id]; ok {
				u.At = u.At.UTC()
				out[i].Updates = append(out[i].Updates, u)
			}
			return nil
		})
		return err
	})
	return out, err
}
