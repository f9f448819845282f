package portal

// Known browsers. A browser that logged in to an account carries a cookie
// that proves it, and is exempt from the account's own failed-login pool
// (throttle.go): failures from other machines, however many, then cannot
// lock the owner out of a browser they use. The cookie is not a session and
// outlives logout; it grants nothing but that exemption.

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strconv"
	"time"

	"github.com/cardcat/cardcat/internal/account"
)

// The device cookie, named like the session cookie (session.go).
const (
	deviceCookieName       = "cardcat_device"
	secureDeviceCookieName = "__Host-cardcat_device"
	deviceCookieAge        = 180 * 24 * time.Hour
)

func (p *Portal) deviceCookieName() string {
	if p.secure {
		return secureDeviceCookieName
	}
	return deviceCookieName
}

// deviceProof is the device cookie of acc: an HMAC of its id keyed with its
// password hash, a secret that only the store holds, the same on every
// replica, and that every password change replaces, ending the cookies
// issued before it. Nothing is stored per browser.
func deviceProof(acc *account.Account) string {
	mac := hmac.New(sha256.New, []byte(acc.PasswordHash))
	mac.Write([]byte("cardcat known device\x00" + strconv.FormatInt(acc.ID, 10)))
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// rememberDevice marks the browser as one that proved acc's password (a
// login, a password change). One account per browser: the last one.
func (p *Portal) rememberDevice(w http.ResponseWriter, acc *account.Account) {
	if acc.PasswordHash == "" {
		return
	}
	p.setCookie(w, p.deviceCookieName(), deviceProof(acc), int(deviceCookieAge/time.Second))
}

// knownDevice reports whether the request's browser proved acc's current
// password before.
func (p *Portal) knownDevice(r *http.Request, acc *account.Account) bool {
	if acc == nil || acc.PasswordHash == "" {
		return false
	}
	c, err := r.Cookie(p.deviceCookieName())
	if err != nil {
		return false
	}
	return hmac.Equal([]byte(c.Value), []byte(deviceProof(acc)))
}

// knownDeviceOf is knownDevice for the account of email, looked up only when
// the browser has a device cookie. A lookup failure makes it unknown: the
// password check that follows reports the failure.
func (p *Portal) knownDeviceOf(ctx context.Context, r *http.Request, email string, emailOK bool) bool {
	if !emailOK {
		return false
	}
	if _, err := r.Cookie(p.deviceCookieName()); err != nil {
		return false
	}
	acc, err := p.deps.Store.AccountByEmail(ctx, email)
	if err != nil {
		return false
	}
	return p.knownDevice(r, acc)
}
