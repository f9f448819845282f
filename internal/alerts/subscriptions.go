package alerts

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/store"
)

// EventCardChanged is the type of a subscription's event: the cards of a
// set, or of a list, that changed in a catalogue version.
const EventCardChanged = "card.changed"

// MaxSubscriptionCards is the longest card list a subscription watches.
const MaxSubscriptionCards = 1000

// MaxEventCards is the most cards one card.changed event carries: a
// version that changed more of a subscription's cards sends several
// events, each with at most this many (their "part" and "parts" say how
// they go together).
const MaxEventCards = 500

// ErrChangesNotRecorded is an evaluation of subscriptions at a version
// whose change feed the ingest has not recorded yet (it records it just
// after the version is written): the subscriptions stay pending, and Run
// evaluates them again later.
var ErrChangesNotRecorded = errors.New("alerts: the version's card changes are not recorded yet")

// Subscription is an account's card.changed subscription: one of its
// webhook endpoints gets, for each catalogue version, the cards of a set
// of a game (SetID), or of a list of cards (Cards), that changed in it.
type Subscription struct {
	ID        int64
	AccountID int64
	WebhookID int64 // the endpoint its events go to; the subscription goes with it
	Game      string
	SetID     string   // the set watched; "" for a card list
	Cards     []string // the cards watched (canonical ids, in the order given); nil for a set
	CreatedAt time.Time
	// LastVersion is the newest catalogue version evaluated (0: none yet),
	// LastAt the creation time of that version: the next evaluation tells
	// the cards changed after it, so that a version no replica evaluated
	// (all were down) is told with the next one.
	LastVersion int64
	LastAt      time.Time
}

// SubscriptionStore keeps the card.changed subscriptions and queues their
// events through the same events and deliveries as the alerts'.
type SubscriptionStore interface {
	// CreateSubscription stores s (never evaluated) and sets its ID and
	// CreatedAt, unless the account has max subscriptions already
	// (ErrLimit), counted in the same transaction. s.WebhookID must be one
	// of the account's endpoints (ErrNotFound otherwise, or when the
	// account is deleted).
	CreateSubscription(ctx context.Context, s *Subscription, max int) error
	// Subscriptions are the account's subscriptions, oldest first.
	Subscriptions(ctx context.Context, accountID int64) ([]Subscription, error)
	// DeleteSubscription deletes one of the account's subscriptions; its
	// events stay (ErrNotFound when it has no such subscription). Deleting
	// an endpoint or the account deletes its subscriptions.
	DeleteSubscription(ctx context.Context, accountID, id int64) error
	// PendingSubscriptions are up to limit subscriptions not evaluated at
	// version (LastVersion below it), of IDs above afterID, by ID.
	PendingSubscriptions(ctx context.Context, version, afterID int64, limit int) ([]Subscription, error)
	// RecordSubscriptions writes, in one transaction, each evaluation of
	// subscriptions at version (created at at): a subscription's LastVersion
	// and LastAt, only if it is still below version (so that none is told a
	// version twice, whoever else evaluates), and then its events, each
	// queued for delivery to the subscription's webhook. It returns how
	// many events were written and how many deliveries queued.
	RecordSubscriptions(ctx context.Context, version int64, at time.Time, evs []SubscriptionEvaluation) (fired, queued int, err error)
}

// SubscriptionEvaluation is one subscription's outcome at a version: its
// events (none when none of its cards changed).
type SubscriptionEvaluation struct {
	SubscriptionID int64
	Events         []*Event
}

// ChangeFeed is the part of store.Store that tells which cards changed.
// One that also tells the sets removed cards left (RemovedSets, which both
// stores do as store.RemovalStore) lets a set's subscription be told of
// the cards that left the set; without it, only a card list's is.
type ChangeFeed interface {
	CardChanges(ctx context.Context, game string, since time.Time, offset, limit int) (store.ChangePage, error)
}

