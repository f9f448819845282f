package portal

// Accounts and sessions: sign-up, email verification, login, logout,
// password reset and the settings page. Every answer that could tell
// whether an email has an account is the same for both (status, body and
// the work done before it), and every form that sends an email or checks a
// password is throttled (throttle.go).

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	netmail "net/mail"
	"net/url"
	"strings"
	"time"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/portal/mail"
	"github.com/cardcat/cardcat/internal/portal/password"
)

// maxFormBytes bounds a posted form: the largest holds an email, two
// passwords and a token.
const maxFormBytes = 16 << 10

// maxEmailBytes is the longest address SMTP can carry (RFC 5321's path
// limit less its brackets).
const maxEmailBytes = 254

// mailTimeout bounds an email sent after its request was answered.
const mailTimeout = time.Minute

// Texts shown to visitors; tests compare against them.
const (
	msgLoginFailed     = "The email or password is not right. Check them and try again, or reset your password."
	msgWrongPassword   = "Your current password is not right."
	msgTokenExpired    = "This link has expired or was already used."
	msgVerified        = "Your email address is verified. Log in to continue."
	msgLoggedOut       = "You are logged out."
	msgPasswordReset   = "Your new password is set, and every session of your account was ended. Log in with it."
	msgPasswordChanged = "Your password is changed, and your other sessions were ended."
	msgDeleted         = "Your account is deleted and its keys no longer work."
	msgHiddenInEmail   = "This email address holds invisible or direction-changing characters; type it again."
)

// authForm is the data of the sign-up, login, verification and reset pages.
type authForm struct {
	Email string
	Next  string // a local path to return to after login; "" for the dashboard
	Token string // the emailed token, carried from the link to the form's POST
	// Expired: the page explains that the link no longer works and offers a
	// new one.
	Expired bool
}

// checkEmail is the data of the "check your email" page.
type checkEmail struct {
	Kind  string // "signup", "reset" or "verify"
	Email string
	TTL   string // how long the emailed link works
}

// settingsData is the data of the settings page.
type settingsData struct {
	MinPassword int
}

// normalizeEmail returns the one form of an address that accounts are kept
// and looked up by: trimmed, lower-case, a bare address of at most 254
// bytes. On error it still returns the trimmed, lower-cased, capped text
// (for throttling by what was typed); the error is a sentence for the
// visitor.
func normalizeEmail(s string) (string, error) {
	e := strings.ToLower(strings.TrimSpace(s))
	if e == "" {
		return "", errors.New("Enter your email address.")
	}
	if len(e) > maxEmailBytes {
		return e[:maxEmailBytes], errors.New("This email address is too long.")
	}
	// A display name ("Ann <a@b.c>") or a quoted local part parses, but is
	// not the address itself.
	a, err := netmail.ParseAddress(e)
	if err != nil || a.Address != e || !strings.Contains(e, "@") {
		return e, errors.New("Enter a valid email address, like name@example.com.")
	}
	return e, nil
}

// hiddenRune reports whether r does not show (a zero-width character:
// U+200B–U+200D, U+FEFF) or changes the order text reads in (bidiControl),
// so that an address holding it can look like another.
func hiddenRune(r rune) bool {
	return (r >= '\u200b' && r <= '\u200d') || r == '\ufeff' || bidiControl(r)
}

// bidiControl reports whether r is a direction mark, embedding, override or
// isolate (U+200E–U+200F, U+202A–U+202E, U+2066–U+2069): text holding one
// can read in another order than it is stored ("\u202egnp.exe").
func bidiControl(r rune) bool {
	return r == '\u200e' || r == '\u200f' || (r >= '\u202a' && r <= '\u202e') || (r >= '\u2066' && r <= '\u2069')
}

// parseForm reads a posted form of at most maxFormBytes; on failure it has
// answered.
func (p *Portal) parseForm(w http.ResponseWriter, r *http.Request) bool {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		p.render(w, r, http.StatusBadRequest, "error", pageData{Title: "Form not understood",
			Error: "The form could not be read. Go back, reload the page and send it again."})
		return false
	}
	return true
}

