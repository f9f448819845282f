package sqlrow

import (
	"cmp"
	"context"
	"database/sql"
	"slices"
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

// Hour is the start of t's UTC hour, as usage rows are keyed.
func Hour(t time.Time) time.Time { return t.UTC().Truncate(time.Hour) }

// The queries of the functions below are the dialect's, their columns in the
// order given; a time is NULL when never set (a trial not started, a key not
// revoked), a text "" when none.

// accountScan scans the columns of an account: id, email, plan, hour_limit,
// day_limit, trial_started_at, created_at, password_hash, verified_at,
// stripe_customer_id, stripe_subscription_id, stripe_subscription_at.
type accountScan struct {
	a                                    account.Account
	plan                                 string
	trial, created, verified, subscribed sql.NullTime
}

func (s *accountScan) dest(r Reader) []any {
	return []any{&s.a.ID, &s.a.Email, &s.plan, &s.a.HourLimit, &s.a.DayLimit, r.NullTime(&s.trial), r.NullTime(&s.created),
		&s.a.PasswordHash, r.NullTime(&s.verified), &s.a.StripeCustomerID, &s.a.StripeSubscriptionID, r.NullTime(&s.subscribed)}
}

func (s *accountScan) account() account.Account {
	a := s.a
	a.Plan = account.Plan(s.plan)
	a.TrialStartedAt, a.CreatedAt, a.VerifiedAt, a.StripeSubscriptionAt = s.trial.Time, s.created.Time, s.verified.Time, s.subscribed.Time
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

// ReadAccounts reads the accounts of query: accountScan's columns, then the
// last use of the account's keys.
func ReadAccounts(ctx context.Context, r Reader, query string, args ...any) ([]account.Account, error) {
	var (
		s    accountScan
		used sql.NullTime
		out  []account.Account
	)
	dest := append(s.dest(r), r.NullTime(&used))
	err := each(ctx, r, query, args, dest, func() error {
		a := s.account()
		a.LastUsedAt = used.Time
		out = append(out, a)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ReadKeys reads the keys of query: id, account_id, hash, prefix, test,
// created_at, revoked_at, name, last_used_at.
func ReadKeys(ctx context.Context, r Reader, query string, args ...any) ([]account.Key, error) {
	var (
		k                      account.Key
		created, revoked, used sql.NullTime
		keys                   []account.Key
	)
	dest := []any{&k.ID, &k.AccountID, &k.Hash, &k.Prefix, &k.Test, r.NullTime(&created), r.NullTime(&revoked), &k.Name, r.NullTime(&used)}
	err := each(ctx, r, query, args, dest, func() error {
		k.CreatedAt, k.RevokedAt, k.LastUsedAt = created.Time, revoked.Time, used.Time
		keys = append(keys, k)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return keys, nil
}

// ReadKeyAccounts reads the keys of query with their accounts: the key's id,
// hash, prefix, test, created_at, name, last_used_at, then its account's
// columns (as accountScan's).
func ReadKeyAccounts(ctx context.Context, r Reader, query string, args ...any) ([]account.KeyAccount, error) {
	var (
		k             account.Key
		created, used sql.NullTime
		a             accountScan
		out           []account.KeyAccount
	)
	dest := append([]any{&k.ID, &k.Hash, &k.Prefix, &k.Test, r.NullTime(&created), &k.Name, r.NullTime(&used)}, a.dest(r)...)
	err := each(ctx, r, query, args, dest, func() error {
		ka := account.KeyAccount{Key: k, Account: a.account()}
		ka.Key.AccountID, ka.Key.CreatedAt, ka.Key.LastUsedAt = ka.Account.ID, created.Time, used.Time
		out = append(out, ka)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ReadSession reads the session of query: id_hash, account_id, created_at,
// last_seen_at; account.ErrNotFound when there is none.
func ReadSession(ctx context.Context, r Reader, query string, args ...any) (*account.Session, error) {
	var (
		s             account.Session
		created, seen sql.NullTime
	)
	found, err := scanOne(ctx, r, query, args, &s.IDHash, &s.AccountID, r.NullTime(&created), r.NullTime(&seen))
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, account.ErrNotFound
	}
	s.CreatedAt, s.LastSeenAt = created.Time, seen.Time
	return &s, nil
}

// ReadToken reads the token of query: hash, account_id, purpose, created_at,
// expires_at; account.ErrNotFound when there is none.
func ReadToken(ctx context.Context, r Reader, query string, args ...any) (*account.Token, error) {
	var (
		t                account.Token
		created, expires sql.NullTime
	)
	found, err := scanOne(ctx, r, query, args, &t.Hash, &t.AccountID, &t.Purpose, r.NullTime(&created), r.NullTime(&expires))
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, account.ErrNotFound
	}
	t.CreatedAt, t.ExpiresAt = created.Time, expires.Time
	return &t, nil
}

// ReadUsage reads the usage rows of query: account_id, hour, requests,
// refused.
func ReadUsage(ctx context.Context, r Reader, query string, args ...any) ([]account.Usage, error) {
	var (
		u    account.Usage
		hour sql.NullTime
		out  []account.Usage
	)
	dest := []any{&u.AccountID, r.NullTime(&hour), &u.Requests, &u.Refused}
	err := each(ctx, r, query, args, dest, func() error {
		u.Hour = hour.Time
		out = append(out, u)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// UsageRows prepares usage entries for writing: each hour truncated to its
// UTC hour, entries without any count dropped, sorted by account and hour so
// that concurrent writers lock rows in one order (no deadlock between two
// replicas flushing at once).
func UsageRows(u []account.Usage) []account.Usage {
	out := make([]account.Usage, 0, len(u))
	for _, e := range u {
		if e.Requests == 0 && e.Refused == 0 {
			continue
		}
		e.Hour = Hour(e.Hour)
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b account.Usage) int {
		return cmp.Or(cmp.Compare(a.AccountID, b.AccountID), a.Hour.Compare(b.Hour))
	})
	return out
}

// KeyUses prepares key uses for writing: zero times dropped, each time as the
// stores keep it, sorted by key so that concurrent writers lock rows in one
// order.
func KeyUses(uses []account.KeyUse) []account.KeyUse {
	out := make([]account.KeyUse, 0, len(uses))
	for _, u := range uses {
		if !u.At.IsZero() {
			out = append(out, account.KeyUse{KeyID: u.KeyID, At: Time(u.At)})
		}
	}
	slices.SortFunc(out, func(a, b account.KeyUse) int { return cmp.Compare(a.KeyID, b.KeyID) })
	return out
}
