// Package alerts is the price alerts of issue 25: an account watches one
// finish of one card on one marketplace with a rule (at or above an
// amount, at or below one, or a move of at least N% against the 7-day
// average), and each new catalogue version is evaluated against every
// alert (evaluate.go): an alert fires once per crossing, is re-armed when
// the price goes back, and never fires twice for one version. A firing is
// an event (event.go), queued in the store for the alert's webhook
// (internal/webhooks delivers it) and, when the alert emails, an email to
// the account's verified address (email.go; internal/alertmail sends it).
//
// The rules of an alert are here (Check, ParseRule); how many alerts an
// account keeps is its plan's (account.Plan.AlertLimits).
package alerts

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cardcat/cardcat/internal/catalog"
)

// ErrNotFound is an alert the store does not have (or another account's).
var ErrNotFound = errors.New("alerts: not found")

// ErrLimit is an alert beyond what the account's plan keeps.
var ErrLimit = errors.New("alerts: the plan's limit of alerts is reached")

// Source is the marketplace an alert watches.
type Source string

// The marketplaces.
const (
	TCG Source = "tcg" // TCGplayer: the finish's market price
	CM  Source = "cm"  // Cardmarket: the finish's trend price
)

// Market is the marketplace's name: "TCGplayer", "Cardmarket".
func (s Source) Market() string {
	if s == CM {
		return "Cardmarket"
	}
	return "TCGplayer"
}

// Currency is the currency of the marketplace's prices, and of a rule's
// amount on it: "USD" on TCGplayer, "EUR" on Cardmarket.
func (s Source) Currency() string {
	if s == CM {
		return "EUR"
	}
	return "USD"
}

// ParseSource is the marketplace named s.
func ParseSource(s string) (Source, error) {
	switch Source(s) {
	case TCG, CM:
		return Source(s), nil
	}
	return "", fmt.Errorf("%q is not a marketplace: want tcg (TCGplayer) or cm (Cardmarket)", s)
}

// Kind is what a rule compares.
type Kind string

// The rules.
const (
	Above Kind = "above" // the price is at or above Cents
	Below Kind = "below" // the price is at or below Cents
	Move  Kind = "move"  // the price is at least Percent% away from the 7-day average
)

// MaxPercent is the largest move a rule watches, in percent.
const MaxPercent = 1000

// MaxAmount is the largest amount a rule watches, in cents (1,000,000.00):
// no card costs more, and it keeps a mistyped amount out.
const MaxAmount = 100_000_000

// Rule is when an alert's condition holds.
type Rule struct {
	Kind    Kind
	Cents   int64 // Above, Below: the amount, in cents of the marketplace's currency
	Percent int   // Move: 1 to MaxPercent
}

// String is the rule as the CLI writes it: "above 12.50", "move 20%".
func (r Rule) String() string {
	if r.Kind == Move {
		return fmt.Sprintf("move %d%%", r.Percent)
	}
	return string(r.Kind) + " " + FormatAmount(r.Cents)
}

// Text says the rule in words, its amount in src's currency: "at or above
// 12.50 USD", "moves 20% or more from its 7-day average".
func (r Rule) Text(src Source) string {
	switch r.Kind {
	case Above:
		return "at or above " + FormatAmount(r.Cents) + " " + src.Currency()
	case Below:
		return "at or below " + FormatAmount(r.Cents) + " " + src.Currency()
	}
	return "moves " + strconv.Itoa(r.Percent) + "% or more from its 7-day average"
}

// Check says what is wrong with the rule.
func (r Rule) Check() error {
	switch r.Kind {
	case Above, Below:
		if r.Cents <= 0 || r.Cents > MaxAmount {
			return fmt.Errorf("the amount of %s is not a positive amount up to %s", r.Kind, FormatAmount(MaxAmount))
		}
	case Move:
		if r.Percent < 1 || r.Percent > MaxPercent {
			return fmt.Errorf("the move is not a whole percentage from 1 to %d", MaxPercent)
		}
	default:
		return fmt.Errorf("%q is not a rule: want above, below or move", r.Kind)
	}
	return nil
}

// ParseAmount reads an amount as a person types it ("12", "12.5",
// "12.50"), exactly, in cents: at most two decimals, no sign, positive.
func ParseAmount(s string) (int64, error) {
	whole, frac, hasFrac := strings.Cut(strings.TrimSpace(s), ".")
	if whole == "" || len(whole) > 9 || !digits(whole) || hasFrac && (frac == "" || len(frac) > 2 || !digits(frac)) {
		return 0, fmt.Errorf("%q is not an amount (write it like 12 or 12.50)", s)
	}
	w, _ := strconv.ParseInt(whole, 10, 64)
	var c int64
	if hasFrac {
		c, _ = strconv.ParseInt((frac + "0")[:2], 10, 64)
	}
	cents := w*100 + c
	if cents <= 0 || cents > MaxAmount {
		return 0, fmt.Errorf("%q is not a positive amount up to %s", s, FormatAmount(MaxAmount))
	}
	return cents, nil
}

