package httpapi

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
)

// Authenticator decides whether an API key may use the keyed routes. The
// keys issue implements it on the account store (lookups from memory,
// revocations seen within seconds); KeyFormat is the stand-in until then.
type Authenticator interface {
	// Authenticate returns the caller the key belongs to. The key is well
	// formed (see WellFormedKey). An unknown or revoked key returns an error
	// wrapping ErrInvalidKey (401); any other error is a server fault (500).
	Authenticate(ctx context.Context, key string) (Caller, error)
}

// Caller is who a valid key belongs to.
type Caller struct {
	AccountID string
	KeyID     string
	Plan      string // free, early-access, coffee, pro, ultra, business
	// Paid is whether the caller may use the paid endpoints, decided by the
	// Authenticator at request time with its clock (a trial ends mid-day).
	// The zero value, PaidNeedsTrial, gives no access.
	Paid PaidAccess
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

// KeyFormat accepts every well-formed key: the placeholder Authenticator.
type KeyFormat struct{}

// Authenticate accepts the key as a Free-plan caller that never started a
// trial, so the paid endpoints answer it 403 with redeem_url.
func (KeyFormat) Authenticate(_ context.Context, key string) (Caller, error) {
	if !WellFormedKey(key) {
		return Caller{}, ErrInvalidKey
	}
	return Caller{KeyID: key[:len(keyLive)+4], Plan: "free", Paid: PaidNeedsTrial}, nil
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
func requestKey(r *http.Request) string {
	if k := r.Header.Get("X-API-Key"); k != "" {
		return strings.TrimSpace(k)
	}
	a := r.Header.Get("Authorization")
	if len(a) > 7 && strings.EqualFold(a[:7], "Bearer ") {
		return strings.TrimSpace(a[7:])
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
// malformed key is refused before the Authenticator is asked.
func (s *Server) requireKey(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := requestKey(r)
		if key == "" {
			s.writeError(w, r, s.unauthorized(r, errKeyRequired,
				"This endpoint needs an API key, sent in the header X-API-Key or as Authorization: Bearer followed by the key."))
			return
		}
		if !WellFormedKey(key) {
			s.writeError(w, r, s.unauthorized(r, errKeyInvalid,
				"API keys are pk_live_ or pk_test_ followed by 32 letters and digits; check the key you sent."))
			return
		}
		caller, err := s.deps.Auth.Authenticate(r.Context(), key)
		if errors.Is(err, ErrInvalidKey) {
			s.writeError(w, r, s.unauthorized(r, errKeyInvalid,
				"This API key is not valid (unknown or revoked); check the key in your account dashboard."))
			return
		}
		if err != nil {
			s.log.LogAttrs(r.Context(), slog.LevelError, "authentication failed",
				slog.String("request_id", requestID(r.Context())), slog.Any("error", err))
			s.writeError(w, r, internalError(requestID(r.Context())))
			return
		}
		st := stateOf(r.Context())
		if st == nil { // outside the chain (a test of the middleware alone)
			st = &requestState{}
			r = r.WithContext(context.WithValue(r.Context(), stateKey, st))
		}
		st.caller, st.hasCaller = caller, true
		next.ServeHTTP(w, r)
	})
}

// unauthorized is a 401 whose example is a curl line for the same route.
func (s *Server) unauthorized(r *http.Request, code, message string) *apiError {
	e := newError(http.StatusUnauthorized, code, message)
	e.Header = map[string]string{"WWW-Authenticate": `Bearer realm="cardcat"`}
	e.Body.Example = `curl -H "X-API-Key: pk_live_YOUR_32_CHARACTER_API_KEY" "` + s.deps.PublicURL + r.URL.RequestURI() + `"`
	return e
}

// withRateLimit is the slot of the keys issue's limiter.
func (s *Server) withRateLimit(next http.Handler) http.Handler {
	if s.deps.RateLimit == nil {
		return next
	}
	return s.deps.RateLimit(next)
}
