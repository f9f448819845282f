package alerts

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/cardcat/cardcat/internal/catalog"
)

// EventPriceAlert is the type of an alert's firing.
const EventPriceAlert = "price.alert"

// Event is one firing of an alert, as kept in the store and sent to the
// alert's webhook: Body is the JSON a receiver gets (docs/api.md,
// "Webhooks").
type Event struct {
	ID        string // "evt_" + 24 hex: the same for the same alert and version
	AccountID int64
	AlertID   int64
	WebhookID int64 // 0: none
	Version   int64 // 0 for a test event
	Created   time.Time
	Body      []byte
	// Test marks an event the account asked for to try its endpoint
	// (NewTestEvent): AlertID is then the alert it imitates, or 0.
	Test bool
}

// EventID is the id of alert's event at version: derived, so that a
// firing written twice (it is not: RecordEvaluations guards it) would be
// one event. It is the version (8 hex digits) then the alert (16), so that
// the events of an evaluation, which goes by alert, are appended to the
// stores' indexes on event ids instead of being scattered over them: a
// hashed id made each firing write a page of each such index
// (bench/README.md, "Alert evaluation"). Both numbers are in the event's
// body anyway; receivers take the id as opaque.
func EventID(alertID, version int64) string {
	return fmt.Sprintf("evt_%08x%016x", uint32(version), uint64(alertID))
}

// eventBody is the JSON of a price.alert event.
type eventBody struct {
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	Created   string          `json:"created"`
	Version   int64           `json:"catalogue_version"`
	Game      string          `json:"game"`
	CardID    string          `json:"card_id"`
	Source    Source          `json:"source"`
	Variant   string          `json:"variant"`
	OldPrice  json.RawMessage `json:"old_price"`
	NewPrice  json.RawMessage `json:"new_price"`
	Average7d json.RawMessage `json:"average_7d"`
	Alert     eventAlert      `json:"alert"`
	// Test is true on a test event only, so that a receiver can tell it
	// from a real firing.
	Test bool `json:"test,omitempty"`
}

type eventAlert struct {
	ID        int64           `json:"id"`
	Rule      Kind            `json:"rule"`
	Threshold json.RawMessage `json:"threshold,omitempty"`
	Percent   int             `json:"percent,omitempty"`
}

// newEvent is a's firing at version: the price went from old to price
// (avg7: the 7-day average the move is measured against).
func newEvent(a *Alert, version int64, created time.Time, old, price, avg7 catalog.Money) *Event {
	return buildEvent(a, EventID(a.ID, version), version, created, old, price, avg7, false)
}

// sampleAlert is what a test event imitates when the account has no alert:
// the card of docs/api.md's example.
var sampleAlert = Alert{Game: "pkm", CardID: "pkm_0123456789abcdef", Source: TCG, Finish: "Holofoil",
	Rule: Rule{Kind: Above, Cents: 1250}}

// NewTestEvent is a test event for the account's endpoint webhookID: a
// price.alert event like a's firing (the sample alert of docs/api.md when a
// is nil), at version (the catalogue served now, 0 when none) with "test":
// true, and a random id, so that each test is another event. A receiver
// checks its signature as any event's.
func NewTestEvent(accountID, webhookID int64, a *Alert, version int64, created time.Time) *Event {
	if a == nil {
		a = &sampleAlert
	}
	old, price, avg7 := a.LastPrice, catalog.Cents(1264), catalog.Money{}
	// A price at which the rule holds.
	switch {
	case a.Rule.Kind != Move:
		price = catalog.Cents(a.Rule.Cents)
	case a.LastPrice.OK:
		avg7 = a.LastPrice
		price = catalog.Cents(a.LastPrice.Cents + a.LastPrice.Cents*int64(a.Rule.Percent)/100)
	}
	var b [12]byte
	rand.Read(b[:]) // never fails (crypto/rand, Go 1.24+)
	e := buildEvent(a, "evt_"+hex.EncodeToString(b[:]), version, created, old, price, avg7, true)
	e.AccountID, e.WebhookID, e.Version = accountID, webhookID, 0
	return e
}

func buildEvent(a *Alert, id string, version int64, created time.Time, old, price, avg7 catalog.Money, test bool) *Event {
	created = created.UTC().Truncate(time.Microsecond)
	b := eventBody{
		ID: id, Type: EventPriceAlert, Created: created.Format(time.RFC3339Nano), Version: version,
		Game: a.Game, CardID: a.CardID, Source: a.Source, Variant: a.Finish,
		OldPrice: old.AppendJSON(nil), NewPrice: price.AppendJSON(nil), Average7d: avg7.AppendJSON(nil),
		Alert: eventAlert{ID: a.ID, Rule: a.Rule.Kind}, Test: test,
	}
	if a.Rule.Kind == Move {
		b.Alert.Percent = a.Rule.Percent
	} else {
		b.Alert.Threshold = catalog.Cents(a.Rule.Cents).AppendJSON(nil)
	}
	body, err := json.Marshal(b)
	if err != nil { // every field is a plain value
		panic("alerts: event body: " + err.Error())
	}
	return &Event{ID: id, AccountID: a.AccountID, AlertID: a.ID, WebhookID: a.WebhookID, Version: version, Created: created, Body: body, Test: test}
}
