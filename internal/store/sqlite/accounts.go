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
	return db.writeTx(ctx, what, func(tx *sql.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE accounts_version SET version = version + 1`)
		return err
	})
}

// writeTx runs fn in a write transaction on the store's one writer
// connection, which takes the write lock at BEGIN: what fn reads stays true
// until it commits.
func (db *DB) writeTx(ctx context.Context, what string, fn func(tx *sql.Tx) error) error {
	if err := inTx(ctx, db.write, fn); err != nil {
		return fmt.Errorf("sqlite: %s: %w", what, err)
	}
	return nil
}

// catalogueTx is writeTx on the catalogue file's writer.
func (db *DB) catalogueTx(ctx context.Context, what string, fn func(tx *sql.Tx) error) error {
	if err := inTx(ctx, db.catWrite, fn); err != nil {
		return fmt.Errorf("sqlite: %s: %w", what, err)
	}
	return nil
}

// CreateAccount inserts a, setting its ID and CreatedAt.
func (db *DB) CreateAccount(ctx context.Context, a *account.Account) error {
	a.CreatedAt = sqlrow.CreatedAt(a.CreatedAt)
	return db.accountsTx(ctx, "create account", func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO accounts (email, plan, hour_limit, day_limit, trial_started_at, created_at,
	password_hash, verified_at, stripe_customer_id, stripe_subscription_id, stripe_subscription_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			sqlrow.String(a.Email), string(a.Plan), a.HourLimit, a.DayLimit, microsOrZero(a.TrialStartedAt), micros(a.CreatedAt),
			a.PasswordHash, microsOrZero(a.VerifiedAt), sqlrow.String(a.StripeCustomerID), a.StripeSubscriptionID, microsOrZero(a.StripeSubscriptionAt))
		if err != nil {
			return err
		}
		a.ID, err = res.LastInsertId()
		return err
	})
}

// accountColumns are the columns of sqlrow.ReadAccount, of the accounts
// table as a, times never set (0 here) read as NULL.
const accountColumns = `a.id, coalesce(a.email, ''), a.plan, a.hour_limit, a.day_limit, nullif(a.trial_started_at, 0), a.created_at,
	a.password_hash, nullif(a.verified_at, 0), coalesce(a.stripe_customer_id, ''), a.stripe_subscription_id, nullif(a.stripe_subscription_at, 0)`

// liveAccount reads the live account where cond (on a) holds.
func (db *DB) liveAccount(ctx context.Context, cond string, arg any) (*account.Account, error) {
	return sqlrow.ReadAccount(ctx, reader{db.read}, `SELECT `+accountColumns+` FROM accounts a WHERE a.deleted_at = 0 AND `+cond, arg)
}

// Account returns the live account with the id.
func (db *DB) Account(ctx context.Context, id int64) (*account.Account, error) {
	a, err := db.liveAccount(ctx, `a.id = ?`, id)
	if err != nil {
		return nil, fmt.Errorf("sqlite: account %d: %w", id, err)
	}
	return a, nil
}

// AccountByEmail returns the live account with the email.
func (db *DB) AccountByEmail(ctx context.Context, email string) (*account.Account, error) {
	a, err := db.liveAccount(ctx, `a.email = ?`, email)
	if err != nil {
		return nil, fmt.Errorf("sqlite: account %q: %w", email, err)
	}
	return a, nil
}

// AccountByStripeCustomer returns the live account of the Stripe customer.
func (db *DB) AccountByStripeCustomer(ctx context.Context, customerID string) (*account.Account, error) {
	a, err := db.liveAccount(ctx, `a.stripe_customer_id = ?`, customerID)
	if err != nil {
		return nil, fmt.Errorf("sqlite: account of Stripe customer %q: %w", customerID, err)
	}
	return a, nil
}

// Accounts lists the live accounts by id, each with its keys' last use.
func (db *DB) Accounts(ctx context.Context) ([]account.Account, error) {
	accounts, err := sqlrow.ReadAccounts(ctx, reader{db.read}, `SELECT `+accountColumns+`,
	(SELECT nullif(max(k.last_used_at), 0) FROM api_keys k WHERE k.account_id = a.id)
FROM accounts a WHERE a.deleted_at = 0 ORDER BY a.id`)
	if err != nil {
		return nil, fmt.Errorf("sqlite: accounts: %w", err)
	}
	return accounts, nil
}

// UpdateAccount saves every field of a live account but its ID, CreatedAt
// and LastUsedAt.
func (db *DB) UpdateAccount(ctx context.Context, a *account.Account) error {
	return db.accountsTx(ctx, "update account", func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE accounts SET email = ?, plan = ?, hour_limit = ?, day_limit = ?, trial_started_at = ?,
	password_hash = ?, verified_at = ?, stripe_customer_id = ?, stripe_subscription_id = ?, stripe_subscription_at = ?
WHERE id = ? AND deleted_at = 0`,
			sqlrow.String(a.Email), string(a.Plan), a.HourLimit, a.DayLimit, microsOrZero(a.TrialStartedAt),
			a.PasswordHash, microsOrZero(a.VerifiedAt), sqlrow.String(a.StripeCustomerID), a.StripeSubscriptionID,
			microsOrZero(a.StripeSubscriptionAt), a.ID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return account.ErrNotFound
		}
		return nil
	})
}

