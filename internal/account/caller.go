package account

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cardcat/cardcat/internal/ratelimit"
)

// TrialLength is how long a trial gives paid access.
const TrialLength = 7 * 24 * time.Hour

// Limits returns the account's effective quotas: the plan's, or the
// account's custom ones where the plan takes them. Coffee never goes below
// its floor.
func (a *Account) Limits() ratelimit.Limits {
	t := a.Plan.terms()
	lim := t.limits
	if t.custom {
		floor := a.Plan != Business
		if a.HourLimit > 0 && (!floor || a.HourLimit > lim.Hour) {
			lim.Hour = a.HourLimit
		}
		if a.DayLimit > 0 && (!floor || a.DayLimit > lim.Day) {
			lim.Day = a.DayLimit
		}
	}
	return lim
}

// TrialEnd is when the account's trial ends or ended; zero when it never
// started.
func (a *Account) TrialEnd() time.Time {
	if a.TrialStartedAt.IsZero() {
		return time.Time{}
	}
	return a.TrialStartedAt.Add(TrialLength)
}

// Access answers "may this caller use the paid endpoints?" and, when not,
// what the 403 offers: a trial to start, or an upgrade.
type Access uint8

const (
	// NeedsTrial: no paid plan and no trial ever started (403 with
	// redeem_url). The zero value, so that a Caller that says nothing has no
	// paid access.
	NeedsTrial Access = iota
	// Allowed: Ultra, Business, or an active 7-day trial.
	Allowed
	// TrialExpired: no paid plan and the trial has ended (403 with
	// upgrade_url).
	TrialExpired
)

// PaidAccess decides paid-endpoint access at now (a trial ends mid-day).
func (a *Account) PaidAccess(now time.Time) Access {
	switch {
	case a.Plan.IncludesPaid():
		return Allowed
	case a.TrialStartedAt.IsZero():
		return NeedsTrial
	case now.Before(a.TrialEnd()):
		return Allowed
	default:
		return TrialExpired
	}
}

// PoolPrefix keeps the accounts' rate-limit pools apart from the guard
// buckets of client IPs ("ip:").
const PoolPrefix = "acct:"

// PoolName is the rate-limit pool of an account: all of its keys, both
// games and every route draw on it, so that more keys never mean more quota.
func PoolName(accountID int64) string { return PoolPrefix + strconv.FormatInt(accountID, 10) }

// Caller is who a valid key makes the sender of a request, as decided at
// the request's time.
type Caller struct {
	AccountID string // decimal
	// KeyID names the key in logs without revealing it: its display prefix.
	KeyID string
	Plan  Plan
	// Paid is whether the caller may use the paid endpoints; the zero value
	// (NeedsTrial) gives no access.
	Paid Access
	// Pool names the rate-limit pool the caller's requests draw on.
	Pool string
	// Limits are the pool's quotas as the plan sets them now, so that a plan
	// change applies to the next request.
	Limits ratelimit.Limits
	// AccountRef and KeyRef are the account's and the key's store ids, for
	// the usage meter; 0 when unknown (accounttest.KeyFormat, CallerOf's key).
	AccountRef, KeyRef int64
}

// PaidFor is the caller's access to the paid endpoints of a game; proPaid
// says whether the Pro plan's paid access covers that game
// (game.Game.ProPaid).
func (c *Caller) PaidFor(proPaid bool) Access {
	if proPaid && c.Paid != Allowed && c.Plan.Paid() == PaidOriginalGames {
		return Allowed
	}
	return c.Paid
}

// CallerOf is the caller that a key of acc makes at now.
func CallerOf(acc *Account, keyID string, now time.Time) Caller {
	return callerOf(acc, keyID, 0, now, &accountNames{id: strconv.FormatInt(acc.ID, 10), pool: PoolName(acc.ID)})
}

// callerOf is CallerOf with the key's id and the account's strings already
// made.
func callerOf(acc *Account, keyID string, keyRef int64, now time.Time, n *accountNames) Caller {
	return Caller{AccountID: n.id, KeyID: keyID, AccountRef: acc.ID, KeyRef: keyRef, Plan: acc.Plan, Paid: acc.PaidAccess(now), Pool: n.pool, Limits: acc.Limits()}
}

// ErrInvalidKey is wrapped by Authenticate's error for a key that does not
// open the API (malformed, unknown or revoked): a 401, not a fault.
var ErrInvalidKey = errors.New("account: invalid API key")

