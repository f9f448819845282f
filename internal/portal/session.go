package portal

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/http"
	"net/url"
	"time"

	"github.com/cardcat/cardcat/internal/account"
)

// The session cookie. Over https it takes the __Host- prefix, which makes
// the browser refuse it unless Secure, host-only and Path=/.
const (
	cookieName       = "cardcat_session"
	secureCookieName = "__Host-cardcat_session"
)

// touchEvery is how stale a session's LastSeenAt may get before a request
// writes it again: the idle expiry needs no more precision than this, and
// most page views then cost no write.
const touchEvery = time.Minute

type accountKey struct{}

// accountOf is the logged-in account of a request, nil when none.
func accountOf(r *http.Request) *account.Account {
	a, _ := r.Context().Value(accountKey{}).(*account.Account)
	return a
}

func (p *Portal) cookieName() string {
	if p.secure {
		return secureCookieName
	}
	return cookieName
}

// newSecret returns 32 random bytes as URL-safe text: session ids and
// emailed tokens.
func newSecret() string {
	var b [32]byte
	rand.Read(b[:]) // never fails (crypto/rand since Go 1.24)
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// hashSecret is what the store keeps of a session id or token.
func hashSecret(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// startSession logs acc in: any session the request came with is ended
// (the id is never reused across a login, against session fixation) and a
// new one is set in the cookie.
func (p *Portal) startSession(w http.ResponseWriter, r *http.Request, accountID int64) error {
	if c, err := r.Cookie(p.cookieName()); err == nil && c.Value != "" {
		if err := p.deps.Store.DeleteSession(r.Context(), hashSecret(c.Value)); err != nil {
			return err
		}
	}
	id := newSecret()
	now := p.now()
	if err := p.deps.Store.CreateSession(r.Context(), &account.Session{IDHash: hashSecret(id), AccountID: accountID, CreatedAt: now, LastSeenAt: now}); err != nil {
		return err
	}
	p.setCookie(w, p.cookieName(), id, int(p.cfg.SessionMax/time.Second))
	return nil
}

// endSession logs the request's session out.
func (p *Portal) endSession(w http.ResponseWriter, r *http.Request) error {
	if c, err := r.Cookie(p.cookieName()); err == nil && c.Value != "" {
		if err := p.deps.Store.DeleteSession(r.Context(), hashSecret(c.Value)); err != nil {
			return err
		}
	}
	p.setCookie(w, p.cookieName(), "", -1)
	return nil
}

// setCookie is the one place the flags of the portal's cookies (the
// session's, the device's) are decided.
func (p *Portal) setCookie(w http.ResponseWriter, name, value string, maxAge int) {
	http.SetCookie(w, &http.Cookie{
		Name:     name,
		Value:    value,
		Path:     "/",
		MaxAge:   maxAge,
		HttpOnly: true,
		Secure:   p.secure,
		SameSite: http.SameSiteLaxMode,
	})
}

// sessionAccount returns the account of the request's session, nil when it
// has none or it expired (an expired one is deleted).
func (p *Portal) sessionAccount(ctx context.Context, r *http.Request) (*account.Account, error) {
	c, err := r.Cookie(p.cookieName())
	if err != nil || c.Value == "" {
		return nil, nil
	}
	h := hashSecret(c.Value)
	s, err := p.deps.Store.Session(ctx, h)
	if errors.Is(err, account.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	now := p.now()
	if now.Sub(s.CreatedAt) > p.cfg.SessionMax || now.Sub(s.LastSeenAt) > p.cfg.SessionIdle {
		return nil, p.deps.Store.DeleteSession(ctx, h)
	}
	acc, err := p.deps.Store.Account(ctx, s.AccountID)
	if errors.Is(err, account.ErrNotFound) {
		return nil, p.deps.Store.DeleteSession(ctx, h)
	}
	if err != nil {
		return nil, err
	}
	if now.Sub(s.LastSeenAt) > touchEvery {
		if err := p.deps.Store.TouchSession(ctx, h, now); err != nil {
			return nil, err
		}
	}
	return acc, nil
}

// accountHandler is a page that knows who is logged in.
type accountHandler func(w http.ResponseWriter, r *http.Request, acc *account.Account)

// requireLogin serves h to a logged-in visitor and sends anyone else to the
// login page, and back here after it.
func (p *Portal) requireLogin(h accountHandler) http.HandlerFunc {
	return p.withOptionalLogin(func(w http.ResponseWriter, r *http.Request, acc *account.Account) {
		if acc == nil {
			next := r.URL.Path
			if r.Method != http.MethodGet {
				next = "/account/"
			}
			http.Redirect(w, r, "/account/login?next="+url.QueryEscape(next), http.StatusSeeOther)
			return
		}
		h(w, r, acc)
	})
}

// withOptionalLogin serves h with the logged-in account, nil when none.
func (p *Portal) withOptionalLogin(h accountHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		acc, err := p.sessionAccount(r.Context(), r)
		if err != nil {
			p.fail(w, r, "session", err)
			return
		}
		if acc != nil {
			r = r.WithContext(context.WithValue(r.Context(), accountKey{}, acc))
		}
		h(w, r, acc)
	}
}