// nextOf is the request's `next` (query or form) when it is a path on this
// site, "" otherwise.
func nextOf(r *http.Request) string {
	if n := r.FormValue("next"); localPath(n) {
		return n
	}
	return ""
}

// withNext appends next to a local URL that has no query yet or has one.
func withNext(u, next string) string {
	if next == "" {
		return u
	}
	sep := "?"
	if strings.Contains(u, "?") {
		sep = "&"
	}
	return u + sep + "next=" + url.QueryEscape(next)
}

func hours(d time.Duration) string {
	if d < time.Hour {
		return fmt.Sprintf("%d minutes", int(d/time.Minute))
	}
	if h := int(d / time.Hour); h != 1 {
		return fmt.Sprintf("%d hours", h)
	}
	return "1 hour"
}

// sendAfter sends m once the request is answered, so that an answer for an
// email with an account takes as long as one for an email without (the SMTP
// exchange would tell them apart). Failures are logged.
func (p *Portal) sendAfter(ctx context.Context, what string, m func(ctx context.Context) (mail.Message, error)) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), mailTimeout)
	go func() {
		defer cancel()
		msg, err := m(ctx)
		if err == nil {
			err = p.deps.Mailer.Send(ctx, msg)
		}
		if err != nil {
			p.log.ErrorContext(ctx, "portal: email not sent", "email", what, "error", err)
		}
	}()
}

// newToken stores a token of purpose for acc, valid until expires, and
// returns it (only its hash is stored).
func (p *Portal) newToken(ctx context.Context, accountID int64, purpose string, expires time.Time) (string, error) {
	token := newSecret()
	err := p.deps.Store.CreateToken(ctx, &account.Token{Hash: hashSecret(token), AccountID: accountID,
		Purpose: purpose, CreatedAt: p.now(), ExpiresAt: expires})
	if err != nil {
		return "", fmt.Errorf("create %s token: %w", purpose, err)
	}
	return token, nil
}

// useToken spends the token of purpose: nil, nil when it is unknown, used
// or expired, or its account is gone.
func (p *Portal) useToken(ctx context.Context, token, purpose string) (*account.Token, *account.Account, error) {
	if token == "" {
		return nil, nil, nil
	}
	t, err := p.deps.Store.UseToken(ctx, hashSecret(token), purpose)
	if errors.Is(err, account.ErrNotFound) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	if !p.now().Before(t.ExpiresAt) {
		return nil, nil, nil
	}
	acc, err := p.deps.Store.Account(ctx, t.AccountID)
	if errors.Is(err, account.ErrNotFound) {
		return nil, nil, nil
	}
	return t, acc, err
}

// verificationEmail makes a verification token for acc and the email that
// carries it.
func (p *Portal) verificationEmail(ctx context.Context, acc *account.Account, next string) (mail.Message, error) {
	token, err := p.newToken(ctx, acc.ID, account.TokenVerify, p.now().Add(p.cfg.VerifyTTL))
	if err != nil {
		return mail.Message{}, err
	}
	link := p.absURL(withNext("/account/verify?token="+token, next))
	return mail.Message{To: acc.Email, Subject: "Verify your email address for cardcat", Link: link,
		Text: "Welcome to cardcat.\n\nTo verify your email address, open this link and press the button on the page:\n\n" +
			link + "\n\nThe link works once, for " + hours(p.cfg.VerifyTTL) + ". Once verified, you can create API keys.\n\n" +
			"If you did not sign up for cardcat, ignore this email: nothing happens without the link.\n"}, nil
}

// updateAccount re-reads the account, applies change and saves it, so that
// a change made meanwhile (a plan set by a payment) is not overwritten
// with the copy read at the start of the request.
func (p *Portal) updateAccount(ctx context.Context, id int64, change func(a *account.Account)) error {
	a, err := p.deps.Store.Account(ctx, id)
	if err != nil {
		return err
	}
	change(a)
	return p.deps.Store.UpdateAccount(ctx, a)
}

// endCredentials ends what the account's old password gave or could get
// once a new one is set: every session, and the reset links sent before it
// (one of them could otherwise set yet another password within its hour).
func (p *Portal) endCredentials(ctx context.Context, accountID int64) error {
	if err := p.deps.Store.DeleteSessions(ctx, accountID); err != nil {
		return err
	}
	return p.deps.Store.DeleteTokens(ctx, accountID, account.TokenReset)
}

