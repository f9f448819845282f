package httpapi

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/web"
)

// Authenticator turns a request's API key into its caller.
// account.Authenticator is the production one (keys checked against the
// accounts, from memory); accounttest.KeyFormat, which accepts every
// well-formed key as a Free account of its own, serves tests.
type Authenticator interface {
	// Authenticate returns the caller the key belongs to. An unknown or
	// revoked key returns an error wrapping account.ErrInvalidKey (401); any
	// other error is a server fault (500).
	Authenticate(ctx context.Context, key string) (account.Caller, error)
}

// memoAuthenticator is an Authenticator that can remember the key of a
// client connection (account.Authenticator): the connection's requests that
// send it again are not hashed and looked up again (account.KeyMemo).
type memoAuthenticator interface {
	AuthenticateMemo(ctx context.Context, key string, m *account.KeyMemo) (account.Caller, error)
}

// keyState is what a request's key turned out to be.
type keyState uint8

const (
	keyMissing   keyState = iota // no key sent
	keyMalformed                 // not pk_live_/pk_test_ + 32 [A-Za-z0-9]
	keyInvalid                   // well formed, but unknown or revoked
	keyFailed                    // the Authenticator failed (500)
	keyValid
)

// withIdentity resolves the request's key, once, for every step after it:
// the rate limit counts a valid key's request in its account's pool and any
// other in the client's guard bucket; keyed routes refuse all but a valid
// key; the access log names the account.
func (s *Server) withIdentity(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := stateOf(r.Context())
		key := requestKey(r)
		switch {
		case key == "":
			st.key = keyMissing
		case !account.WellFormed(key):
			st.key = keyMalformed
		default:
			var caller account.Caller
			var err error
			if st.keyMemo != nil && s.memoAuth != nil {
				caller, err = s.memoAuth.AuthenticateMemo(r.Context(), key, st.keyMemo)
			} else {
				caller, err = s.deps.Auth.Authenticate(r.Context(), key)
			}
			switch {
			case err == nil:
				st.caller, st.key = caller, keyValid
			case errors.Is(err, account.ErrInvalidKey):
				st.key = keyInvalid
			default:
				st.key, st.authErr = keyFailed, err
			}
		}
		next.ServeHTTP(w, r)
	})
}

// requestKey returns the key sent as X-API-Key or as Authorization: Bearer.
// The headers are read by their canonical names (web.FirstValue).
func requestKey(r *http.Request) string {
	if k := web.FirstValue(r.Header, "X-Api-Key"); k != "" {
		return strings.TrimSpace(k)
	}
	a := web.FirstValue(r.Header, "Authorization")
	if len(a) > 7 && strings.EqualFold(a[:7], "Bearer ") {
		return strings.TrimSpace(a[7:])
	}
	return ""
}

// CallerFrom returns the authenticated caller of a keyed request.
func CallerFrom(ctx context.Context) (account.Caller, bool) {
	if st := stateOf(ctx); st != nil && st.key == keyValid {
		return st.caller, true
	}
	return account.Caller{}, false
}

// wwwAuthenticate is every 401's challenge (RFC 9110, 11.6.1).
var wwwAuthenticate = http.Header{"Www-Authenticate": {`Bearer realm="cardcat"`}}

// unauthorized is a 401 whose example is a curl line for the same route.
func (s *Server) unauthorized(r *http.Request, code, message string) *apiError {
	e := newError(http.StatusUnauthorized, code, message)
	e.Header = wwwAuthenticate
	e.Body.Example = `curl -H "X-API-Key: pk_live_YOUR_32_CHARACTER_API_KEY" "` + s.deps.PublicURL + r.URL.RequestURI() + `"`
	if r.URL.Path == mcpPath {
		e.Body.Example = s.mcpExample() // a GET of /mcp would be its 405
	}
	return e
}