// RemovedSets is the part of store.RemovalStore that tells the set each
// removed card left.
type RemovedSets interface {
	RemovedCardSets(ctx context.Context, game string, ids []string) (map[string]string, error)
}

var _ RemovedSets = store.RemovalStore(nil)

// CheckSubscription says what is wrong with s, the subscription an account
// asks for, against the catalogue served now, and makes its card ids
// canonical (duplicates dropped): a game of the catalogue, and either one
// of its sets or a list of its cards, at most MaxSubscriptionCards. Every
// message names what to fix.
func CheckSubscription(s *Subscription, snap *catalog.Snapshot) error {
	s.Game, s.SetID = strings.TrimSpace(s.Game), strings.TrimSpace(s.SetID)
	if snap == nil {
		return errors.New("no catalogue is loaded yet; try again in a minute")
	}
	gs := snap.Game(s.Game)
	if gs == nil {
		var codes []string
		for _, g := range snap.Games() {
			codes = append(codes, g.Game().Code)
		}
		return fmt.Errorf("no game %q in the current catalogue: want one of %s", s.Game, strings.Join(codes, ", "))
	}
	switch {
	case s.SetID != "" && len(s.Cards) > 0:
		return errors.New("give a set or a list of cards, not both")
	case s.SetID != "":
		if _, ok := gs.SetByID(s.SetID); !ok {
			return fmt.Errorf("no set %q in %s (a set_id as GET /%s/sets lists them)", s.SetID, s.Game, s.Game)
		}
		return nil
	case len(s.Cards) == 0:
		return errors.New("give a set or a list of cards")
	}
	given := map[string]bool{}
	for _, raw := range s.Cards {
		if id := strings.TrimSpace(raw); id != "" {
			given[id] = true
		}
	}
	if len(given) > MaxSubscriptionCards {
		return fmt.Errorf("%d cards are more than a subscription watches: at most %d (subscribe to their set, or split the list)", len(given), MaxSubscriptionCards)
	}
	var ids []string
	seen := map[string]bool{}
	var p catalog.CardPrices
	for _, raw := range s.Cards {
		id := strings.TrimSpace(raw)
		if id == "" {
			continue
		}
		r, ok := gs.LookupCard(id)
		if !ok || catalog.ClassifyCardID(s.Game, id) == catalog.IDMalformed {
			if other, _, found := FindCard(snap, id); found && other != gs {
				return fmt.Errorf("card %s is a %s card, not a %s card: a subscription watches the cards of one game", id, other.Game().Code, s.Game)
			}
			return fmt.Errorf("no card %q in %s in the current catalogue (a card id is its game's prefix and 16 hex digits, like %s_0123456789abcdef)", id, s.Game, s.Game)
		}
		gs.CardPrices(r, &p)
		if !seen[p.ID] {
			seen[p.ID] = true
			ids = append(ids, strings.Clone(p.ID))
		}
	}
	if len(ids) == 0 {
		return errors.New("give a set or a list of cards")
	}
	s.Cards = ids
	return nil
}

// ParseCardList reads a list of card ids as a person gives it: separated
// by commas, spaces or new lines.
func ParseCardList(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\r' || r == '\t' })
}

// Watches says what s watches, as the CLI and the portal write it.
func (s *Subscription) Watches() string {
	if s.SetID != "" {
		return "set " + s.SetID
	}
	if len(s.Cards) == 1 {
		return "card " + s.Cards[0]
	}
	return strconv.Itoa(len(s.Cards)) + " cards"
}

// SubscriptionEventID is the id of the part-th event (from 1) of
// subscription id at version: derived, so that an evaluation written twice
// (it is not: RecordSubscriptions guards it) would be the same events.
func SubscriptionEventID(id, version int64, part int) string {
	sum := sha256.Sum256([]byte("cardcat:subscription:" + strconv.FormatInt(id, 10) + ":" + strconv.FormatInt(version, 10) + ":" + strconv.Itoa(part)))
	return "evt_" + hex.EncodeToString(sum[:12])
}

