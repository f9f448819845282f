package sqlrow

import (
	"context"
	"database/sql"
	"time"

	"github.com/cardcat/cardcat/internal/account"
)

// CreatedAt is the creation time of a new account or key as the stores keep
// it: t, now when zero.
func CreatedAt(t time.Time) time.Time {
	if t.IsZero() {
		t = time.Now()
	}
	return Time(t)
}

// The queries of the functions below are the dialect's, their columns in the
// order given; a time is NULL when never set (a trial not started, a key not
// revoked).

// accountScan scans the columns of an account: id, email ("" when none),
// plan, hour_limit, day_limit, trial_started_at, created_at.
type accountScan struct {
	a              account.Account
	plan           string
	trial, created sql.NullTime
}

func (s *accountScan) dest(r Reader) []any {
	return []any{&s.a.ID, &s.a.Email, &s.plan, &s.a.HourLimit, &s.a.DayLimit, r.NullTime(&s.trial), r.NullTime(&s.created)}
}

func (s *accountScan) account() account.Account {
	a := s.a
	a.Plan = account.Plan(s.plan)
	a.TrialStartedAt, a.CreatedAt = s.trial.Time, s.created.Time
	return a
}

// ReadAccount reads the account of query (its columns as accountScan's),
// account.ErrNotFound when there is none.
func ReadAccount(ctx context.Context, r Reader, query string, args ...any) (*account.Account, error) {
	var s accountScan
	found, err := scanOne(ctx, r, query, args, s.dest(r)...)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, account.ErrNotFound
	}
	a := s.account()
	return &a, nil
}

// ReadKeys reads the keys of query: id, account_id, hash, prefix, test,
// created_at, revoked_at.
func ReadKeys(ctx context.Context, r Reader, query string, args ...any) ([]account.Key, error) {
	var (
		k                account.Key
		created, revoked sql.NullTime
		keys             []account.Key
	)
	dest := []any{&k.ID, &k.AccountID, &k.Hash, &k.Prefix, &k.Test, r.NullTime(&created), r.NullTime(&revoked)}
	err := each(ctx, r, query, args, dest, func() error {
		k.CreatedAt, k.RevokedAt = created.Time, revoked.Time
		keys = append(keys, k)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return keys, nil
}

// ReadKeyAccounts reads the keys of query with their accounts: the key's id,
// hash, prefix, test, created_at, then its account's columns (as
// accountScan's).
func ReadKeyAccounts(ctx context.Context, r Reader, query string, args ...any) ([]account.KeyAccount, error) {
	var (
		k       account.Key
		created sql.NullTime
		a       accountScan
		out     []account.KeyAccount
	)
	dest := append([]any{&k.ID, &k.Hash, &k.Prefix, &k.Test, r.NullTime(&created)}, a.dest(r)...)
	err := each(ctx, r, query, args, dest, func() error {
		ka := account.KeyAccount{Key: k, Account: a.account()}
		ka.Key.AccountID, ka.Key.CreatedAt = ka.Account.ID, created.Time
		out = append(out, ka)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
