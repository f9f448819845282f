// Package webhooks is the signed webhooks of issue 25: an account's
// endpoints (https only, several allowed), each with a signing secret
// shown once; the signature of a delivery (signature.go: one
// Cardcat-Signature header, HMAC-SHA256 over "timestamp.body", and Verify,
// what a receiver runs); and the delivery of the queued events
// (worker.go) through a client that refuses private addresses at dial
// time (client.go).
//
// The queue is the store's (Store): events are queued by the alerts'
// evaluation (alerts.Store.RecordEvaluations), claimed one at a time with
// a lease (PostgreSQL: FOR UPDATE SKIP LOCKED, so that replicas share the
// work; SQLite: one process), retried with exponential backoff and jitter
// for MaxAge, then failed; every attempt is logged.
package webhooks

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// ErrNotFound is an endpoint or delivery the store does not have.
var ErrNotFound = errors.New("webhooks: not found")

// ErrLimit is an endpoint beyond what the account's plan keeps.
var ErrLimit = errors.New("webhooks: the plan's limit of webhook endpoints is reached")

// ErrNoDelivery is ClaimDelivery's answer when nothing is due.
var ErrNoDelivery = errors.New("webhooks: no delivery due")

// ErrInFlight is ResendDelivery's answer when the delivery is being sent at
// this moment (a worker holds its lease).
var ErrInFlight = errors.New("webhooks: the delivery is being sent right now")

// ErrLeaseLost is FinishDelivery's answer when the delivery's lease ran out
// and another worker claimed it since: its outcome is that worker's.
var ErrLeaseLost = errors.New("webhooks: the delivery's lease was lost")

// Endpoint is one of an account's webhook URLs.
type Endpoint struct {
	ID        int64
	AccountID int64
	URL       string
	// Secret signs every delivery ("whsec_" + 64 hex). It is shown once,
	// when the endpoint is created or its secret rotated; the store keeps
	// it to sign.
	Secret    string
	CreatedAt time.Time
	// PreviousSecret is the secret a rotation replaced, which still signs
	// deliveries beside Secret until PreviousUntil (the overlap, so that a
	// receiver can change its secret in the meantime); "" when none.
	PreviousSecret string
	PreviousUntil  time.Time
}

// MaxOverlap is the longest a rotated secret keeps signing beside the new
// one.
const MaxOverlap = 7 * 24 * time.Hour

// CheckOverlap says what is wrong with an overlap period of a rotation.
func CheckOverlap(d time.Duration) error {
	if d < 0 || d > MaxOverlap {
		return fmt.Errorf("the overlap is not from 0 to %d days", MaxOverlap/(24*time.Hour))
	}
	return nil
}

// State is a delivery's state.
type State string

// The states of a delivery.
const (
	Pending    State = "pending"    // due at NextAt
	Delivering State = "delivering" // claimed by a worker until its lease ends
	Delivered  State = "delivered"  // answered 2xx
	Failed     State = "failed"     // not answered 2xx within MaxAge
)

// Delivery is one event to send to one endpoint, as a worker claims it.
type Delivery struct {
	ID         int64
	EventID    string
	EndpointID int64
	URL        string
	Secret     string
	Body       []byte
	State      State
	Attempts   int // attempts made, the claimed one included
	CreatedAt  time.Time
	NextAt     time.Time
	// PreviousSecret signs beside Secret until PreviousUntil (a rotation's
	// overlap); "" when none.
	PreviousSecret string
	PreviousUntil  time.Time
	// ResentAt is the delivery's last resend (zero: never), when its
	// schedule started again; ResentAfter the attempts made before it.
	ResentAt    time.Time
	ResentAfter int
}

// schedule is when the delivery's schedule started (its creation, or its
// last resend) and how many attempts were made since.
func (d Delivery) schedule() (start time.Time, attempts int) {
	if d.ResentAt.IsZero() {
		return d.CreatedAt, d.Attempts
	}
	return d.ResentAt, d.Attempts - d.ResentAfter
}

// secrets are the secrets an attempt at t is signed with: the endpoint's,
// and the one it replaced during the overlap.
func (d Delivery) secrets(t time.Time) []string {
	if d.PreviousSecret != "" && t.Before(d.PreviousUntil) {
		return []string{d.Secret, d.PreviousSecret}
	}
	return []string{d.Secret}
}

// LoggedDelivery is a delivery as the delivery log shows it, with each of
// its attempts (Secret and Body are not read).
type LoggedDelivery struct {
	Delivery
	// Test is true for a test event (the portal's "send a test event").
	Test bool
	Log  []Attempt // first first
}