// The JSON of a card.changed event (docs/api.md, "Webhooks").
type (
	changedBody struct {
		ID           string           `json:"id"`
		Type         string           `json:"type"`
		Created      string           `json:"created"`
		Version      int64            `json:"catalogue_version"`
		Game         string           `json:"game"`
		Subscription changedSub       `json:"subscription"`
		Part         int              `json:"part"`
		Parts        int              `json:"parts"`
		Cards        []changedCardDoc `json:"cards"`
	}
	changedSub struct {
		ID    int64    `json:"id"`
		SetID string   `json:"set_id,omitempty"`
		Cards []string `json:"cards,omitempty"`
	}
	changedCardDoc struct {
		CardID string `json:"card_id"`
		// Change is "updated" (the card's detail body differs from the
		// previous version's: any field, prices and their times included;
		// a card new to the catalogue too) or "removed" (it left the
		// catalogue, and so its set).
		Change string `json:"change"`
		// Removed marks a removed card as the change feed marks it
		// (GET /{game}/changes' "removed": true); absent otherwise.
		Removed bool   `json:"removed,omitempty"`
		Name    string `json:"name,omitempty"`
		// Prices are the card's prices at the version, for an updated
		// card: TCGplayer's market and Cardmarket's trend of each finish.
		Prices *changedPrices `json:"prices,omitempty"`
	}
	changedPrices struct {
		TCG []changedPrice `json:"tcg"`
		CM  []changedPrice `json:"cm"`
	}
	changedPrice struct {
		Variant string          `json:"variant"`
		Market  json.RawMessage `json:"market,omitempty"`
		Trend   json.RawMessage `json:"trend,omitempty"`
	}
)

// changedCard is one card of a subscription that changed at a version.
type changedCard struct {
	ID      string
	Removed bool
}

// subscriptionEvents are s's events at snap's version for its changed
// cards (by id): none when none changed, else one per MaxEventCards cards.
func subscriptionEvents(s *Subscription, snap *catalog.Snapshot, created time.Time, cards []changedCard) []*Event {
	if len(cards) == 0 {
		return nil
	}
	created = created.UTC().Truncate(time.Microsecond)
	gs := snap.Game(s.Game)
	parts := (len(cards) + MaxEventCards - 1) / MaxEventCards
	out := make([]*Event, 0, parts)
	var p catalog.CardPrices
	for part := 1; part <= parts; part++ {
		chunk := cards[(part-1)*MaxEventCards : min(part*MaxEventCards, len(cards))]
		id := SubscriptionEventID(s.ID, snap.Version, part)
		b := changedBody{ID: id, Type: EventCardChanged, Created: created.Format(time.RFC3339Nano), Version: snap.Version,
			Game: s.Game, Subscription: changedSub{ID: s.ID, SetID: s.SetID, Cards: s.Cards}, Part: part, Parts: parts,
			Cards: make([]changedCardDoc, 0, len(chunk))}
		for _, c := range chunk {
			doc := changedCardDoc{CardID: c.ID, Change: "removed", Removed: true}
			if r, ok := lookupCard(gs, c.ID); ok && !c.Removed {
				gs.CardPrices(r, &p)
				doc.Change, doc.Removed, doc.Name = "updated", false, p.Name
				doc.Prices = &changedPrices{TCG: []changedPrice{}, CM: []changedPrice{}}
				for _, t := range p.TCG {
					doc.Prices.TCG = append(doc.Prices.TCG, changedPrice{Variant: t.SubType, Market: t.Market.AppendJSON(nil)})
				}
				for _, c := range p.CM {
					doc.Prices.CM = append(doc.Prices.CM, changedPrice{Variant: c.Variant, Trend: c.Trend.AppendJSON(nil)})
				}
			}
			b.Cards = append(b.Cards, doc)
		}
		body, err := json.Marshal(b)
		if err != nil { // every field is a plain value
			panic("alerts: card.changed body: " + err.Error())
		}
		out = append(out, &Event{ID: id, AccountID: s.AccountID, WebhookID: s.WebhookID, Version: snap.Version, Created: created, Body: body})
	}
	return out
}

