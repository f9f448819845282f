package portal

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/alerts"
)

// The card.changed subscriptions of a webhook, on its page
// (/account/webhooks/{id}): listed, added and deleted, without script.

// subscriptionRow is one subscription as the webhook's page lists it.
type subscriptionRow struct {
	ID          int64
	Game        string
	Watches     string // "set 3235 (Base Set)", "3 cards"
	Cards       string // a card list's ids, comma separated; "" for a set
	LastVersion int64
	CreatedAt   time.Time
}

// subscriptionForm is the add form as the visitor filled it.
type subscriptionForm struct {
	Game, Set, Cards string
}

type gameOption struct{ Code, Name string }

// subscriptionsSection is what the webhook's page shows of its
// subscriptions; nil when the store keeps none.
type subscriptionsSection struct {
	Rows      []subscriptionRow
	Count     int // the account's, all endpoints
	Max       int
	Plan      string
	Full      bool
	Games     []gameOption
	Form      subscriptionForm
	MaxCards  int
	MaxEvent  int
	NoCatalog bool
}

// subscriptionStore is the store's subscriptions; false when it keeps
// none.
func (p *Portal) subscriptionStore() (alerts.SubscriptionStore, bool) {
	ss, ok := p.deps.Alerts.Store.(alerts.SubscriptionStore)
	return ss, ok
}

// subscriptionsOf is the section of endpoint e's page.
func (p *Portal) subscriptionsOf(r *http.Request, acc *account.Account, endpointID int64, form subscriptionForm) (*subscriptionsSection, error) {
	ss, ok := p.subscriptionStore()
	if !ok {
		return nil, nil
	}
	subs, err := ss.Subscriptions(r.Context(), acc.ID)
	if err != nil {
		return nil, err
	}
	sec := &subscriptionsSection{Count: len(subs), Max: acc.Plan.SubscriptionLimit(), Plan: acc.Plan.Name(), Form: form,
		MaxCards: alerts.MaxSubscriptionCards, MaxEvent: alerts.MaxEventCards}
	sec.Full = sec.Count >= sec.Max
	snap := p.snapshot()
	sec.NoCatalog = snap == nil
	if snap != nil {
		for _, gs := range snap.Games() {
			sec.Games = append(sec.Games, gameOption{gs.Game().Code, gs.Game().Name})
		}
	}
	for _, s := range subs {
		if s.WebhookID != endpointID {
			continue
		}
		row := subscriptionRow{ID: s.ID, Game: s.Game, Watches: s.Watches(), Cards: strings.Join(s.Cards, ", "), LastVersion: s.LastVersion, CreatedAt: s.CreatedAt}
		if s.SetID != "" && snap != nil {
			if gs := snap.Game(s.Game); gs != nil {
				if set, ok := gs.SetByID(s.SetID); ok {
					row.Watches += " (" + set.Name + ")"
				}
			}
		}
		sec.Rows = append(sec.Rows, row)
	}
	return sec, nil
}

// createSubscription is POST /account/webhooks/{id}/subscriptions: a set or
// a list of cards of one game, checked against the catalogue served and
// the plan's limit.
func (p *Portal) createSubscription(w http.ResponseWriter, r *http.Request, acc *account.Account) {
	if !p.parseForm(w, r) {
		return
	}
	e, ok := p.ownEndpoint(w, r, acc)
	if !ok {
		return
	}
	ss, ok := p.subscriptionStore()
	if !ok {
		p.notFound(w, r)
		return
	}
	form := subscriptionForm{Game: strings.TrimSpace(r.PostFormValue("game")), Set: strings.TrimSpace(r.PostFormValue("set")),
		Cards: strings.TrimSpace(r.PostFormValue("cards"))}
	refuse := func(msg string) {
		p.renderWebhookWith(w, r, http.StatusBadRequest, acc, e, 0, pageData{Error: msg}, "", form)
	}
	max := acc.Plan.SubscriptionLimit()
	if max == 0 {
		refuse("The " + acc.Plan.Name() + " plan has no webhooks, so no subscriptions; see the plans' limits on the Upgrade page.")
		return
	}
	s := &alerts.Subscription{AccountID: acc.ID, WebhookID: e.ID, Game: form.Game, SetID: form.Set, Cards: alerts.ParseCardList(form.Cards)}
	if err := alerts.CheckSubscription(s, p.snapshot()); err != nil {
		refuse(sentence(err.Error()))
		return
	}
	ctx := r.Context()
	err := ss.CreateSubscription(ctx, s, max)
	if errors.Is(err, alerts.ErrLimit) {
		refuse("You have " + strconv.Itoa(max) + " subscriptions, the most the " + acc.Plan.Name() + " plan keeps: delete one first.")
		return
	}
	if errors.Is(err, alerts.ErrNotFound) {
		p.notFound(w, r)
		return
	}
	if err != nil {
		p.fail(w, r, "subscriptions: create", err)
		return
	}
	p.log.InfoContext(ctx, "portal: subscription created", "account", acc.ID, "webhook", e.ID, "subscription", s.ID)
	http.Redirect(w, r, "/account/webhooks/"+strconv.FormatInt(e.ID, 10)+"?done=subscribed#subscriptions", http.StatusSeeOther)
}

// deleteSubscription is POST /account/webhooks/{id}/subscriptions/{sub}/delete.
func (p *Portal) deleteSubscription(w http.ResponseWriter, r *http.Request, acc *account.Account) {
	e, ok := p.ownEndpoint(w, r, acc)
	if !ok {
		return
	}
	ss, ok := p.subscriptionStore()
	id, err := strconv.ParseInt(r.PathValue("sub"), 10, 64)
	if !ok || err != nil {
		p.notFound(w, r)
		return
	}
	ctx := r.Context()
	subs, err := ss.Subscriptions(ctx, acc.ID)
	if err != nil {
		p.fail(w, r, "subscriptions: read", err)
		return
	}
	mine := false
	for _, s := range subs {
		mine = mine || s.ID == id && s.WebhookID == e.ID
	}
	if !mine {
		p.notFound(w, r)
		return
	}
	err = ss.DeleteSubscription(ctx, acc.ID, id)
	if errors.Is(err, alerts.ErrNotFound) {
		p.notFound(w, r)
		return
	}
	if err != nil {
		p.fail(w, r, "subscriptions: delete", err)
		return
	}
	p.log.InfoContext(ctx, "portal: subscription deleted", "account", acc.ID, "webhook", e.ID, "subscription", id)
	http.Redirect(w, r, "/account/webhooks/"+strconv.FormatInt(e.ID, 10)+"?done=unsubscribed#subscriptions", http.StatusSeeOther)
}