// Attempt is one try of a delivery, as the delivery log keeps it.
type Attempt struct {
	DeliveryID int64
	N          int // 1 for the first
	At         time.Time
	Status     int // the HTTP status; 0 when none came
	Duration   time.Duration
	Error      string // why it failed before a status, for the account's log
	Response   string // the answer's first MaxExcerpt bytes
}

// MaxExcerpt is how much of an answer an attempt keeps.
const MaxExcerpt = 1024

// Store keeps the endpoints and the delivery queue. Times are kept to the
// microsecond.
type Store interface {
	// CreateEndpoint stores e and sets its ID and CreatedAt, unless the
	// account has max endpoints already (ErrLimit), counted in the same
	// transaction.
	CreateEndpoint(ctx context.Context, e *Endpoint, max int) error
	// Endpoints are the account's endpoints, oldest first.
	Endpoints(ctx context.Context, accountID int64) ([]Endpoint, error)
	// ClaimDelivery claims the delivery due first (Pending with NextAt at
	// or before now, or Delivering with its lease ended: its worker died),
	// marks it Delivering until now+lease and counts the attempt; of
	// several callers at once, each gets another delivery (ErrNoDelivery
	// when none is due).
	ClaimDelivery(ctx context.Context, now time.Time, lease time.Duration) (Delivery, error)
	// FinishDelivery records attempt a of the claimed delivery d and sets
	// its state: Delivered, Failed, or Pending again at next.
	// ErrLeaseLost when d was claimed again since.
	FinishDelivery(ctx context.Context, d Delivery, a Attempt, state State, next time.Time) error
	// Deliveries are the deliveries of an event, by ID.
	Deliveries(ctx context.Context, eventID string) ([]Delivery, error)
	// Attempts are a delivery's attempts, first first.
	Attempts(ctx context.Context, deliveryID int64) ([]Attempt, error)
	// DeleteEndpoint deletes one of the account's endpoints with its
	// deliveries and their attempts; the alerts that sent to it keep their
	// events, not sent (their webhook is none). ErrNotFound when the
	// account has no such endpoint.
	DeleteEndpoint(ctx context.Context, accountID, id int64) error
	// RotateSecret gives one of the account's endpoints secret, and keeps
	// its current one signing beside it until previousUntil (not at all
	// when zero); a secret kept from an earlier rotation is dropped.
	// ErrNotFound when the account has no such endpoint.
	RotateSecret(ctx context.Context, accountID, id int64, secret string, previousUntil time.Time) error
	// DeliveryLog is the deliveries to one of the account's endpoints,
	// newest first, of IDs below beforeID (0: from the newest), at most
	// limit, each with its attempts. ErrNotFound when the account has no
	// such endpoint.
	DeliveryLog(ctx context.Context, accountID, endpointID, beforeID int64, limit int) ([]LoggedDelivery, error)
	// ResendDelivery queues a delivery to one of the account's endpoints
	// again, due at now, whatever its state, with a new schedule (its
	// attempts go on being numbered after the earlier ones). ErrNotFound
	// when the account has no such endpoint or the delivery is not one of
	// the endpoint's (a delivery is resent from its own endpoint's log);
	// ErrInFlight while a worker holds it.
	ResendDelivery(ctx context.Context, accountID, endpointID, deliveryID int64, now time.Time) error
}

// NewSecret is a new signing secret: "whsec_" and 32 random bytes in hex.
func NewSecret() string {
	b := make([]byte, 32)
	rand.Read(b) // never fails (crypto/rand, Go 1.24+)
	return "whsec_" + hex.EncodeToString(b)
}

// MaxURL is the longest endpoint URL taken.
const MaxURL = 2048

// CheckURL says what is wrong with an endpoint URL: an absolute https URL
// (http too when allowHTTP), with a host, without user information or a
// fragment. Where it points is checked at each delivery (client.go), since
// what a name resolves to can change.
func CheckURL(raw string, allowHTTP bool) error {
	if len(raw) > MaxURL {
		return fmt.Errorf("the URL is longer than %d characters", MaxURL)
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Hostname() == "" {
		return fmt.Errorf("%q is not an absolute URL (like https://example.com/hooks/cardcat)", raw)
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && allowHTTP:
	case u.Scheme == "http":
		return fmt.Errorf("%q is not https: webhooks are sent over https only", raw)
	default:
		return fmt.Errorf("%q is not an https URL", raw)
	}
	if u.User != nil {
		return fmt.Errorf("%q holds user information; put credentials in the path or check the signature instead", raw)
	}
	if u.Fragment != "" || strings.Contains(raw, "#") {
		return fmt.Errorf("%q holds a fragment (#...), which is never sent", raw)
	}
	return nil
}
