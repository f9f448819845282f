package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/store/sqlrow"
)

var _ account.Store = (*DB)(nil)

// timeOrNull is t as a column value: NULL for the zero time (never).
func timeOrNull(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return sqlrow.Time(t)
}

// accountsTx runs fn in a transaction that also bumps the accounts version.
func (db *DB) accountsTx(ctx context.Context, what string, fn func(tx pgx.Tx) error) error {
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `UPDATE accounts_version SET version = version + 1`)
		return err
	})
	if err != nil {
		return fmt.Errorf("postgres: %s: %w", what, err)
	}
	return nil
}

// CreateAccount inserts a, setting its ID and CreatedAt.
func (db *DB) CreateAccount(ctx context.Context, a *account.Account) error {
	a.CreatedAt = sqlrow.CreatedAt(a.CreatedAt)
	return db.accountsTx(ctx, "create account", func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, `INSERT INTO accounts (email, plan, hour_limit, day_limit, trial_started_at, created_at) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
			sqlrow.String(a.Email), string(a.Plan), a.HourLimit, a.DayLimit, timeOrNull(a.TrialStartedAt), a.CreatedAt).Scan(&a.ID)
	})
}

// accountColumns are the columns of sqlrow.ReadAccount.
const accountColumns = `id, coalesce(email, ''), plan, hour_limit, day_limit, trial_started_at, created_at`

// Account returns the account with the id.
func (db *DB) Account(ctx context.Context, id int64) (*account.Account, error) {
	a, err := sqlrow.ReadAccount(ctx, reader{db.pool}, `SELECT `+accountColumns+` FROM accounts WHERE id = $1`, id)
	if err != nil {
		return nil, fmt.Errorf("postgres: account %d: %w", id, err)
	}
	return a, nil
}

// AccountByEmail returns the account with the email.
func (db *DB) AccountByEmail(ctx context.Context, email string) (*account.Account, error) {
	a, err := sqlrow.ReadAccount(ctx, reader{db.pool}, `SELECT `+accountColumns+` FROM accounts WHERE email = $1`, email)
	if err != nil {
		return nil, fmt.Errorf("postgres: account %q: %w", email, err)
	}
	return a, nil
}

// UpdateAccount saves a's email, plan, limits and trial.
func (db *DB) UpdateAccount(ctx context.Context, a *account.Account) error {
	return db.accountsTx(ctx, "update account", func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE accounts SET email = $1, plan = $2, hour_limit = $3, day_limit = $4, trial_started_at = $5 WHERE id = $6`,
			sqlrow.String(a.Email), string(a.Plan), a.HourLimit, a.DayLimit, timeOrNull(a.TrialStartedAt), a.ID)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return account.ErrNotFound
		}
		return nil
	})
}

// CreateKey inserts k, setting its ID.
func (db *DB) CreateKey(ctx context.Context, k *account.Key) error {
	k.CreatedAt = sqlrow.CreatedAt(k.CreatedAt)
	return db.accountsTx(ctx, "create key", func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, `INSERT INTO api_keys (account_id, hash, prefix, test, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
			k.AccountID, k.Hash, k.Prefix, k.Test, k.CreatedAt).Scan(&k.ID)
	})
}

// RevokeKey marks the key revoked at at; revoking twice keeps the first time.
func (db *DB) RevokeKey(ctx context.Context, id int64, at time.Time) error {
	return db.accountsTx(ctx, "revoke key", func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE api_keys SET revoked_at = coalesce(revoked_at, $1) WHERE id = $2`, sqlrow.Time(at), id)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("key %d: %w", id, account.ErrNotFound)
		}
		return nil
	})
}

// Keys lists keys by id, all when accountID is 0.
func (db *DB) Keys(ctx context.Context, accountID int64) ([]account.Key, error) {
	keys, err := sqlrow.ReadKeys(ctx, reader{db.pool}, `SELECT id, account_id, hash, prefix, test, created_at, revoked_at
FROM api_keys WHERE $1 = 0 OR account_id = $1 ORDER BY id`, accountID)
	if err != nil {
		return nil, fmt.Errorf("postgres: keys: %w", err)
	}
	return keys, nil
}

// AccountsVersion changes with every account or key change.
func (db *DB) AccountsVersion(ctx context.Context) (int64, error) {
	var v int64
	if err := db.pool.QueryRow(ctx, `SELECT version FROM accounts_version`).Scan(&v); err != nil {
		return 0, fmt.Errorf("postgres: accounts version: %w", err)
	}
	return v, nil
}

// ActiveKeys returns every unrevoked key with its account.
func (db *DB) ActiveKeys(ctx context.Context) ([]account.KeyAccount, error) {
	keys, err := sqlrow.ReadKeyAccounts(ctx, reader{db.pool}, `SELECT k.id, k.hash, k.prefix, k.test, k.created_at,
	a.id, coalesce(a.email, ''), a.plan, a.hour_limit, a.day_limit, a.trial_started_at, a.created_at
FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.revoked_at IS NULL ORDER BY k.id`)
	if err != nil {
		return nil, fmt.Errorf("postgres: active keys: %w", err)
	}
	return keys, nil
}
