package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/store/sqlrow"
)

var _ account.Store = (*DB)(nil)

func microsOrZero(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return micros(t)
}

// accountsTx runs fn in a write transaction that also bumps the accounts
// version; what names the change in errors.
func (db *DB) accountsTx(ctx context.Context, what string, fn func(tx *sql.Tx) error) error {
	if err := db.writeAccounts(ctx, fn); err != nil {
		return fmt.Errorf("sqlite: %s: %w", what, err)
	}
	return nil
}

func (db *DB) writeAccounts(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE accounts_version SET version = version + 1`); err != nil {
		return err
	}
	return tx.Commit()
}

// CreateAccount inserts a, setting its ID and CreatedAt.
func (db *DB) CreateAccount(ctx context.Context, a *account.Account) error {
	a.CreatedAt = sqlrow.CreatedAt(a.CreatedAt)
	return db.accountsTx(ctx, "create account", func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO accounts (email, plan, hour_limit, day_limit, trial_started_at, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
			sqlrow.String(a.Email), string(a.Plan), a.HourLimit, a.DayLimit, microsOrZero(a.TrialStartedAt), micros(a.CreatedAt))
		if err != nil {
			return err
		}
		a.ID, err = res.LastInsertId()
		return err
	})
}

// accountColumns are the columns of sqlrow.ReadAccount, a trial never
// started (0 here) read as NULL.
const accountColumns = `id, coalesce(email, ''), plan, hour_limit, day_limit, nullif(trial_started_at, 0), created_at`

// Account returns the account with the id.
func (db *DB) Account(ctx context.Context, id int64) (*account.Account, error) {
	a, err := sqlrow.ReadAccount(ctx, reader{db.read}, `SELECT `+accountColumns+` FROM accounts WHERE id = ?`, id)
	if err != nil {
		return nil, fmt.Errorf("sqlite: account %d: %w", id, err)
	}
	return a, nil
}

// AccountByEmail returns the account with the email.
func (db *DB) AccountByEmail(ctx context.Context, email string) (*account.Account, error) {
	a, err := sqlrow.ReadAccount(ctx, reader{db.read}, `SELECT `+accountColumns+` FROM accounts WHERE email = ?`, email)
	if err != nil {
		return nil, fmt.Errorf("sqlite: account %q: %w", email, err)
	}
	return a, nil
}

// UpdateAccount saves a's email, plan, limits and trial.
func (db *DB) UpdateAccount(ctx context.Context, a *account.Account) error {
	return db.accountsTx(ctx, "update account", func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE accounts SET email = ?, plan = ?, hour_limit = ?, day_limit = ?, trial_started_at = ? WHERE id = ?`,
			sqlrow.String(a.Email), string(a.Plan), a.HourLimit, a.DayLimit, microsOrZero(a.TrialStartedAt), a.ID)
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
	k.CreatedAt = sqlrow.CreatedAt(k.CreatedAt)
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
	keys, err := sqlrow.ReadKeys(ctx, reader{db.read}, `SELECT id, account_id, hash, prefix, test, created_at, nullif(revoked_at, 0)
FROM api_keys WHERE ? = 0 OR account_id = ? ORDER BY id`, accountID, accountID)
	if err != nil {
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
	keys, err := sqlrow.ReadKeyAccounts(ctx, reader{db.read}, `SELECT k.id, k.hash, k.prefix, k.test, k.created_at,
	a.id, coalesce(a.email, ''), a.plan, a.hour_limit, a.day_limit, nullif(a.trial_started_at, 0), a.created_at
FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.revoked_at = 0 ORDER BY k.id`)
	if err != nil {
		return nil, fmt.Errorf("sqlite: active keys: %w", err)
	}
	return keys, nil
}
