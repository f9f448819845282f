package portal

import (
	"context"
	"fmt"
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

// Failed logins are counted per client address and per email: the address
// pool stops one machine guessing many accounts, the email pool stops many
// machines guessing one account. Both answer the same for known and unknown
// emails.
var (
	loginByAddr  = throttle{"login-ip:", ratelimit.Limits{Hour: 20, Day: 200}, "Too many failed logins from here"}
	loginByEmail = throttle{"login-acct:", ratelimit.Limits{Hour: 10, Day: 100}, "Too many failed logins for this account"}
)

// Every request that may send an email (sign-up, reset, a new verification
// link) is counted, so that nobody can use the portal to flood a mailbox.
var (
	mailByAddr  = throttle{"mail-ip:", ratelimit.Limits{Hour: 20, Day: 200}, "Too many emails requested from here"}
	mailByEmail = throttle{"mail-to:", ratelimit.Limits{Hour: 5, Day: 20}, "Too many emails requested for this address"}
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

// peek returns the first of ls with no room left, nil when all have room
// (or there is no limiter). A limiter error lets the request through: the
// throttle guards against guessing, it must not lock everyone out.
func (p *Portal) peek(ctx context.Context, ls ...limited) *refused {
	return p.check(ctx, false, ls)
}

// take counts one request in each of ls and returns the first that had no
// room, like peek.
func (p *Portal) take(ctx context.Context, ls ...limited) *refused {
	return p.check(ctx, true, ls)
}

func (p *Portal) check(ctx context.Context, count bool, ls []limited) *refused {
	if p.deps.Limiter == nil {
		return nil
	}
	now := p.now()
	var first *refused
	for _, l := range ls {
		op := p.deps.Limiter.Peek
		if count {
			op = p.deps.Limiter.Take
		}
		res, err := op(ctx, l.pool(), l.limits, now)
		if err != nil {
			p.log.WarnContext(ctx, "portal: throttle unavailable, request let through", "pool", l.prefix, "error", err)
			continue
		}
		if !res.Allowed && first == nil {
			first = &refused{message: l.refusal, wait: res.RetryAfter}
		}
	}
	return first
}

// tooMany answers a throttled request with page, its form kept, and the
// refusal as its error.
func (p *Portal) tooMany(w http.ResponseWriter, r *http.Request, ref *refused, page string, d pageData) {
	w.Header().Set("Retry-After", fmt.Sprint(int((ref.wait+time.Second-1)/time.Second)))
	d.Error = ref.text()
	p.render(w, r, http.StatusTooManyRequests, page, d)
}