// ParsePercent reads a move's percentage: a whole number from 1 to
// MaxPercent, with or without "%".
func ParsePercent(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(s), "%"))
	if err != nil || n < 1 || n > MaxPercent {
		return 0, fmt.Errorf("%q is not a whole percentage from 1 to %d", s, MaxPercent)
	}
	return n, nil
}

// ParseRule reads a rule as a person gives it: its kind (above, below or
// move) and its value, an amount for above and below ("12.50"), a
// percentage for move ("20" or "20%"). The CLI's flags and the portal's
// form both read rules with it.
func ParseRule(kind, value string) (Rule, error) {
	r := Rule{Kind: Kind(strings.TrimSpace(kind))}
	var err error
	switch r.Kind {
	case Above, Below:
		r.Cents, err = ParseAmount(value)
	case Move:
		r.Percent, err = ParsePercent(value)
	default:
		return Rule{}, fmt.Errorf("%q is not a rule: want above, below or move", kind)
	}
	if err != nil {
		return Rule{}, err
	}
	return r, nil
}

// Value is the rule's value as ParseRule reads it: "12.50", "20".
func (r Rule) Value() string {
	if r.Kind == Move {
		return strconv.Itoa(r.Percent)
	}
	return FormatAmount(r.Cents)
}

func digits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// FormatAmount writes cents as ParseAmount reads them: "12.50".
func FormatAmount(cents int64) string {
	return fmt.Sprintf("%d.%02d", cents/100, cents%100)
}

// Alert is one account's watch on one finish of one card.
type Alert struct {
	ID        int64
	AccountID int64
	Game      string // the card's game code
	CardID    string // the card's canonical id (a Cardmarket-only card's 64 hex)
	Source    Source
	Finish    string // TCGplayer's subTypeName ("Holofoil"), Cardmarket's "normal" or "foil"
	Rule      Rule
	WebhookID int64 // the endpoint its events go to; 0: none
	// Email: each firing is also emailed to the account's verified address
	// (email.go), until turned off in the portal or by the email's
	// unsubscribe link.
	Email     bool
	Paused    bool // not evaluated while paused
	CreatedAt time.Time

	// The evaluation's state: Armed is false from a firing until the
	// condition stops holding; LastVersion is the newest catalogue version
	// evaluated (0: none yet), LastPrice the price it read (the next
	// event's old price).
	Armed       bool
	LastVersion int64
	LastPrice   catalog.Money
}

// Store keeps the alerts, their state and their events. Times are kept to
// the microsecond.
type Store interface {
	// CreateAlert stores a (armed, never evaluated) and sets its ID and
	// CreatedAt, unless the account has max alerts already (ErrLimit),
	// counted in the same transaction. A WebhookID must be one of the
	// account's endpoints (ErrNotFound otherwise). An alert that emails
	// gets its unsubscribe token (NewEmailToken).
	CreateAlert(ctx context.Context, a *Alert, max int) error
	// UpdateAlert changes one of the account's alerts (a.AccountID, a.ID)
	// to a's card, marketplace, finish, rule, webhook and Email; its paused
	// state, creation and unsubscribe token stay (one is made when it has
	// none and a.Email is set). It is armed again and evaluated anew at the next
	// version; the last price read is kept only when it still watches the
	// same card, marketplace and finish. ErrNotFound when the account has
	// no such alert, or a.WebhookID is not one of its endpoints.
	UpdateAlert(ctx context.Context, a *Alert) error
	// Alerts are the account's alerts, oldest first.
	Alerts(ctx context.Context, accountID int64) ([]Alert, error)
	// SetAlertPaused pauses or resumes one of the account's alerts
	// (ErrNotFound when it has no such alert).
	SetAlertPaused(ctx context.Context, accountID, id int64, paused bool) error
	// DeleteAlert deletes one of the account's alerts; its events stay
	// (ErrNotFound when it has no such alert).
	DeleteAlert(ctx context.Context, accountID, id int64) error
	// PendingAlerts are up to limit alerts not paused and not evaluated at
	// version (LastVersion below it), of IDs above afterID, by ID.
	PendingAlerts(ctx context.Context, version, afterID int64, limit int) ([]Alert, error)
	// RecordEvaluations writes, in one transaction, each evaluation of
	// alerts at version: an alert's new state, only if it is still not
	// paused and below version (so that no alert is evaluated twice for
	// one version, whoever else evaluates), and then its event, queued for
	// delivery to the alert's webhook when it has one that still exists,
	// and its email when the evaluation says Email. An email is queued
	// EmailCapped instead of EmailPending when its account had
	// emailsPerHour emails queued (not capped, not cancelled) in the hour
	// up to the event's creation, those of this call included (0: no cap).
	// An evaluation that Kept the state moves only the alert's version (a
	// cheaper write: most alerts, most versions).
	RecordEvaluations(ctx context.Context, version int64, evs []Evaluation, emailsPerHour int) (Recorded, error)
	// Events are the account's events, newest first, at most limit.
	Events(ctx context.Context, accountID int64, limit int) ([]Event, error)
	// QueueTestEvent writes e (a test event: NewTestEvent's) and queues its
	// delivery to e.WebhookID through the same queue as every event;
	// ErrNotFound when that is not one of e.AccountID's endpoints.
	QueueTestEvent(ctx context.Context, e *Event) error
}

