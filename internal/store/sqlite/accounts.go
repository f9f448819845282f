package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/cardcat/cardcat/internal/account"
)

var _ account.Store = (*DB)(nil)

func microsOrZero(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return micros(t)
}

func timeOrZero(us int64) time.Time {
	if us == 0 {
		return time.Time{}
	}
	return fromMicros(us)
}

// accountsTx runs fn in a write transaction that also bumps the accounts version.
func (db *DB) accountsTx(ctx context.Context, what string, fn func(tx *sql.Tx) error) error {
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlite: %s: %w", what, err)
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return fmt.Errorf("sqlite: %s: %w", what, err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE accounts_version SET version = version + 1`); err != nil {
		return fmt.Errorf("sqlite: %s: %w", what, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: %s: %w", what, err)
	}
	return nil
}

func nullEmail(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// CreateAccount inserts a, setting its ID and CreatedAt.
func (db *DB) CreateAccount(ctx context.Context, a *account.Account) error {
	if a.CreatedAt.IsZero() {
		a.CreatedAt = time.Now()
	}
	a.CreatedAt = a.CreatedAt.UTC().Truncate(time.Microsecond)
	return db.accountsTx(ctx, "create account", func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO accounts (email, plan, hour_limit, day_limit, trial_started_at, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
			nullEmail(a.Email), string(a.Plan), a.HourLimit, a.DayLimit, microsOrZero(a.TrialStartedAt), micros(a.CreatedAt))
		if err != nil {
			return err
		}
		a.ID, err = res.LastInsertId()
		return err
	})
}

const accountColumns = `id, coalesce(email, ''), plan, hour_limit, day_limit, trial_started_at, created_at`

func scanAccount(row interface{ Scan(...any) error }) (*account.Account, error) {
	var a account.Account
	var plan string
	var trial, created int64
	if err := row.Scan(&a.ID, &a.Email, &plan, &a.HourLimit, &a.DayLimit, &trial, &created); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, account.ErrNotFound
		}
		return nil, err
	}
	a.Plan = account.Plan(plan)
	a.TrialStartedAt = timeOrZero(trial)
	a.CreatedAt = fromMicros(created)
	return &a, nil
}

// Account returns the account with the id.
func (db *DB) Account(ctx context.Context, id int64) (*account.Account, error) {
	a, err := scanAccount(db.read.QueryRowContext(ctx, `SELECT `+accountColumns+` FROM accounts WHERE id = ?`, id))
	if err != nil {
		return nil, fmt.Errorf("sqlite: account %d: %w", id, err)
	}
	return a, nil
}

// AccountByEmail returns the account with the email.
func (db *DB) AccountByEmail(ctx context.Context, email string) (*account.Account, error) {
	a, err := scanAccount(db.read.QueryRowContext(ctx, `SELECT `+accountColumns+` FROM accounts WHERE email = ?`, email))
	if err != nil {
		return nil, fmt.Errorf("sqlite: account %q: %w", email, err)
	}
	return a, nil
}

// UpdateAccount saves a's email, plan, limits and trial.
func (db *DB) UpdateAccount(ctx context.Context, a *account.Account) error {
	return db.accountsTx(ctx, "update account", func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE accounts SET email = ?, plan = ?, hour_limit = ?, day_limit = ?, trial_started_at = ? WHERE id = ?`,
			nullEmail(a.Email), string(a.Plan), a.HourLimit, a.DayLimit, microsOrZero(a.TrialStartedAt), a.ID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return account.ErrNotFound
		}
		return nil
	})
}

// CreateKey inserts k, setting its ID.
func (db *DB) CreateKey(ctx context.Context, k *account.Key) error {
	if k.CreatedAt.IsZero() {
		k.CreatedAt = time.Now()
	}
	k.CreatedAt = k.CreatedAt.UTC().Truncate(time.Microsecond)
	return db.accountsTx(ctx, "create key", func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO api_keys (account_id, hash, prefix, test, created_at) VALUES (?, ?, ?, ?, ?)`,
			k.AccountID, k.Hash, k.Prefix, k.Test, micros(k.CreatedAt))
		if err != nil {
			return err
		}
		k.ID, err = res.LastInsertId()
		return err
	})
}

// RevokeKey marks the key revoked at at; revoking twice keeps the first time.
func (db *DB) RevokeKey(ctx context.Context, id int64, at time.Time) error {
	return db.accountsTx(ctx, "revoke key", func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE api_keys SET revoked_at = CASE WHEN revoked_at = 0 THEN ? ELSE revoked_at END WHERE id = ?`, micros(at), id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("key %d: %w", id, account.ErrNotFound)
		}
		return nil
	})
}

// Keys lists keys by id, all when accountID is 0.
func (db *DB) Keys(ctx context.Context, accountID int64) ([]account.Key, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT id, account_id, hash, prefix, test, created_at, revoked_at FROM api_keys WHERE ? = 0 OR account_id = ? ORDER BY id`, accountID, accountID)
	if err != nil {
		return nil, fmt.Errorf("sqlite: keys: %w", err)
	}
	defer rows.Close()
	var keys []account.Key
	for rows.Next() {
		var k account.Key
		var created, revoked int64
		if err := rows.Scan(&k.ID, &k.AccountID, &k.Hash, &k.Prefix, &k.Test, &created, &revoked); err != nil {
			return nil, fmt.Errorf("sqlite: keys: %w", err)
		}
		k.CreatedAt, k.RevokedAt = fromMicros(created), timeOrZero(revoked)
		keys = append(keys, k)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: keys: %w", err)
	}
	return keys, nil
}

// AccountsVersion changes with every account or key change.
func (db *DB) AccountsVersion(ctx context.Context) (int64, error) {
	var v int64
	if err := db.read.QueryRowContext(ctx, `SELECT version FROM accounts_version`).Scan(&v); err != nil {
		return 0, fmt.Errorf("sqlite: accounts version: %w", err)
	}
	return v, nil
}

// ActiveKeys returns every unrevoked key with its account.
func (db *DB) ActiveKeys(ctx context.Context) ([]account.KeyAccount, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT k.id, k.hash, k.prefix, k.test, k.created_at,
		a.id, coalesce(a.email, ''), a.plan, a.hour_limit, a.day_limit, a.trial_started_at, a.created_at
		FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.revoked_at = 0 ORDER BY k.id`)
	if err != nil {
		return nil, fmt.Errorf("sqlite: active keys: %w", err)
	}
	defer rows.Close()
	var out []account.KeyAccount
	for rows.Next() {
		var ka account.KeyAccount
		var kCreated, trial, aCreated int64
		var plan string
		if err := rows.Scan(&ka.Key.ID, &ka.Key.Hash, &ka.Key.Prefix, &ka.Key.Test, &kCreated,
			&ka.Account.ID, &ka.Account.Email, &plan, &ka.Account.HourLimit, &ka.Account.DayLimit, &trial, &aCreated); err != nil {
			return nil, fmt.Errorf("sqlite: active keys: %w", err)
		}
		ka.Key.AccountID = ka.Account.ID
		ka.Key.CreatedAt = fromMicros(kCreated)
		ka.Account.Plan = account.Plan(plan)
		ka.Account.TrialStartedAt = timeOrZero(trial)
		ka.Account.CreatedAt = fromMicros(aCreated)
		out = append(out, ka)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: active keys: %w", err)
	}
	return out, nil
}
