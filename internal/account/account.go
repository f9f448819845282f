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

	// The portal's part (issue 14). An account made by the CLI has no
	// password and cannot log in until one is set by a reset.
	PasswordHash string    // argon2id in PHC form ("$argon2id$v=19$m=...,t=...,p=...$salt$hash"); "" = none
	VerifiedAt   time.Time // when the email was verified; zero until then (no key before it in the portal)
	// Stripe's ids once a checkout completed, so that the subscription's end
	// finds the account; "" otherwise.
	StripeCustomerID     string
	StripeSubscriptionID string
	// StripeSubscriptionAt is when Stripe created the event that set
	// StripeSubscriptionID (zero when none, or set before it was kept), so
	// that billing can tell a late retry of an older subscription's event.
	StripeSubscriptionAt time.Time
	// LastUsedAt is read-only: the latest LastUsedAt of the account's keys
	// (Accounts fills it; other reads leave it zero).
	LastUsedAt time.Time
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
	Name      string    // the owner's label ("" for keys made before names existed)
	// LastUsedAt is when a request last came with the key, as the usage
	// meter last flushed it (within a flush interval); zero when never.
	LastUsedAt time.Time
}

// Session is a portal login, kept server-side. Only the hash of its id is
// stored; the id itself lives in the visitor's cookie.
type Session struct {
	IDHash     string // hex sha256 of the cookie's session id
	AccountID  int64
	CreatedAt  time.Time // the absolute expiry counts from here
	LastSeenAt time.Time // the idle expiry counts from here
}

// Token purposes.
const (
	TokenVerify = "verify" // the link of the verification email
	TokenReset  = "reset"  // the link of a password-reset email
)

// Token is a single-use secret sent by email. Only its hash is stored.
type Token struct {
	Hash      string // hex sha256 of the token
	AccountID int64
	Purpose   string // TokenVerify or TokenReset
	CreatedAt time.Time
	ExpiresAt time.Time
}

// Usage is one account's traffic in one UTC hour: every keyed request it
// sent (Requests, 429s included) and the 429s among them (Refused).
type Usage struct {
	AccountID int64
	Hour      time.Time // start of the UTC hour
	Requests  int64
	Refused   int64
}

// KeyUse is a key's latest use, as the usage meter saw it.
type KeyUse struct {
	KeyID int64
	At    time.Time
}

// ErrNotFound is returned when an account, key, session or token does not
// exist.
var ErrNotFound = errors.New("account: not found")

// ErrTooManyKeys is returned by CreateKey when the account already has its
// maximum of active keys.
var ErrTooManyKeys = errors.New("account: too many active keys")

// MaxActiveKeys is how many unrevoked keys an account may hold.
const MaxActiveKeys = 10

// Store keeps accounts and keys, the portal's sessions and one-time tokens,
// and the hourly usage. Times are kept to the microsecond. Only changes to
// accounts and keys move AccountsVersion (they are what the key directory
// holds); sessions, tokens, usage and a key's last use never do.
type Store interface {
	CreateAccount(ctx context.Context, a *Account) error // sets ID and CreatedAt
	// Account and AccountByEmail find live accounts only (a deleted one is
	// ErrNotFound).
	Account(ctx context.Context, id int64) (*Account, error)
	AccountByEmail(ctx context.Context, email string) (*Account, error)
	// AccountByStripeCustomer finds the account a Stripe customer paid for.
	AccountByStripeCustomer(ctx context.Context, customerID string) (*Account, error)
	// Accounts lists the live accounts by id, each with LastUsedAt.
	Accounts(ctx context.Context) ([]Account, error)
	// UpdateAccount saves every field of a but ID, CreatedAt and LastUsedAt;
	// ErrNotFound when a is not a live account.
	UpdateAccount(ctx context.Context, a *Account) error
	// DeleteAccount deletes the account at at: its keys are revoked at at,
	// its sessions and tokens deleted, its email freed for a new sign-up, and
	// in a store that keeps price alerts, its alerts, webhook endpoints and
	// their deliveries deleted with it (nothing fires or is sent for it any
	// more); its usage is kept. ErrNotFound when there is no live account of
	// that id.
	DeleteAccount(ctx context.Context, id int64, at time.Time) error
	// CreateKey inserts k, setting its ID (and CreatedAt when zero). It
	// refuses with ErrTooManyKeys, atomically, when the account already has
	// MaxActiveKeys unrevoked keys, and with ErrNotFound when the account is
	// not live.
	CreateKey(ctx context.Context, k *Key) error
	RevokeKey(ctx context.Context, id int64, at time.Time) error
	// Keys lists keys by id, all when accountID is 0 (a deleted account's
	// too, revoked).
	Keys(ctx context.Context, accountID int64) ([]Key, error)
	// AccountsVersion changes whenever an account or key changes, so replicas
	// reload their in-memory view only when needed.
	AccountsVersion(ctx context.Context) (int64, error)
	// ActiveKeys returns every unrevoked key of a live account with its
	// account.
	ActiveKeys(ctx context.Context) ([]KeyAccount, error)

	// CreateSession stores a new session.
	CreateSession(ctx context.Context, s *Session) error
	// Session returns the session of the id hash (ErrNotFound when none).
	Session(ctx context.Context, idHash string) (*Session, error)
	// TouchSession moves the session's LastSeenAt to at (ErrNotFound when
	// none).
	TouchSession(ctx context.Context, idHash string, at time.Time) error
	// DeleteSession deletes one session (logging out); none is not an error.
	DeleteSession(ctx context.Context, idHash string) error
	// DeleteSessions deletes every session of the account (a password change
	// or reset ends them all).
	DeleteSessions(ctx context.Context, accountID int64) error

	// CreateToken stores a one-time token.
	CreateToken(ctx context.Context, t *Token) error
	// UseToken deletes and returns the token of hash and purpose, so that it
	// works once: ErrNotFound when there is none (never made, used already,
	// or another purpose's). An expired token is returned too, deleted: the
	// caller compares ExpiresAt with its clock.
	UseToken(ctx context.Context, hash, purpose string) (*Token, error)
	// DeleteTokens deletes every token of the account of purpose; none is
	// not an error. Setting a password deletes the reset tokens, so that a
	// link sent before it cannot set another.
	DeleteTokens(ctx context.Context, accountID int64, purpose string) error

	// AddUsage adds each entry's counts to its account's hour (replicas
	// flushing the same hour add up), in one transaction. The store
	// truncates each Hour to the start of its UTC hour; entries with no
	// counts are skipped.
	AddUsage(ctx context.Context, u []Usage) error
	// MarkKeysUsed moves each key's LastUsedAt forward to At (never back),
	// in one transaction; unknown keys and zero times are skipped.
	MarkKeysUsed(ctx context.Context, uses []KeyUse) error
	// UsageBetween returns the account's hours in [from, to), oldest first;
	// hours without traffic are absent.
	UsageBetween(ctx context.Context, accountID int64, from, to time.Time) ([]Usage, error)
}

// KeyAccount is a key with its account.
type KeyAccount struct {
	Key     Key
	Account Account
}
