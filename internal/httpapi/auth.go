package httpapi

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"

	"github.com/cardcat/cardcat/internal/ratelimit"
)

// Authenticator decides whether an API key may use the keyed routes.
// keyauth.Authenticator implements it on the accounts (lookups from memory,
// revocations and plan changes seen within seconds); KeyFormat, which
// accepts every well-formed key, serves tests.
type Authenticator interface {
	// Authenticate returns the caller the key belongs to. The key is well
	// formed (see WellFormedKey). An unknown or revoked key returns an error
	// wrapping ErrInvalidKey (401); any other error is a server fault (500).
	Authenticate(ctx context.Context, key string) (Caller, error)
}

// Caller is who a valid key belongs to.
type Caller struct {
	AccountID string
	// KeyID names the key in logs and listings without revealing it: its
	// display prefix ("pk_live_ab12").
	KeyID string
	Plan  string // free, early-access, coffee, pro, ultra, business
	// Paid is whether the caller may use the paid endpoints, decided by the
	// Authenticator at request time with its clock (a trial ends mid-day).
	// The zero value, PaidNeedsTrial, gives no access.
	Paid PaidAccess
	// Pool names the rate-limit pool the caller's requests draw on. Every key
	// of an account names the same pool, so that more keys never mean more
	// quota. Empty means "acct:" + AccountID.
	Pool string
	// Limits are the pool's hourly and daily quotas as the account's plan sets
	// them at this moment, so that a plan change applies to the next request.
	// The zero value means the Free plan's (Config.DefaultLimits).
	Limits ratelimit.Limits
}

// PaidAccess answers "may this caller use the paid endpoints?" and, when
// not, what the 403 offers: a trial to start, or an upgrade.
type PaidAccess uint8

const (
	// PaidNeedsTrial: no paid plan and no trial ever started; 403 with
	// redeem_url. The zero value, so that a Caller that says nothing has no
	// paid access.
	PaidNeedsTrial PaidAccess = iota
	// PaidAllowed: Ultra, Business, or an active 7-day trial.
	PaidAllowed
	// PaidTrialExpired: no paid plan and the trial has ended; 403 with
	// upgrade_url.
	PaidTrialExpired
)

// ErrInvalidKey is wrapped by an Authenticator's error for a key that does
// not open the API.
var ErrInvalidKey = errors.New("httpapi: invalid API key")

// KeyFormat accepts every well-formed key: the Authenticator of tests, and
// the default of a Server without Deps.Auth.
type KeyFormat struct{}

// Authenticate accepts the key as a Free-plan caller that never started a
// trial, so the paid endpoints answer it 403 with redeem_url. Each key is an
// account (and a rate-limit pool) of its own, named by its display prefix:
// never by the key itself, which a persisted limiter would write to disk.
func (KeyFormat) Authenticate(_ context.Context, key string) (Caller, error) {
	if !WellFormedKey(key) {
		return Caller{}, ErrInvalidKey
	}
	id := key[:len(keyLive)+4]
	return Caller{AccountID: id, KeyID: id, Plan: "free", Paid: PaidNeedsTrial}, nil
}

const (
	keyLive = "pk_live_"
	keyTest = "pk_test_"
	keyBody = 32
)

// WellFormedKey reports whether key is pk_live_ or pk_test_ followed by 32
// characters [A-Za-z0-9].
func WellFormedKey(key string) bool {
	rest, ok := strings.CutPrefix(key, keyLive)
	if !ok {
		if rest, ok = strings.CutPrefix(key, keyTest); !ok {
			return false
		}
	}
	if len(rest) != keyBody {
		return false
	}
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// requestKey returns the key sent as X-API-Key or as Authorization: Bearer.
// The headers are read by their canonical names, straight from the map:
// Header.Get would canonicalise "X-API-Key" into a new string per request.
func requestKey(r *http.Request) string {
	if k := firstValue(r.Header, "X-Api-Key"); k != "" {
		return strings.TrimSpace(k)
	}
	a := firstValue(r.Header, "Authorization")
	if len(a) > 7 && strings.EqualFold(a[:7], "Bearer ") {
		return strings.TrimSpace(a[7:])
	}
	return ""
}

// sendsKey reports whether the request has a key header at all.
func sendsKey(r *http.Request) bool {
	return firstValue(r.Header, "X-Api-Key") != "" || firstValue(r.Header, "Authorization") != ""
}

// firstValue is h.Get(key) for a key already in canonical form.
func firstValue(h http.Header, canonicalKey string) string {
	if v := h[canonicalKey]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// CallerFrom returns the authenticated caller of a keyed request.
func CallerFrom(ctx context.Context) (Caller, bool) {
	if st := stateOf(ctx); st != nil && st.hasCaller {
		return st.caller, true
	}
	return Caller{}, false
}

// requireKey lets a request through only with a good key: a missing or
// malformed key is refused before the Authenticator is asked. A request
// without a valid key is counted in its client IP's guard bucket, which
// answers 429 instead of the 401 once it is exhausted.
func (s *Server) requireKey(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r, st := s.identify(r)
		if st.key == keyValid {
			next.ServeHTTP(w, r)
			return
		}
		if st.key == keyFailed {
			s.log.LogAttrs(r.Context(), slog.LevelError, "authentication failed",
				slog.String("request_id", requestID(r.Context())), slog.Any("error", st.authErr))
			if s.limiter != nil {
				s.peekGuard(w, r, st)
			}
			s.writeError(w, r, internalError(requestID(r.Context())))
			return
		}
		if s.limiter != nil && !s.countGuard(w, r, st) {
			return
		}
		switch st.key {
		case keyMissing:
			s.writeError(w, r, s.unauthorized(r, errKeyRequired,
				"This endpoint needs an API key, sent in the header X-API-Key or as Authorization: Bearer followed by the key."))
		case keyMalformed:
			s.writeError(w, r, s.unauthorized(r, errKeyInvalid,
				"API keys are pk_live_ or pk_test_ followed by 32 letters and digits; check the key you sent."))
		default:
			s.writeError(w, r, s.unauthorized(r, errKeyInvalid,
				"This API key is not valid (unknown or revoked); check the key in your account dashboard."))
		}
	})
}

// unauthorized is a 401 whose example is a curl line for the same route.
func (s *Server) unauthorized(r *http.Request, code, message string) *apiError {
	e := newError(http.StatusUnauthorized, code, message)
	e.Header = map[string]string{"WWW-Authenticate": `Bearer realm="cardcat"`}
	e.Body.Example = `curl -H "X-API-Key: pk_live_YOUR_32_CHARACTER_API_KEY" "` + s.deps.PublicURL + r.URL.RequestURI() + `"`
	return e
}
