package alerts

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/cardcat/cardcat/internal/catalog"
)

// An alert with Email set also emails each of its firings to its account's
// verified address (issue 25's second channel). The evaluation queues the
// email in the store beside the event, in the same transaction
// (RecordEvaluations); internal/alertmail's worker sends it through the
// portal's mailer. Each such alert has an unsubscribe token: the one-click
// link of its emails (RFC 8058) turns its Email off with it, no login
// needed.

// ErrNoEmail is ClaimEmail's answer when no email is due.
var ErrNoEmail = errors.New("alerts: no email due")

// ErrEmailLeaseLost is FinishEmail's answer when the email's lease ran out
// and another worker claimed it since: its outcome is that worker's.
var ErrEmailLeaseLost = errors.New("alerts: the email's lease was lost")

// DefaultEmailsPerHour is how many alert emails an account gets in an hour
// at most, unless the operator sets another number: the firings past it
// are not emailed (EmailCapped), so that a volatile day does not send a
// Business account thousands of emails at once, which mailbox providers
// take for spam (and the sender's reputation with them). Webhooks get
// every firing.
const DefaultEmailsPerHour = 20

// EmailState is an alert email's state in the queue.
type EmailState string

// The states of an alert email.
const (
	EmailPending   EmailState = "pending"   // due at NextAt
	EmailSending   EmailState = "sending"   // claimed by a worker until its lease ends
	EmailSent      EmailState = "sent"      // accepted by the SMTP server (or logged, without one)
	EmailFailed    EmailState = "failed"    // refused for good, or not accepted within the retries
	EmailCancelled EmailState = "cancelled" // not sent: its alert was deleted or stopped emailing, or the address is not verified
	EmailCapped    EmailState = "capped"    // not sent: past the account's emails per hour
)

// Email is one firing of an alert to email, as the queue keeps it.
type Email struct {
	ID        int64
	EventID   string // the firing's event: what the email says
	AccountID int64
	AlertID   int64
	CardName  string // the card's name at the firing's version
	State     EmailState
	Attempts  int // attempts made, the claimed one included
	CreatedAt time.Time
	NextAt    time.Time // pending: when due; sending: the lease's end
	SentAt    time.Time // zero until sent
	Error     string    // why the last attempt failed, or why it was not sent

	// Read by ClaimEmail, as they are when it is claimed: the account's
	// address and whether it is verified; whether the alert still exists
	// and emails (AlertEmails), and its unsubscribe token; the event's
	// body; and how many of the account's firings were not emailed in the
	// hour before the claim (past its emails per hour).
	To          string
	Verified    bool
	AlertEmails bool
	Token       string
	Body        []byte
	Capped      int
}

// EmailStore keeps the alert emails' queue and the alerts' unsubscribe
// tokens. Times are kept to the microsecond.
type EmailStore interface {
	// ClaimEmail claims the email due first (EmailPending with NextAt at or
	// before now, or EmailSending with its lease ended: its worker died),
	// marks it EmailSending until now+lease and counts the attempt; of
	// several callers at once, each gets another email (ErrNoEmail when
	// none is due).
	ClaimEmail(ctx context.Context, now time.Time, lease time.Duration) (Email, error)
	// FinishEmail records the end of the claimed e's attempt: its state
	// (EmailSent at now, EmailFailed, EmailCancelled, or EmailPending again
	// at next), and errText, why it was not sent ("" when it was).
	// ErrEmailLeaseLost when e was claimed again since.
	FinishEmail(ctx context.Context, e Email, state EmailState, now, next time.Time, errText string) error
	// Emails are the account's alert emails, newest first, at most limit
	// (the To ... Capped part is not read).
	Emails(ctx context.Context, accountID int64, limit int) ([]Email, error)
	// AlertByEmailToken is the alert whose unsubscribe token is token
	// (ErrNotFound when none: a mistyped link, a deleted alert or account).
	AlertByEmailToken(ctx context.Context, token string) (Alert, error)
	// StopAlertEmails turns Email off on the alert whose unsubscribe token
	// is token, or with all on every alert of its account, and returns
	// that alert (as it is now) and how many alerts it turned off (0 when
	// they were off already). Its emails queued and not sent yet are not
	// sent. ErrNotFound when no alert has that token.
	StopAlertEmails(ctx context.Context, token string, all bool) (a Alert, stopped int, err error)
}