// DeleteAccount deletes the live account at at: its email is freed, its
// password cleared, its keys revoked, its sessions and tokens deleted, its
// alerts and webhooks deleted (deleteAccountAlerts); its row stays for its
// usage and keys.
func (db *DB) DeleteAccount(ctx context.Context, id int64, at time.Time) error {
	return db.accountsTx(ctx, "delete account", func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE accounts SET email = NULL, password_hash = '', deleted_at = ? WHERE id = ? AND deleted_at = 0`, micros(at), id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("account %d: %w", id, account.ErrNotFound)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE api_keys SET revoked_at = ? WHERE account_id = ? AND revoked_at = 0`, micros(at), id); err != nil {
			return err
		}
		for _, q := range []string{`DELETE FROM sessions WHERE account_id = ?`, `DELETE FROM tokens WHERE account_id = ?`} {
			if _, err := tx.ExecContext(ctx, q, id); err != nil {
				return err
			}
		}
		if err := deleteAccountSubscriptions(ctx, tx, id); err != nil {
			return err
		}
		return deleteAccountAlerts(ctx, tx, id)
	})
}

// CreateKey inserts k, setting its ID (and CreatedAt when zero), unless the
// live account already has account.MaxActiveKeys unrevoked keys: the count
// and the insert share the write lock, so concurrent creates cannot pass the
// limit together.
func (db *DB) CreateKey(ctx context.Context, k *account.Key) error {
	k.CreatedAt = sqlrow.CreatedAt(k.CreatedAt)
	return db.accountsTx(ctx, "create key", func(tx *sql.Tx) error {
		var live, active int64
		err := tx.QueryRowContext(ctx, `SELECT count(*), (SELECT count(*) FROM api_keys WHERE account_id = ? AND revoked_at = 0)
FROM accounts WHERE id = ? AND deleted_at = 0`, k.AccountID, k.AccountID).Scan(&live, &active)
		if err != nil {
			return err
		}
		if live == 0 {
			return fmt.Errorf("account %d: %w", k.AccountID, account.ErrNotFound)
		}
		if active >= account.MaxActiveKeys {
			return account.ErrTooManyKeys
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO api_keys (account_id, hash, prefix, test, created_at, name) VALUES (?, ?, ?, ?, ?, ?)`,
			k.AccountID, k.Hash, k.Prefix, k.Test, micros(k.CreatedAt), k.Name)
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
	keys, err := sqlrow.ReadKeys(ctx, reader{db.read}, `SELECT id, account_id, hash, prefix, test, created_at, nullif(revoked_at, 0), name, nullif(last_used_at, 0)
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

// ActiveKeys returns every unrevoked key of a live account with its account.
func (db *DB) ActiveKeys(ctx context.Context) ([]account.KeyAccount, error) {
	keys, err := sqlrow.ReadKeyAccounts(ctx, reader{db.read}, `SELECT k.id, k.hash, k.prefix, k.test, k.created_at, k.name, nullif(k.last_used_at, 0),
	`+accountColumns+`
FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.revoked_at = 0 AND a.deleted_at = 0 ORDER BY k.id`)
	if err != nil {
		return nil, fmt.Errorf("sqlite: active keys: %w", err)
	}
	return keys, nil
}
