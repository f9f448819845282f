// Package account is the contract between a caller and the API: accounts,
// their API keys (the key format: key.go), plans and their limits (one
// table: plan.go), trials, and who a request's key makes the caller
// (caller.go: its account, key, plan, rate-limit pool and paid access,
// decided with the clock). The HTTP layer asks; this package decides.
package account

import (
	"context"
	"errors"
	"time"
)

// Account owns keys; its plan, limits and trial apply to all of them.
type Account struct {
	ID             int64
	Email          string
	Plan           Plan
	HourLimit      int64 // custom limits (Coffee, Business); 0 = the plan's default
	DayLimit       int64
	TrialStartedAt time.Time // zero when no trial was ever started
	CreatedAt      time.Time
}

// Key is an API key. Only its hash is stored; the key itself is shown once.
type Key struct {
	ID        int64
	AccountID int64
	Hash      string // hex sha256 of the whole key
	Prefix    string // "pk_live_ab12" (kind plus 4 characters), to recognise a key in lists
	Test      bool
	CreatedAt time.Time
	RevokedAt time.Time // zero while active
}

// ErrNotFound is returned when an account or key does not exist.
var ErrNotFound = errors.New("account: not found")

// Store keeps accounts and keys.
type Store interface {
	CreateAccount(ctx context.Context, a *Account) error // sets ID and CreatedAt
	Account(ctx context.Context, id int64) (*Account, error)
	AccountByEmail(ctx context.Context, email string) (*Account, error)
	UpdateAccount(ctx context.Context, a *Account) error
	CreateKey(ctx context.Context, k *Key) error // sets ID
	RevokeKey(ctx context.Context, id int64, at time.Time) error
	// Keys lists keys, all when accountID is 0.
	Keys(ctx context.Context, accountID int64) ([]Key, error)
	// AccountsVersion changes whenever an account or key changes, so replicas
	// reload their in-memory view only when needed.
	AccountsVersion(ctx context.Context) (int64, error)
	// ActiveKeys returns every unrevoked key with its account.
	ActiveKeys(ctx context.Context) ([]KeyAccount, error)
}

// KeyAccount is a key with its account.
type KeyAccount struct {
	Key     Key
	Account Account
}
