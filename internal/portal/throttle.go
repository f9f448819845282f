package portal

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"time"

	"github.com/cardcat/cardcat/internal/ratelimit"
)

// throttle is one pool of the portal's own rate limits, kept in Deps.Limiter
// beside the API's pools under a prefix of its own.
type throttle struct {
	prefix string
	limits ratelimit.Limits
	// refusal finishes "Too many ... ; try again in N minutes."
	refusal string
}

// Failed password checks (a login, the settings page's confirmation) are
// counted in three pools. The address pool stops one machine guessing many
// accounts, the account-and-address pool one machine guessing one account,
// and the account pool many machines guessing one account. The account
// pool's ceiling is higher, so that only many machines together exhaust it,
// and a browser that logged in to the account before is exempt from it
// (device.go): failures from elsewhere cannot lock the owner out. A completed
// password reset clears the account's pools (clearLoginPools). Every pool
// answers the same for known and unknown emails.
var (
	loginByAddr      = throttle{"login-ip:", ratelimit.Limits{Hour: 20, Day: 200}, "Too many failed logins from here"}
	loginByEmailAddr = throttle{"login-acct-ip:", ratelimit.Limits{Hour: 10, Day: 100}, "Too many failed logins for this account from here"}
	loginByEmail     = throttle{"login-acct:", ratelimit.Limits{Hour: 50, Day: 200}, "Too many failed logins for this account"}
)

// passwordPools are the pools a password check for email from addr counts
// in; knownDevice: the browser logged in to email's account before.
func passwordPools(addr, email string, knownDevice bool) []limited {
	// An address has no space: the key cannot be read two ways.
	pools := []limited{{loginByAddr, addr}, {loginByEmailAddr, addr + " " + email}}
	if !knownDevice {
		pools = append(pools, limited{loginByEmail, email})
	}
	return pools
}

// Every request that may send an email (sign-up, reset, a new verification
// link) is counted, so that nobody can use the portal to flood a mailbox.
var (
	mailByAddr  = throttle{"mail-ip:", ratelimit.Limits{Hour: 20, Day: 200}, "Too many emails requested from here"}
	mailByEmail = throttle{"mail-to:", ratelimit.Limits{Hour: 5, Day: 20}, "Too many emails requested for this address"}
)

// A test event makes the server send a request to a URL the account chose:
// counted per endpoint, and per account (so that several endpoints at one
// receiver do not multiply the allowance), enough to debug a receiver, too
// few to use the server to flood one.
var (
	testEventByEndpoint = throttle{"webhook-test:", ratelimit.Limits{Hour: 20, Day: 100}, "Too many test events sent to this webhook"}
	testEventByAccount  = throttle{"webhook-test-acct:", ratelimit.Limits{Hour: 60, Day: 300}, "Too many test events sent from this account"}
)

// limited is a throttle applied to one key.
type limited struct {
	throttle
	key string
}

func (l limited) pool() string { return l.prefix + l.key }

// refused is a throttle's answer when it has no room.
type refused struct {
	message string
	wait    time.Duration
}

func (r *refused) text() string {
	minutes := int((r.wait + time.Minute - 1) / time.Minute)
	unit := "minutes"
	if minutes <= 1 {
		minutes, unit = 1, "minute"
	}
	return fmt.Sprintf("%s; try again in %d %s.", r.message, minutes, unit)
}

// take counts one request at now in each of ls, or in none of them: when
// one has no room, the others are given back, so that a refused request
// costs no pool. It returns the first refusal, nil when all had room (or
// there is no limiter). A limiter error lets the request through: the
// throttle guards against guessing, it must not lock everyone out.
//
// A form that checks a password takes before it checks, and gives back
// (refund) when the password was right: counting only after a failed check
// let every request of a burst through while the first ones were hashing
// (issue 24).
func (p *Portal) take(ctx context.Context, now time.Time, ls ...limited) *refused {
	if p.deps.Limiter == nil {
		return nil
	}
	var counted []limited
	for _, l := range ls {
		res, err := p.deps.Limiter.Take(ctx, l.pool(), l.limits, now)
		if err != nil {
			p.log.WarnContext(ctx, "portal: throttle unavailable, request let through", "pool", l.prefix, "error", err)
			continue
		}
		if !res.Allowed {
			p.refund(ctx, now, counted...)
			return &refused{message: l.refusal, wait: res.RetryAfter}
		}
		counted = append(counted, l)
	}
	return nil
}

// refund gives back the request take counted at now in each of ls; a
// failure is logged, and leaves the pool as charged as it was.
func (p *Portal) refund(ctx context.Context, now time.Time, ls ...limited) {
	if p.deps.Limiter == nil {
		return
	}
	for _, l := range ls {
		if err := p.deps.Limiter.Refund(ctx, l.pool(), 1, now); err != nil {
			p.log.WarnContext(ctx, "portal: throttle refund failed", "pool", l.prefix, "error", err)
		}
	}
}

// clearLoginPools forgets the failed logins for email, and for email from
// addr, of this hour and day: a completed password reset proved the mailbox,
// and whatever was guessed before it is no longer the password.
func (p *Portal) clearLoginPools(ctx context.Context, addr, email string) {
	if p.deps.Limiter == nil {
		return
	}
	now := p.now()
	for _, l := range []limited{{loginByEmail, email}, {loginByEmailAddr, addr + " " + email}} {
		if err := p.deps.Limiter.Refund(ctx, l.pool(), math.MaxInt64, now); err != nil {
			p.log.WarnContext(ctx, "portal: throttle not cleared", "pool", l.prefix, "error", err)
		}
	}
}

// tooMany answers a throttled request with page, its form kept, and the
// refusal as its error.
func (p *Portal) tooMany(w http.ResponseWriter, r *http.Request, ref *refused, page string, d pageData) {
	w.Header().Set("Retry-After", fmt.Sprint(int((ref.wait+time.Second-1)/time.Second)))
	d.Error = ref.text()
	p.render(w, r, http.StatusTooManyRequests, page, d)
}
