// Package keyauth is the production httpapi.Authenticator: API keys are
// checked against the accounts, and the caller gets its account's plan,
// paid access and rate-limit pool.
//
// Lookups are served from an account.Directory, the in-memory view of the
// active keys that cmd/cardcat refreshes from the store every few seconds
// (Directory.Watch): a request costs a format check, one SHA-256 and a map
// lookup, never a database round trip, and a revoked key or a plan change
// reaches every replica within one refresh interval.
package keyauth

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/httpapi"
	"github.com/cardcat/cardcat/internal/ratelimit"
)

var _ httpapi.Authenticator = (*Authenticator)(nil)

// Keys looks up the account of a well-formed key; *account.Directory is the
// production one.
type Keys interface {
	Lookup(key string) (*account.Account, bool)
}

var _ Keys = (*account.Directory)(nil)

// Errors of Authenticate; both wrap httpapi.ErrInvalidKey (401). Made once,
// so that refusing a key allocates nothing.
var (
	errMalformed  = fmt.Errorf("keyauth: malformed key: %w", httpapi.ErrInvalidKey)
	errUnknownKey = fmt.Errorf("keyauth: unknown or revoked key: %w", httpapi.ErrInvalidKey)
)

// Authenticator authenticates keys against the accounts.
type Authenticator struct {
	keys Keys
	now  func() time.Time

	// names holds each account's id and pool name as strings (int64 →
	// *accountNames), made once per account rather than once per request.
	// It only grows, by one entry per account that ever sent a request:
	// small next to the directory itself.
	names sync.Map
}

type accountNames struct {
	id   string // decimal account id
	pool string // PoolKey(id)
}

// New returns an Authenticator on keys; now is the clock that decides
// whether a trial is still running (time.Now when nil).
func New(keys Keys, now func() time.Time) *Authenticator {
	if now == nil {
		now = time.Now
	}
	return &Authenticator{keys: keys, now: now}
}

// PoolKey is the rate-limit pool of an account: all of its keys, both games
// and every route draw on it. The "acct:" prefix keeps the pools apart from
// the guard buckets of client IPs ("ip:").
func PoolKey(accountID int64) string {
	return "acct:" + strconv.FormatInt(accountID, 10)
}

// Authenticate implements httpapi.Authenticator. The key's form is checked
// before any lookup. The caller's plan, limits and paid access are the
// account's as the directory holds it now, so a plan change applies to the
// next request after the directory's refresh, without a restart.
func (a *Authenticator) Authenticate(_ context.Context, key string) (httpapi.Caller, error) {
	if !account.WellFormed(key) {
		return httpapi.Caller{}, errMalformed
	}
	acc, ok := a.keys.Lookup(key)
	if !ok {
		return httpapi.Caller{}, errUnknownKey
	}
	n := a.namesOf(acc.ID)
	hour, day := acc.Limits()
	// Only a started trial makes paid access depend on the time; the clock
	// is read only then, since it is a good part of a lookup's cost.
	var now time.Time
	if !acc.TrialStartedAt.IsZero() {
		now = a.now()
	}
	return httpapi.Caller{
		AccountID: n.id,
		KeyID:     account.DisplayPrefix(key),
		Plan:      string(acc.Plan),
		Paid:      paidAccess(acc.PaidAccess(now)),
		Pool:      n.pool,
		Limits:    ratelimit.Limits{Hour: hour, Day: day},
	}, nil
}

func paidAccess(x account.Access) httpapi.PaidAccess {
	switch x {
	case account.Allowed:
		return httpapi.PaidAllowed
	case account.TrialExpired:
		return httpapi.PaidTrialExpired
	default:
		return httpapi.PaidNeedsTrial
	}
}

// namesOf returns the strings of an account id, made on the account's
// first request.
func (a *Authenticator) namesOf(id int64) *accountNames {
	if n, ok := a.names.Load(id); ok {
		return n.(*accountNames)
	}
	n, _ := a.names.LoadOrStore(id, &accountNames{id: strconv.FormatInt(id, 10), pool: PoolKey(id)})
	return n.(*accountNames)
}