// Evaluation is one alert's outcome at a version.
type Evaluation struct {
	AlertID int64
	Armed   bool
	Price   catalog.Money
	Event   *Event // the firing; nil when it did not fire
	// Email, with Event, queues an email of the firing too (the alert
	// emails); CardName is the card's name at the version, which it says.
	Email    bool
	CardName string
	// Kept is true when Armed and Price are the state read (no firing):
	// only LastVersion is written.
	Kept bool
}

// Recorded is what RecordEvaluations wrote.
type Recorded struct {
	Fired   int // events written
	Queued  int // webhook deliveries queued
	Emailed int // emails queued to be sent
	Capped  int // emails queued EmailCapped: past their account's emails per hour
}

// finishes names the finishes a card has on source, in its order.
func finishes(p *catalog.CardPrices, source Source) []string {
	var out []string
	if source == TCG {
		for _, t := range p.TCG {
			out = append(out, t.SubType)
		}
	} else {
		for _, c := range p.CM {
			out = append(out, c.Variant)
		}
	}
	return out
}

// FindCard finds the card of id in snap: a prefixed id in its game, a
// 64-hex Cardmarket id in whichever game has it.
func FindCard(snap *catalog.Snapshot, id string) (*catalog.GameSnapshot, catalog.CardRef, bool) {
	for _, gs := range snap.Games() {
		if catalog.ClassifyCardID(gs.Game().Code, id) == catalog.IDMalformed {
			continue
		}
		if r, ok := gs.LookupCard(id); ok {
			return gs, r, true
		}
	}
	return nil, 0, false
}

// Watched is what a watches in snap now: the card's name and the finish's
// price on the marketplace (TCGplayer's market, Cardmarket's trend; not OK
// when it has none); found is false when the card is not in snap.
func Watched(snap *catalog.Snapshot, a *Alert) (name string, price catalog.Money, found bool) {
	if snap == nil {
		return "", price, false
	}
	gs := snap.Game(a.Game)
	if gs == nil {
		return "", price, false
	}
	r, ok := gs.LookupCard(a.CardID)
	if !ok {
		return "", price, false
	}
	var p catalog.CardPrices
	gs.CardPrices(r, &p)
	if a.Source == CM {
		for _, c := range p.CM {
			if c.Variant == a.Finish {
				price = c.Trend
			}
		}
	} else {
		for _, t := range p.TCG {
			if t.SubType == a.Finish {
				price = t.Market
			}
		}
	}
	return p.Name, price, true
}

// Check says what is wrong with a, the alert an account asks for, against
// the catalogue served now, and fills its Game and canonical CardID: the
// card exists, the finish is one the card has on the marketplace, the rule
// holds. Every message names what to fix.
func Check(a *Alert, snap *catalog.Snapshot) error {
	if a.Source != TCG && a.Source != CM {
		_, err := ParseSource(string(a.Source))
		return err
	}
	if err := a.Rule.Check(); err != nil {
		return err
	}
	if snap == nil {
		return errors.New("no catalogue is loaded yet; try again in a minute")
	}
	gs, r, ok := FindCard(snap, strings.TrimSpace(a.CardID))
	if !ok {
		return fmt.Errorf("no card %q in the current catalogue (a card id is its game's prefix and 16 hex digits, like pkm_0123456789abcdef, or a Cardmarket id of 64 hex digits)", a.CardID)
	}
	var p catalog.CardPrices
	gs.CardPrices(r, &p)
	have := finishes(&p, a.Source)
	if !slices.Contains(have, a.Finish) {
		market := map[Source]string{TCG: "TCGplayer", CM: "Cardmarket"}[a.Source]
		if len(have) == 0 {
			return fmt.Errorf("card %s has no %s prices", p.ID, market)
		}
		return fmt.Errorf("card %s has no %s finish %q: it has %s", p.ID, market, a.Finish, strings.Join(have, ", "))
	}
	a.Game, a.CardID = gs.Game().Code, p.ID
	return nil
}
