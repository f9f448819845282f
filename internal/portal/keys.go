package portal

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/cardcat/cardcat/internal/account"
)

const msgBidiInKeyName = "Give the key a name without direction-changing characters: they make a name read in another order than it is written."

// keysData is the keys page's own part.
type keysData struct {
	Active, Revoked []account.Key
	Max             int
	Verified        bool
	// Name and Test are the create form's values (kept after a refusal).
	Name string
	Test bool
	// NewKey is the key just created, shown this once; "" otherwise.
	NewKey     string
	NewKeyName string
}

// Full reports whether the account holds its maximum of active keys.
func (d keysData) Full() bool { return len(d.Active) >= d.Max }

// keysPage is GET /account/keys.
func (p *Portal) keysPage(w http.ResponseWriter, r *http.Request, acc *account.Account) {
	d := pageData{}
	if id, err := strconv.ParseInt(r.URL.Query().Get("revoked"), 10, 64); err == nil {
		// The notice names the key by what the store holds, never by the URL.
		if k, err := p.ownKey(r, acc, id); err == nil && !k.RevokedAt.IsZero() {
			d.Notice = "Key " + k.Prefix + "… was revoked: requests with it are refused from now on."
		}
	}
	p.renderKeys(w, r, http.StatusOK, acc, d, keysData{})
}

// renderKeys shows the keys page with the account's keys listed.
func (p *Portal) renderKeys(w http.ResponseWriter, r *http.Request, status int, acc *account.Account, d pageData, kd keysData) {
	keys, err := p.deps.Store.Keys(r.Context(), acc.ID)
	if err != nil {
		p.fail(w, r, "keys: list", err)
		return
	}
	kd.Active, kd.Revoked = nil, nil
	// Newest first: the key just made is on top.
	for i := len(keys) - 1; i >= 0; i-- {
		if keys[i].RevokedAt.IsZero() {
			kd.Active = append(kd.Active, keys[i])
		} else {
			kd.Revoked = append(kd.Revoked, keys[i])
		}
	}
	kd.Max = account.MaxActiveKeys
	kd.Verified = !acc.VerifiedAt.IsZero()
	d.Title, d.Nav, d.Data = "API keys", "keys", kd
	p.render(w, r, status, "keys", d)
}

// createKey is POST /account/keys. The new key is in the answer itself,
// not behind a redirect, so that it is shown once: a reload asks to post
// again, and the page is never cached (no-store).
func (p *Portal) createKey(w http.ResponseWriter, r *http.Request, acc *account.Account) {
	if !p.parseForm(w, r) {
		return
	}
	ctx := r.Context()
	kd := keysData{Name: strings.TrimSpace(r.PostFormValue("name"))}
	refuse := func(msg string) {
		p.renderKeys(w, r, http.StatusBadRequest, acc, pageData{Error: msg}, kd)
	}
	kd.Test = r.PostFormValue("kind") == "test"
	if acc.VerifiedAt.IsZero() {
		where := "we sent you"
		if p.mailLog != "" {
			where = "in the server's log (this server sends no email)"
		}
		refuse("Verify your email before creating keys: open the link " + where + ", or ask for a new one on the dashboard.")
		return
	}
	if k := r.PostFormValue("kind"); k != "live" && k != "test" {
		refuse("Choose the key's kind: live or test.")
		return
	}
	if kd.Name == "" || account.CheckKeyName(kd.Name) != nil {
		refuse("Give the key a name of 1 to " + strconv.Itoa(account.MaxKeyName) + " characters, to tell it from your others.")
		return
	}
	if strings.ContainsFunc(kd.Name, bidiControl) {
		refuse(msgBidiInKeyName)
		return
	}
	key, k, err := account.IssueKey(ctx, p.deps.Store, acc.ID, kd.Test, kd.Name, p.now())
	if errors.Is(err, account.ErrTooManyKeys) {
		refuse("You can have at most " + strconv.Itoa(account.MaxActiveKeys) + " active keys; revoke one first.")
		return
	} else if err != nil {
		p.fail(w, r, "keys: create", err)
		return
	}
	p.log.InfoContext(ctx, "portal: key created", "account", acc.ID, "key", k.Prefix, "key_id", k.ID)
	p.refreshKeys(r)
	p.renderKeys(w, r, http.StatusOK, acc, pageData{}, keysData{NewKey: key, NewKeyName: k.Name})
}

// revokeKey is POST /account/keys/{id}/revoke.
func (p *Portal) revokeKey(w http.ResponseWriter, r *http.Request, acc *account.Account) {
	ctx := r.Context()
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		p.notFound(w, r)
		return
	}
	k, err := p.ownKey(r, acc, id)
	if errors.Is(err, account.ErrNotFound) {
		// Another account's key is as absent as a key that never was.
		p.notFound(w, r)
		return
	}
	if err != nil {
		p.fail(w, r, "keys: revoke: list", err)
		return
	}
	if k.RevokedAt.IsZero() {
		if err := p.deps.Store.RevokeKey(ctx, id, p.now()); err != nil {
			p.fail(w, r, "keys: revoke", err)
			return
		}
		p.log.InfoContext(ctx, "portal: key revoked", "account", acc.ID, "key", k.Prefix, "key_id", k.ID)
		p.refreshKeys(r)
	}
	http.Redirect(w, r, "/account/keys?revoked="+strconv.FormatInt(id, 10), http.StatusSeeOther)
}

// ownKey is the key id of acc; ErrNotFound when acc has no such key.
func (p *Portal) ownKey(r *http.Request, acc *account.Account, id int64) (*account.Key, error) {
	keys, err := p.deps.Store.Keys(r.Context(), acc.ID)
	if err != nil {
		return nil, err
	}
	for i := range keys {
		if keys[i].ID == id {
			return &keys[i], nil
		}
	}
	return nil, account.ErrNotFound
}