// UnsubscribePath is where the portal serves the unsubscribe link of alert
// emails, with ?token=: a GET shows a page whose buttons POST, a POST (the
// one click of RFC 8058) turns the alert's emails off.
const UnsubscribePath = "/account/alerts/unsubscribe"

// UnsubscribeURL is the unsubscribe link of token on the public URL.
func UnsubscribeURL(publicURL, token string) string {
	return publicURL + UnsubscribePath + "?token=" + token
}

// emailTokenBytes is the unsubscribe token's randomness: 256 bits, so that
// no one guesses another's.
const emailTokenBytes = 32

// NewEmailToken is a new unsubscribe token: 32 random bytes in hex. The
// stores give one to each alert when its Email is first turned on, and
// keep it: it works as long as the alert exists.
func NewEmailToken() string {
	b := make([]byte, emailTokenBytes)
	rand.Read(b) // never fails (crypto/rand, Go 1.24+)
	return hex.EncodeToString(b)
}

// ValidEmailToken reports whether s has the form of an unsubscribe token
// (64 lowercase hex digits), so that a mangled link is told apart without
// reading the store.
func ValidEmailToken(s string) bool {
	if len(s) != 2*emailTokenBytes {
		return false
	}
	for i := range len(s) {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// Firing is what a price.alert event says, read back from its body
// (ReadFiring): an alert email is written from it, so that it tells what
// the receivers of webhooks were told.
type Firing struct {
	EventID  string
	Created  time.Time
	Version  int64
	Game     string
	CardID   string
	Source   Source
	Finish   string
	Old, New catalog.Money
	Average  catalog.Money // the 7-day average of a move
	AlertID  int64
	Rule     Rule
	Test     bool
}

// ReadFiring reads a price.alert event's body (buildEvent's).
func ReadFiring(body []byte) (Firing, error) {
	var b struct {
		ID        string   `json:"id"`
		Type      string   `json:"type"`
		Created   string   `json:"created"`
		Version   int64    `json:"catalogue_version"`
		Game      string   `json:"game"`
		CardID    string   `json:"card_id"`
		Source    Source   `json:"source"`
		Variant   string   `json:"variant"`
		OldPrice  *float64 `json:"old_price"`
		NewPrice  *float64 `json:"new_price"`
		Average7d *float64 `json:"average_7d"`
		Alert     struct {
			ID        int64    `json:"id"`
			Rule      Kind     `json:"rule"`
			Threshold *float64 `json:"threshold"`
			Percent   int      `json:"percent"`
		} `json:"alert"`
		Test bool `json:"test"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		return Firing{}, fmt.Errorf("alerts: event body: %w", err)
	}
	if b.Type != EventPriceAlert {
		return Firing{}, fmt.Errorf("alerts: event %s is a %q event, not %q", b.ID, b.Type, EventPriceAlert)
	}
	money := func(f *float64) catalog.Money {
		if f == nil {
			return catalog.Money{}
		}
		return catalog.MoneyFromFloat(*f)
	}
	f := Firing{EventID: b.ID, Version: b.Version, Game: b.Game, CardID: b.CardID, Source: b.Source, Finish: b.Variant,
		Old: money(b.OldPrice), New: money(b.NewPrice), Average: money(b.Average7d), AlertID: b.Alert.ID,
		Rule: Rule{Kind: b.Alert.Rule, Percent: b.Alert.Percent}, Test: b.Test}
	f.Created, _ = time.Parse(time.RFC3339Nano, b.Created)
	if b.Alert.Rule != Move {
		f.Rule.Cents = money(b.Alert.Threshold).Cents
	}
	return f, nil
}