// lookupCard finds the card id in gs; none when gs is nil (a game the
// version does not have).
func lookupCard(gs *catalog.GameSnapshot, id string) (catalog.CardRef, bool) {
	if gs == nil {
		return 0, false
	}
	return gs.LookupCard(id)
}

// changeWindow is the cards of a game changed after since and up to the
// version evaluated.
type changeWindow struct {
	game  string
	since time.Time
}

// windowChanges are the changes of one changeWindow, by card id, and the
// sets its removed cards left (read once, when a set's subscription first
// needs them).
type windowChanges struct {
	changes     []store.CardChange
	removedSets map[string]string
}

// changesPage is how many changes one read of the feed takes.
const changesPage = 50_000

// changesWait is how long an evaluation waits for a version's changes to
// be recorded (shortened by the tests).
var changesWait = 5 * time.Second

// changedBetween reads the feed of game for the cards changed after since
// and at or before until (the version's creation time), by card id; ready
// is false while the feed has not recorded that version. A game whose
// feed was never recorded has no changes.
func (e *Evaluator) changedBetween(ctx context.Context, game string, since, until time.Time) (changes []store.CardChange, ready bool, err error) {
	until = until.Truncate(time.Microsecond)
	for offset := 0; ; {
		page, err := e.Changes.CardChanges(ctx, game, since, offset, changesPage)
		if errors.Is(err, store.ErrNotFound) {
			return nil, true, nil
		}
		if err != nil {
			return nil, false, fmt.Errorf("alerts: card changes of %s: %w", game, err)
		}
		if page.Until.Before(until) {
			return nil, false, nil
		}
		if offset == 0 && since.Before(page.From) {
			// A since before the feed's start reads nothing: read from its
			// start instead (a subscription not evaluated for longer than
			// the feed keeps removals).
			since = page.From
			continue
		}
		for _, c := range page.Changes {
			if !c.ChangedAt.After(until) {
				changes = append(changes, c)
			}
		}
		offset += len(page.Changes)
		if len(page.Changes) == 0 || offset >= page.Total {
			break
		}
	}
	sort.Slice(changes, func(i, j int) bool { return changes[i].ID < changes[j].ID })
	return changes, true, nil
}

// SubscriptionResult is what one evaluation of subscriptions did.
type SubscriptionResult struct {
	Evaluated int // subscriptions evaluated
	Fired     int // events written
	Queued    int // deliveries queued
}

