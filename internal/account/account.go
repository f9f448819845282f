// Package account holds accounts, their API keys, plans and trials, and the
// access decisions the API makes from them.
package account

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Plan is an account's subscription.
type Plan string

// The plans of SPEC.md's Limits table.
const (
	Free        Plan = "free"
	EarlyAccess Plan = "early-access"
	Coffee      Plan = "coffee"
	Pro         Plan = "pro"
	Ultra       Plan = "ultra"
	Business    Plan = "business"
)

// Plans lists every plan in the order of the spec's table.
var Plans = []Plan{Free, EarlyAccess, Coffee, Pro, Ultra, Business}

// ParsePlan validates a plan name.
func ParsePlan(s string) (Plan, error) {
	for _, p := range Plans {
		if string(p) == s {
			return p, nil
		}
	}
	names := make([]string, len(Plans))
	for i, p := range Plans {
		names[i] = string(p)
	}
	return "", fmt.Errorf("unknown plan %q (want one of %s)", s, strings.Join(names, ", "))
}

// DefaultLimits are a plan's hourly and daily quotas. Coffee is a floor and
// Business has no default: both take the account's custom limits.
func DefaultLimits(p Plan) (hour, day int64) {
	switch p {
	case EarlyAccess, Coffee:
		return 1000, 10000
	case Pro:
		return 5000, 50000
	case Ultra:
		return 7000, 70000
	case Business:
		return 10000, 100000
	default:
		return 100, 1000
	}
}

// CustomLimits reports whether the plan takes per-account limits.
func CustomLimits(p Plan) bool { return p == Coffee || p == Business }

// TrialLength is how long a trial gives paid access.
const TrialLength = 7 * 24 * time.Hour

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

// Limits returns the account's effective quotas. Coffee never goes below its floor.
func (a *Account) Limits() (hour, day int64) {
	hour, day = DefaultLimits(a.Plan)
	if CustomLimits(a.Plan) {
		if a.HourLimit > 0 && (a.Plan == Business || a.HourLimit > hour) {
			hour = a.HourLimit
		}
		if a.DayLimit > 0 && (a.Plan == Business || a.DayLimit > day) {
			day = a.DayLimit
		}
	}
	return hour, day
}

// Access is the answer to "may this account call a paid endpoint?".
type Access int

const (
	// Allowed: Ultra, Business, or an active trial.
	Allowed Access = iota
	// NeedsTrial: no trial was ever started (403 with redeem_url).
	NeedsTrial
	// TrialExpired: the trial ended (403 with upgrade_url).
	TrialExpired
)

// PaidAccess decides paid-endpoint access at now.
func (a *Account) PaidAccess(now time.Time) Access {
	switch {
	case a.Plan == Ultra || a.Plan == Business:
		return Allowed
	case a.TrialStartedAt.IsZero():
		return NeedsTrial
	case now.Before(a.TrialStartedAt.Add(TrialLength)):
		return Allowed
	default:
		return TrialExpired
	}
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

const (
	livePrefix = "pk_live_"
	testPrefix = "pk_test_"
	keyBody    = 32
	alphabet   = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
)

// WellFormed reports whether s has a key's form: pk_live_ or pk_test_ then 32
// characters [A-Za-z0-9]. Checked before any lookup.
func WellFormed(s string) bool {
	if len(s) != len(livePrefix)+keyBody || !(strings.HasPrefix(s, livePrefix) || strings.HasPrefix(s, testPrefix)) {
		return false
	}
	for i := len(livePrefix); i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// NewKey returns a fresh key from the system's cryptographic random source.
func NewKey(test bool) (string, error) {
	prefix := livePrefix
	if test {
		prefix = testPrefix
	}
	b := make([]byte, keyBody)
	// Rejection sampling keeps every character uniformly likely.
	buf := make([]byte, 64)
	for n := 0; n < keyBody; {
		if _, err := rand.Read(buf); err != nil {
			return "", fmt.Errorf("account: random source: %w", err)
		}
		for _, v := range buf {
			if n == keyBody {
				break
			}
			if int(v) < 256-256%len(alphabet) {
				b[n] = alphabet[int(v)%len(alphabet)]
				n++
			}
		}
	}
	return prefix + string(b), nil
}

// HashKey is the stored form of a key. Keys carry 190 bits of randomness, so a
// fast hash is enough: nothing can be guessed from it.
func HashKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// DisplayPrefix is the part of a key shown in listings.
func DisplayPrefix(key string) string { return key[:len(livePrefix)+4] }

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
