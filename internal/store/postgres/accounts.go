package postgres

import (
	"context"
	"errors"
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
	return db.tx(ctx, what, func(tx pgx.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `UPDATE accounts_version SET version = version + 1`)
		return err
	})
}

// tx runs fn in a transaction; what names it in errors.
func (db *DB) tx(ctx context.Context, what string, fn func(tx pgx.Tx) error) error {
	if err := pgx.BeginFunc(ctx, db.pool, fn); err != nil {
		return fmt.Errorf("postgres: %s: %w", what, err)
	}
	return nil
}

// CreateAccount inserts a, setting its ID and CreatedAt.
func (db *DB) CreateAccount(ctx context.Context, a *account.Account) error {
	a.CreatedAt = sqlrow.CreatedAt(a.CreatedAt)
	return db.accountsTx(ctx, "create account", func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, `INSERT INTO accounts (email, plan, hour_limit, day_limit, trial_started_at, created_at,
	password_hash, verified_at, stripe_customer_id, stripe_subscription_id, stripe_subscription_at)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id`,
			sqlrow.String(a.Email), string(a.Plan), a.HourLimit, a.DayLimit, timeOrNull(a.TrialStartedAt), a.CreatedAt,
			a.PasswordHash, timeOrNull(a.VerifiedAt), sqlrow.String(a.StripeCustomerID), a.StripeSubscriptionID,
			timeOrNull(a.StripeSubscriptionAt)).Scan(&a.ID)
	})
}

// accountColumns are the columns of sqlrow.ReadAccount, of the accounts
// table as a.
const accountColumns = `a.id, coalesce(a.email, ''), a.plan, a.hour_limit, a.day_limit, a.trial_started_at, a.created_at,
	a.password_hash, a.verified_at, coalesce(a.stripe_customer_id, ''), a.stripe_subscription_id, a.stripe_subscription_at`

// liveAccount reads the live account where cond (on a, with $1) holds.
func (db *DB) liveAccount(ctx context.Context, cond string, arg any) (*account.Account, error) {
	return sqlrow.ReadAccount(ctx, reader{db.pool}, `SELECT `+accountColumns+` FROM accounts a WHERE a.deleted_at IS NULL AND `+cond, arg)
}

// Account returns the live account with the id.
func (db *DB) Account(ctx context.Context, id int64) (*account.Account, error) {
	a, err := db.liveAccount(ctx, `a.id = $1`, id)
	if err != nil {
		return nil, fmt.Errorf("postgres: account %d: %w", id, err)
	}
	return a, nil
}

// AccountByEmail returns the live account with the email.
func (db *DB) AccountByEmail(ctx context.Context, email string) (*account.Account, error) {
	a, err := db.liveAccount(ctx, `a.email = $1`, email)
	if err != nil {
		return nil, fmt.Errorf("postgres: account %q: %w", email, err)
	}
	return a, nil
}

// AccountByStripeCustomer returns the live account of the Stripe customer.
func (db *DB) AccountByStripeCustomer(ctx context.Context, customerID string) (*account.Account, error) {
	a, err := db.liveAccount(ctx, `a.stripe_customer_id = $1`, customerID)
	if err != nil {
		return nil, fmt.Errorf("postgres: account of Stripe customer %q: %w", customerID, err)
	}
	return a, nil
}

// Accounts lists the live accounts by id, each with its keys' last use.
func (db *DB) Accounts(ctx context.Context) ([]account.Account, error) {
	accounts, err := sqlrow.ReadAccounts(ctx, reader{db.pool}, `SELECT `+accountColumns+`,
	(SELECT max(k.last_used_at) FROM api_keys k WHERE k.account_id = a.id)
FROM accounts a WHERE a.deleted_at IS NULL ORDER BY a.id`)
	if err != nil {
		return nil, fmt.Errorf("postgres: accounts: %w", err)
	}
	return accounts, nil
}

// UpdateAccount saves every field of a live account but its ID, CreatedAt
// and LastUsedAt.
func (db *DB) UpdateAccount(ctx context.Context, a *account.Account) error {
	return db.accountsTx(ctx, "update account", func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE accounts SET email = $1, plan = $2, hour_limit = $3, day_limit = $4, trial_started_at = $5,
	password_hash = $6, verified_at = $7, stripe_customer_id = $8, stripe_subscription_id = $9, stripe_subscription_at = $10
WHERE id = $11 AND deleted_at IS NULL`,
			sqlrow.String(a.Email), string(a.Plan), a.HourLimit, a.DayLimit, timeOrNull(a.TrialStartedAt),
			a.PasswordHash, timeOrNull(a.VerifiedAt), sqlrow.String(a.StripeCustomerID), a.StripeSubscriptionID,
			timeOrNull(a.StripeSubscriptionAt), a.ID)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
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
	return db.accountsTx(ctx, "delete account", func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE accounts SET email = NULL, password_hash = '', deleted_at = $1 WHERE id = $2 AND deleted_at IS NULL`, sqlrow.Time(at), id)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("account %d: %w", id, account.ErrNotFound)
		}
		if _, err := tx.Exec(ctx, `UPDATE api_keys SET revoked_at = $1 WHERE account_id = $2 AND revoked_at IS NULL`, sqlrow.Time(at), id); err != nil {
			return err
		}
		for _, q := range []string{`DELETE FROM sessions WHERE account_id = $1`, `DELETE FROM tokens WHERE account_id = $1`} {
			if _, err := tx.Exec(ctx, q, id); err != nil {
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
// live account already has account.MaxActiveKeys unrevoked keys. The
// account's row is locked first, so that concurrent creates for one account
// count one after the other.
func (db *DB) CreateKey(ctx context.Context, k *account.Key) error {
	k.CreatedAt = sqlrow.CreatedAt(k.CreatedAt)
	return db.accountsTx(ctx, "create key", func(tx pgx.Tx) error {
		var one int
		err := tx.QueryRow(ctx, `SELECT 1 FROM accounts WHERE id = $1 AND deleted_at IS NULL FOR UPDATE`, k.AccountID).Scan(&one)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("account %d: %w", k.AccountID, account.ErrNotFound)
		}
		if err != nil {
			return err
		}
		var active int64
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM api_keys WHERE account_id = $1 AND revoked_at IS NULL`, k.AccountID).Scan(&active); err != nil {
			return err
		}
		if active >= account.MaxActiveKeys {
			return account.ErrTooManyKeys
		}
		return tx.QueryRow(ctx, `INSERT INTO api_keys (account_id, hash, prefix, test, created_at, name) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
			k.AccountID, k.Hash, k.Prefix, k.Test, k.CreatedAt, k.Name).Scan(&k.ID)
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
	keys, err := sqlrow.ReadKeys(ctx, reader{db.pool}, `SELECT id, account_id, hash, prefix, test, created_at, revoked_at, name, last_used_at
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

// ActiveKeys returns every unrevoked key of a live account with its account.
func (db *DB) ActiveKeys(ctx context.Context) ([]account.KeyAccount, error) {
	keys, err := sqlrow.ReadKeyAccounts(ctx, reader{db.pool}, `SELECT k.id, k.hash, k.prefix, k.test, k.created_at, k.name, k.last_used_at,
	`+accountColumns+`
FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.revoked_at IS NULL AND a.deleted_at IS NULL ORDER BY k.id`)
	if err != nil {
		return nil, fmt.Errorf("postgres: active keys: %w", err)
	}
	return keys, nil
}