// checkPassword reports whether pw is the password of the account of email
// (nil when there is none), doing the same work either way.
func (p *Portal) checkPassword(ctx context.Context, email string, emailOK bool, pw string) (*account.Account, bool, error) {
	if !emailOK {
		password.VerifyDummy(pw)
		return nil, false, nil
	}
	acc, err := p.deps.Store.AccountByEmail(ctx, email)
	if errors.Is(err, account.ErrNotFound) {
		password.VerifyDummy(pw)
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return acc, p.passwordMatches(ctx, acc, pw), nil
}

// passwordMatches checks pw against acc's hash; an account without a
// password (made by the CLI) matches nothing until a reset sets one.
func (p *Portal) passwordMatches(ctx context.Context, acc *account.Account, pw string) bool {
	if acc.PasswordHash == "" {
		password.VerifyDummy(pw)
		return false
	}
	ok, err := password.Verify(pw, acc.PasswordHash)
	if err != nil {
		p.log.ErrorContext(ctx, "portal: stored password hash unreadable", "account", acc.ID, "error", err)
		return false
	}
	return ok
}

// ---- Sign-up

func (p *Portal) signupPage(w http.ResponseWriter, r *http.Request) {
	d := pageData{Title: "Sign up", Data: authForm{Next: nextOf(r)}}
	if r.URL.Query().Get("deleted") == "1" {
		d.Notice = msgDeleted
	}
	p.render(w, r, http.StatusOK, "signup", d)
}

func (p *Portal) signup(w http.ResponseWriter, r *http.Request) {
	if !p.parseForm(w, r) {
		return
	}
	ctx := r.Context()
	f := authForm{Email: strings.TrimSpace(r.PostFormValue("email")), Next: nextOf(r)}
	page := pageData{Title: "Sign up", Data: f}
	email, err := normalizeEmail(f.Email)
	if err != nil {
		page.Error = err.Error()
		p.render(w, r, http.StatusBadRequest, "signup", page)
		return
	}
	f.Email = email
	page.Data = f
	// Refused at sign-up only: an account made before this rule still logs
	// in and resets with the address it has.
	if strings.ContainsFunc(email, hiddenRune) {
		page.Error = msgHiddenInEmail
		p.render(w, r, http.StatusBadRequest, "signup", page)
		return
	}
	pw := r.PostFormValue("password")
	if err := password.Check(pw, email); err != nil {
		page.Error = err.Error()
		p.render(w, r, http.StatusBadRequest, "signup", page)
		return
	}
	if ref := p.take(ctx, p.now(), limited{mailByAddr, p.deps.ClientAddr(r)}, limited{mailByEmail, email}); ref != nil {
		p.tooMany(w, r, ref, "signup", page)
		return
	}
	// Both branches hash the password and send one email, so that neither
	// the answer nor its time tells whether the address has an account.
	hash, err := password.Hash(pw)
	if err != nil {
		p.fail(w, r, "sign-up: hash", err)
		return
	}
	var msg mail.Message
	existing, err := p.deps.Store.AccountByEmail(ctx, email)
	switch {
	case errors.Is(err, account.ErrNotFound):
		acc := &account.Account{Email: email, Plan: account.Free, PasswordHash: hash}
		if err = p.deps.Store.CreateAccount(ctx, acc); err == nil {
			p.log.InfoContext(ctx, "portal: account created", "account", acc.ID)
			msg, err = p.verificationEmail(ctx, acc, f.Next)
		}
	case err == nil:
		msg = p.signupTakenEmail(existing)
	}
	if err == nil {
		err = p.deps.Mailer.Send(ctx, msg)
	}
	if err != nil {
		p.fail(w, r, "sign-up", err)
		return
	}
	p.render(w, r, http.StatusOK, "check_email", pageData{Title: p.checkEmailTitle(),
		Data: checkEmail{Kind: "signup", Email: email, TTL: hours(p.cfg.VerifyTTL)}})
}

// checkEmailTitle is the title of the page after an email was sent: where
// to look for it.
func (p *Portal) checkEmailTitle() string {
	if p.mailLog != "" {
		return "Find the link in the server's log"
	}
	return "Check your email"
}

// signupTakenEmail tells the owner of an address that someone tried to sign
// up with it: the page said "check your email" as it does for a new
// account, and this is the email.
func (p *Portal) signupTakenEmail(acc *account.Account) mail.Message {
	reset := p.absURL("/account/reset")
	return mail.Message{To: acc.Email, Subject: "Someone tried to sign up for cardcat with your email", Link: reset,
		Text: "Someone, maybe you, tried to create a cardcat account with this email address. It already has an account, " +
			"so nothing was changed.\n\nIf it was you, log in at " + p.absURL("/account/login") +
			"\nor, if you forgot your password, set a new one here:\n\n" + reset +
			"\n\nIf it was not you, ignore this email.\n"}
}

// ---- Verification

// verifyPage shows a button that verifies: mail scanners fetch the links of
// an email, and a GET must not spend the single-use token.
func (p *Portal) verifyPage(w http.ResponseWriter, r *http.Request) {
	f := authForm{Token: r.URL.Query().Get("token"), Next: nextOf(r)}
	if f.Token == "" {
		f.Expired = true
		p.render(w, r, http.StatusOK, "verify", pageData{Title: "Get a new verification link", Data: f})
		return
	}
	p.render(w, r, http.StatusOK, "verify", pageData{Title: "Verify your email address", Data: f})
}

func (p *Portal) verify(w http.ResponseWriter, r *http.Request) {
	if !p.parseForm(w, r) {
		return
	}
	ctx := r.Context()
	next := nextOf(r)
	t, acc, err := p.useToken(ctx, r.PostFormValue("token"), account.TokenVerify)
	if err != nil {
		p.fail(w, r, "verify", err)
		return
	}
	if t == nil {
		p.render(w, r, http.StatusBadRequest, "verify", pageData{Title: "Link expired", Error: msgTokenExpired,
			Data: authForm{Expired: true, Next: next}})
		return
	}
	if acc.VerifiedAt.IsZero() {
		now := p.now()
		if err := p.updateAccount(ctx, acc.ID, func(a *account.Account) { a.VerifiedAt = now }); err != nil {
			p.fail(w, r, "verify: save", err)
			return
		}
		p.log.InfoContext(ctx, "portal: email verified", "account", acc.ID)
	}
	http.Redirect(w, r, withNext("/account/login?verified=1", next), http.StatusSeeOther)
}

// resendPage is the form for a new verification link.
func (p *Portal) resendPage(w http.ResponseWriter, r *http.Request) {
	p.render(w, r, http.StatusOK, "verify", pageData{Title: "Get a new verification link",
		Data: authForm{Expired: true, Next: nextOf(r), Email: r.URL.Query().Get("email")}})
}

// resendVerification sends a new link to an account waiting for
// verification, and answers the same for any address.
func (p *Portal) resendVerification(w http.ResponseWriter, r *http.Request) {
	f, acc, ok := p.mailForm(w, r, authForm{Expired: true}, "Get a new verification link", "verify")
	if !ok {
		return
	}
	email := f.Email
	if acc != nil && acc.VerifiedAt.IsZero() {
		p.sendAfter(r.Context(), "verification", func(ctx context.Context) (mail.Message, error) {
			return p.verificationEmail(ctx, acc, f.Next)
		})
	}
	p.render(w, r, http.StatusOK, "check_email", pageData{Title: p.checkEmailTitle(),
		Data: checkEmail{Kind: "verify", Email: email, TTL: hours(p.cfg.VerifyTTL)}})
}

// mailForm reads a form that asks for an email to an address (reset,
// a new verification link): the address normalised, the throttles of
// email-sending forms taken, and its live account, nil when it has none. On
// false it has answered (a bad address, throttled, a store failure), with
// tmpl titled title.
func (p *Portal) mailForm(w http.ResponseWriter, r *http.Request, f authForm, title, tmpl string) (authForm, *account.Account, bool) {
	if !p.parseForm(w, r) {
		return f, nil, false
	}
	ctx := r.Context()
	f.Email, f.Next = strings.TrimSpace(r.PostFormValue("email")), nextOf(r)
	page := pageData{Title: title, Data: f}
	email, err := normalizeEmail(f.Email)
	if err != nil {
		page.Error = err.Error()
		p.render(w, r, http.StatusBadRequest, tmpl, page)
		return f, nil, false
	}
	f.Email = email
	page.Data = f
	if ref := p.take(ctx, p.now(), limited{mailByAddr, p.deps.ClientAddr(r)}, limited{mailByEmail, email}); ref != nil {
		p.tooMany(w, r, ref, tmpl, page)
		return f, nil, false
	}
	acc, err := p.deps.Store.AccountByEmail(ctx, email)
	switch {
	case errors.Is(err, account.ErrNotFound):
		return f, nil, true
	case err != nil:
		p.fail(w, r, tmpl+" email", err)
		return f, nil, false
	}
	return f, acc, true
}

// ---- Login and logout

func (p *Portal) loginPage(w http.ResponseWriter, r *http.Request) {
	d := pageData{Title: "Log in", Data: authForm{Next: nextOf(r)}}
	q := r.URL.Query()
	switch {
	case q.Get("verified") == "1":
		d.Notice = msgVerified
	case q.Get("reset") == "1":
		d.Notice = msgPasswordReset
	case q.Get("loggedout") == "1":
		d.Notice = msgLoggedOut
	}
	p.render(w, r, http.StatusOK, "login", d)
}

func (p *Portal) login(w http.ResponseWriter, r *http.Request) {
	if !p.parseForm(w, r) {
		return
	}
	ctx := r.Context()
	raw := r.PostFormValue("email")
	pw := r.PostFormValue("password")
	email, emailErr := normalizeEmail(raw)
	f := authForm{Email: email, Next: nextOf(r)}
	if emailErr != nil {
		f.Email = strings.TrimSpace(raw)
	}
	page := pageData{Title: "Log in", Data: f}
	addr := p.deps.ClientAddr(r)
	pools := passwordPools(addr, email, p.knownDeviceOf(ctx, r, email, emailErr == nil))
	now := p.now()
	if ref := p.take(ctx, now, pools...); ref != nil {
		p.log.InfoContext(ctx, "portal: login throttled", "client", addr)
		p.tooMany(w, r, ref, "login", page)
		return
	}
	acc, ok, err := p.checkPassword(ctx, email, emailErr == nil, pw)
	if err != nil {
		p.refund(ctx, now, pools...)
		p.fail(w, r, "login", err)
		return
	}
	if !ok {
		p.log.InfoContext(ctx, "portal: login failed", "client", addr)
		page.Error = msgLoginFailed
		p.render(w, r, http.StatusUnauthorized, "login", page)
		return
	}
	p.refund(ctx, now, pools...)
	if password.NeedsRehash(acc.PasswordHash) {
		// The parameters were raised since this hash was made.
		if hash, err := password.Hash(pw); err == nil {
			err = p.updateAccount(ctx, acc.ID, func(a *account.Account) { a.PasswordHash = hash })
			if err != nil {
				p.log.WarnContext(ctx, "portal: rehash not saved", "account", acc.ID, "error", err)
			} else {
				acc.PasswordHash = hash
			}
		}
	}
	if err := p.startSession(w, r, acc.ID); err != nil {
		p.fail(w, r, "login: session", err)
		return
	}
	p.rememberDevice(w, acc)
	p.log.InfoContext(ctx, "portal: logged in", "account", acc.ID)
	next := f.Next
	if next == "" {
		next = "/account/"
	}
	http.Redirect(w, r, next, http.StatusSeeOther)
}

func (p *Portal) logout(w http.ResponseWriter, r *http.Request) {
	if err := p.endSession(w, r); err != nil {
		p.fail(w, r, "logout", err)
		return
	}
	http.Redirect(w, r, "/account/login?loggedout=1", http.StatusSeeOther)
}

// ---- Password reset

func (p *Portal) resetPage(w http.ResponseWriter, r *http.Request) {
	p.render(w, r, http.StatusOK, "reset", pageData{Title: "Reset your password", Data: authForm{Next: nextOf(r)}})
}

func (p *Portal) reset(w http.ResponseWriter, r *http.Request) {
	f, acc, ok := p.mailForm(w, r, authForm{}, "Reset your password", "reset")
	if !ok {
		return
	}
	email := f.Email
	if acc != nil {
		p.sendAfter(r.Context(), "reset", func(ctx context.Context) (mail.Message, error) {
			return p.resetEmail(ctx, acc)
		})
	}
	p.render(w, r, http.StatusOK, "check_email", pageData{Title: p.checkEmailTitle(),
		Data: checkEmail{Kind: "reset", Email: email, TTL: hours(p.cfg.ResetTTL)}})
}

func (p *Portal) resetEmail(ctx context.Context, acc *account.Account) (mail.Message, error) {
	token, err := p.newToken(ctx, acc.ID, account.TokenReset, p.now().Add(p.cfg.ResetTTL))
	if err != nil {
		return mail.Message{}, err
	}
	link := p.absURL("/account/reset/confirm?token=" + token)
	return mail.Message{To: acc.Email, Subject: "Set a new password for cardcat", Link: link,
		Text: "Someone, maybe you, asked to set a new password for the cardcat account of this email address.\n\n" +
			"To choose a new password, open this link:\n\n" + link + "\n\nThe link works once, for " + hours(p.cfg.ResetTTL) +
			". Setting a password logs out every session of the account.\n\n" +
			"If you did not ask for this, ignore this email: your password stays as it is.\n"}, nil
}

// resetConfirmPage shows the new-password form; the token is spent only
// when the form is sent.
func (p *Portal) resetConfirmPage(w http.ResponseWriter, r *http.Request) {
	f := authForm{Token: r.URL.Query().Get("token")}
	if f.Token == "" {
		p.render(w, r, http.StatusBadRequest, "reset_confirm", pageData{Title: "Link expired", Error: msgTokenExpired,
			Data: authForm{Expired: true}})
		return
	}
	p.render(w, r, http.StatusOK, "reset_confirm", pageData{Title: "Choose a new password", Data: f})
}

func (p *Portal) resetConfirm(w http.ResponseWriter, r *http.Request) {
	if !p.parseForm(w, r) {
		return
	}
	ctx := r.Context()
	f := authForm{Token: r.PostFormValue("token")}
	pw := r.PostFormValue("password")
	page := pageData{Title: "Choose a new password", Data: f}
	// The rules that need no account first, so that a too-short password
	// does not spend the token.
	if err := password.Check(pw, ""); err != nil {
		page.Error = err.Error()
		p.render(w, r, http.StatusBadRequest, "reset_confirm", page)
		return
	}
	t, acc, err := p.useToken(ctx, f.Token, account.TokenReset)
	if err != nil {
		p.fail(w, r, "reset: token", err)
		return
	}
	if t == nil {
		p.render(w, r, http.StatusBadRequest, "reset_confirm", pageData{Title: "Link expired", Error: msgTokenExpired,
			Data: authForm{Expired: true}})
		return
	}
	if policyErr := password.Check(pw, acc.Email); policyErr != nil {
		// The token is spent; the form gets a new one that ends when the
		// old one would have.
		if f.Token, err = p.newToken(ctx, acc.ID, account.TokenReset, t.ExpiresAt); err != nil {
			p.fail(w, r, "reset: token", err)
			return
		}
		page.Data = f
		page.Error = policyErr.Error()
		p.render(w, r, http.StatusBadRequest, "reset_confirm", page)
		return
	}
	hash, err := password.Hash(pw)
	if err != nil {
		p.fail(w, r, "reset: hash", err)
		return
	}
	now := p.now()
	// Following the emailed link proved the mailbox, as verification does.
	err = p.updateAccount(ctx, acc.ID, func(a *account.Account) {
		a.PasswordHash = hash
		if a.VerifiedAt.IsZero() {
			a.VerifiedAt = now
		}
	})
	if err == nil {
		err = p.endCredentials(ctx, acc.ID)
	}
	if err != nil {
		p.fail(w, r, "reset: save", err)
		return
	}
	p.clearLoginPools(ctx, p.deps.ClientAddr(r), acc.Email)
	p.log.InfoContext(ctx, "portal: password reset", "account", acc.ID)
	http.Redirect(w, r, "/account/login?reset=1", http.StatusSeeOther)
}

// ---- Settings

func (p *Portal) settingsPage(w http.ResponseWriter, r *http.Request, acc *account.Account) {
	d := pageData{Title: "Settings", Nav: "settings", Data: settingsData{MinPassword: password.MinRunes}}
	if r.URL.Query().Get("changed") == "1" {
		d.Notice = msgPasswordChanged
	}
	p.render(w, r, http.StatusOK, "settings", d)
}

// confirmPassword checks the current password a settings form asks for,
// throttled like a login (a stolen session must not become a way to guess
// the password); on failure it has answered.
func (p *Portal) confirmPassword(w http.ResponseWriter, r *http.Request, acc *account.Account, pw, wrong string) bool {
	ctx := r.Context()
	page := pageData{Title: "Settings", Nav: "settings", Data: settingsData{MinPassword: password.MinRunes}}
	pools := passwordPools(p.deps.ClientAddr(r), acc.Email, p.knownDevice(r, acc))
	now := p.now()
	if ref := p.take(ctx, now, pools...); ref != nil {
		p.tooMany(w, r, ref, "settings", page)
		return false
	}
	if !p.passwordMatches(ctx, acc, pw) {
		page.Error = wrong
		p.render(w, r, http.StatusBadRequest, "settings", page)
		return false
	}
	p.refund(ctx, now, pools...)
	return true
}

func (p *Portal) changePassword(w http.ResponseWriter, r *http.Request, acc *account.Account) {
	if !p.parseForm(w, r) {
		return
	}
	ctx := r.Context()
	if !p.confirmPassword(w, r, acc, r.PostFormValue("current"), msgWrongPassword) {
		return
	}
	pw := r.PostFormValue("password")
	if err := password.Check(pw, acc.Email); err != nil {
		p.render(w, r, http.StatusBadRequest, "settings", pageData{Title: "Settings", Nav: "settings",
			Error: err.Error(), Data: settingsData{MinPassword: password.MinRunes}})
		return
	}
	hash, err := password.Hash(pw)
	if err != nil {
		p.fail(w, r, "change password: hash", err)
		return
	}
	// Every session ends, this one too, and this browser gets a new one.
	err = p.updateAccount(ctx, acc.ID, func(a *account.Account) { a.PasswordHash = hash })
	if err == nil {
		err = p.endCredentials(ctx, acc.ID)
	}
	if err == nil {
		err = p.startSession(w, r, acc.ID)
	}
	if err != nil {
		p.fail(w, r, "change password", err)
		return
	}
	// This browser proved the new password; the others' cookies ended with the old one.
	changed := *acc
	changed.PasswordHash = hash
	p.rememberDevice(w, &changed)
	p.log.InfoContext(ctx, "portal: password changed", "account", acc.ID)
	http.Redirect(w, r, "/account/settings?changed=1", http.StatusSeeOther)
}

func (p *Portal) deleteAccount(w http.ResponseWriter, r *http.Request, acc *account.Account) {
	if !p.parseForm(w, r) {
		return
	}
	ctx := r.Context()
	if !p.confirmPassword(w, r, acc, r.PostFormValue("password"),
		"The password is not right, so the account was not deleted.") {
		return
	}
	if err := p.deps.Store.DeleteAccount(ctx, acc.ID, p.now()); err != nil {
		p.fail(w, r, "delete account", err)
		return
	}
	p.log.InfoContext(ctx, "portal: account deleted", "account", acc.ID)
	// Its keys stop on this replica now, on the others at their next refresh.
	if p.deps.Keys != nil {
		if err := p.deps.Keys.Refresh(ctx); err != nil {
			p.log.WarnContext(ctx, "portal: key refresh after account deletion", "error", err)
		}
	}
	if err := p.endSession(w, r); err != nil {
		p.fail(w, r, "delete account: session", err)
		return
	}
	http.Redirect(w, r, "/account/signup?deleted=1", http.StatusSeeOther)
}