// evaluateSubscriptions evaluates, in Evaluate (under its lock), every
// subscription not yet evaluated at snap's version: the cards of its set or
// list changed since the version it was last evaluated at (since the
// version itself for a new one) make its events. A subscription whose
// game's changes are not recorded yet stays pending (ErrChangesNotRecorded,
// so that Run tries again).
func (e *Evaluator) evaluateSubscriptions(ctx context.Context, snap *catalog.Snapshot, now func() time.Time, batch int) (SubscriptionResult, error) {
	var res SubscriptionResult
	if e.Subscriptions == nil || e.Changes == nil {
		return res, nil
	}
	at := snap.CreatedAt.UTC().Truncate(time.Microsecond)
	windows := map[changeWindow]*windowChanges{}
	notReady := map[string]bool{}
	var after int64
	for {
		pending, err := e.Subscriptions.PendingSubscriptions(ctx, snap.Version, after, batch)
		if err != nil {
			return res, err
		}
		if len(pending) == 0 {
			break
		}
		evs := make([]SubscriptionEvaluation, 0, len(pending))
		created := now()
		for i := range pending {
			s := &pending[i]
			after = s.ID
			since := s.LastAt
			if s.LastVersion == 0 || !since.Before(at) {
				since = at.Add(-time.Microsecond) // the version's own changes
			}
			w := changeWindow{s.Game, since}
			wc, ok := windows[w]
			if !ok && !notReady[s.Game] {
				var changes []store.CardChange
				var ready bool
				// The ingest records the version's changes just after it
				// writes the version: wait for them a little.
				for deadline := time.Now().Add(changesWait); ; time.Sleep(changesWait / 50) {
					changes, ready, err = e.changedBetween(ctx, s.Game, since, at)
					if err != nil {
						return res, err
					}
					if ready || time.Now().After(deadline) || ctx.Err() != nil {
						break
					}
				}
				if !ready {
					notReady[s.Game] = true
				} else {
					wc = &windowChanges{changes: changes}
					windows[w] = wc
				}
			}
			if notReady[s.Game] {
				continue
			}
			if s.SetID != "" && wc.removedSets == nil {
				if wc.removedSets, err = e.removedSets(ctx, s.Game, wc.changes); err != nil {
					return res, err
				}
			}
			cards := subscribedChanges(s, snap, wc.changes, wc.removedSets)
			evs = append(evs, SubscriptionEvaluation{SubscriptionID: s.ID, Events: subscriptionEvents(s, snap, created, cards)})
		}
		fired, queued, err := e.Subscriptions.RecordSubscriptions(ctx, snap.Version, at, evs)
		if err != nil {
			return res, err
		}
		res.Evaluated += len(evs)
		res.Fired += fired
		res.Queued += queued
	}
	if len(notReady) > 0 {
		games := make([]string, 0, len(notReady))
		for g := range notReady {
			games = append(games, g)
		}
		slices.Sort(games)
		return res, fmt.Errorf("%w (version %d, %s)", ErrChangesNotRecorded, snap.Version, strings.Join(games, ", "))
	}
	return res, nil
}

// removedSets are the sets the removed cards of changes left, by card id
// (empty, not nil, when there are none or the feed does not keep them).
func (e *Evaluator) removedSets(ctx context.Context, game string, changes []store.CardChange) (map[string]string, error) {
	rs, ok := e.Changes.(RemovedSets)
	var ids []string
	for _, c := range changes {
		if c.Removed {
			ids = append(ids, c.ID)
		}
	}
	if !ok || len(ids) == 0 {
		return map[string]string{}, nil
	}
	sets, err := rs.RemovedCardSets(ctx, game, ids)
	if err != nil {
		return nil, fmt.Errorf("alerts: the sets of %s's removed cards: %w", game, err)
	}
	if sets == nil {
		sets = map[string]string{}
	}
	return sets, nil
}

// subscribedChanges are the changes (by id) of s's cards: those of its
// list, or of its set: the cards of the set in snap that changed, and the
// cards removed from the catalogue that were in it (removedSets: the set
// each removed card left), also when the set itself is gone.
func subscribedChanges(s *Subscription, snap *catalog.Snapshot, changes []store.CardChange, removedSets map[string]string) []changedCard {
	var out []changedCard
	if s.SetID == "" {
		want := make(map[string]bool, len(s.Cards))
		for _, id := range s.Cards {
			want[id] = true
		}
		for _, c := range changes {
			if want[c.ID] {
				out = append(out, changedCard{ID: c.ID, Removed: c.Removed})
			}
		}
		return out
	}
	var first, end catalog.CardRef
	gs := snap.Game(s.Game)
	if gs != nil {
		if set, ok := gs.SetByID(s.SetID); ok {
			first, end = set.Cards()
		}
	}
	for _, c := range changes {
		if c.Removed {
			if removedSets[c.ID] == s.SetID {
				out = append(out, changedCard{ID: c.ID, Removed: true})
			}
			continue
		}
		if r, ok := lookupCard(gs, c.ID); ok && r >= first && r < end {
			out = append(out, changedCard{ID: c.ID})
		}
	}
	return out
}