// Errors of Authenticate, made once so that refusing a key allocates nothing.
var (
	errMalformed  = fmt.Errorf("malformed key: %w", ErrInvalidKey)
	errUnknownKey = fmt.Errorf("unknown or revoked key: %w", ErrInvalidKey)
)

// Keys looks up the account of a well-formed key; *Directory is the
// production one.
type Keys interface {
	Lookup(key string) (*Account, bool)
}

// keyRefs is Keys that also knows each key's store id (the Directory);
// with it the Caller gets a KeyRef.
type keyRefs interface {
	LookupRef(key string) (acc *Account, keyRef int64, ok bool)
}

var (
	_ Keys    = (*Directory)(nil)
	_ keyRefs = (*Directory)(nil)
)

// Authenticator turns a request's key into its Caller. Lookups are served
// from Keys (the Directory: in memory, refreshed from the store every few
// seconds), so a request costs a format check, one SHA-256 and a map lookup,
// never a database round trip.
type Authenticator struct {
	keys Keys
	refs keyRefs    // keys, when it knows key ids; else nil
	dir  *Directory // keys, when it is the Directory (AuthenticateMemo); else nil
	now  func() time.Time

	// names holds each account's id and pool as strings (int64 ->
	// *accountNames), made on its first request rather than on every one.
	// It grows by one entry per account that ever sent a request.
	names sync.Map
}

type accountNames struct{ id, pool string }

// NewAuthenticator returns an Authenticator on keys; now is the clock that
// decides whether a trial is still running (time.Now when nil).
func NewAuthenticator(keys Keys, now func() time.Time) *Authenticator {
	if now == nil {
		now = time.Now
	}
	refs, _ := keys.(keyRefs)
	dir, _ := keys.(*Directory)
	return &Authenticator{keys: keys, refs: refs, dir: dir, now: now}
}

// Authenticate returns the caller of key. An unknown, revoked or malformed
// key returns an error wrapping ErrInvalidKey. The caller's plan, limits and
// paid access are the account's as Keys holds it now.
func (a *Authenticator) Authenticate(_ context.Context, key string) (Caller, error) {
	return a.authenticate(key)
}

// AuthenticateMemo is Authenticate for a request of a client connection
// that keeps m for its requests: a key m remembers is not hashed and looked
// up again while the directory's keys are the same (KeyMemo). With another
// Keys than the Directory, m is not used.
func (a *Authenticator) AuthenticateMemo(_ context.Context, key string, m *KeyMemo) (Caller, error) {
	if a.dir == nil {
		return a.authenticate(key)
	}
	view := a.dir.view.Load()
	e, names, ok := m.remembered(key, view)
	if !ok {
		if !WellFormed(key) {
			return Caller{}, errMalformed
		}
		if e, ok = view.lookup(key); !ok {
			return Caller{}, errUnknownKey
		}
		names = a.namesOf(e.acc.ID)
		// A copy of the key: the memo outlives the request it came with.
		*m = KeyMemo{key: strings.Clone(key), gen: view.gen, entry: e, names: names}
	}
	return a.callerOf(e.acc, key, e.keyID, names), nil
}

func (a *Authenticator) authenticate(key string) (Caller, error) {
	if !WellFormed(key) {
		return Caller{}, errMalformed
	}
	var (
		acc    *Account
		keyRef int64
		ok     bool
	)
	if a.refs != nil {
		acc, keyRef, ok = a.refs.LookupRef(key)
	} else {
		acc, ok = a.keys.Lookup(key)
	}
	if !ok {
		return Caller{}, errUnknownKey
	}
	return a.callerOf(acc, key, keyRef, a.namesOf(acc.ID)), nil
}

// callerOf is the caller of acc's key now.
func (a *Authenticator) callerOf(acc *Account, key string, keyRef int64, names *accountNames) Caller {
	// Only a started trial makes paid access depend on the time; the clock
	// is read only then, since it is a good part of a lookup's cost.
	var now time.Time
	if !acc.TrialStartedAt.IsZero() {
		now = a.now()
	}
	return callerOf(acc, DisplayPrefix(key), keyRef, now, names)
}

func (a *Authenticator) namesOf(id int64) *accountNames {
	if n, ok := a.names.Load(id); ok {
		return n.(*accountNames)
	}
	n, _ := a.names.LoadOrStore(id, &accountNames{id: strconv.FormatInt(id, 10), pool: PoolName(id)})
	return n.(*accountNames)
}
