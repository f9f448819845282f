package billing

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/stripe/stripe-go/v82"
	"github.com/stripe/stripe-go/v82/webhook"

	"github.com/cardcat/cardcat/internal/account"
)

// maxEventBytes caps a webhook body; Stripe's events are a few KiB.
const maxEventBytes = 64 << 10

// signatureTolerance is how old a signature may be, as stripe-go's default:
// an event captured on the way cannot be replayed later.
const signatureTolerance = webhook.DefaultTolerance

// signatureSkew is how far ahead of our clock a signature may be (Stripe's
// clock and ours differ a little); one further ahead would stay fresh for
// longer than signatureTolerance.
const signatureSkew = 5 * time.Minute

// Webhook is the handler of WebhookRoute. A body without a valid, recent
// signature answers 400 and changes nothing. A handled or ignored event
// answers 200 {"received":true}; a store failure answers 500 so that Stripe
// sends the event again.
func (s *Stripe) Webhook() http.Handler {
	return http.HandlerFunc(s.serveWebhook)
}

func (s *Stripe) serveWebhook(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeJSON(w, http.StatusMethodNotAllowed, map[string]string{"error": "method not allowed"})
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxEventBytes))
	if err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			writeJSON(w, http.StatusRequestEntityTooLarge, map[string]string{"error": "body too large"})
			return
		}
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "unreadable body"})
		return
	}
	ev, err := s.verify(body, r.Header.Get("Stripe-Signature"))
	if err != nil {
		s.log.Warn("stripe webhook refused", "reason", err.Error())
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid signature"})
		return
	}
	res, err := s.apply(r.Context(), &ev)
	if err != nil {
		s.log.Error("stripe webhook failed", "event_id", ev.ID, "event_type", string(ev.Type),
			"account_id", res.accountID, "err", err)
		writeJSON(w, http.StatusInternalServerError, map[string]string{"error": "internal error"})
		return
	}
	level := slog.LevelInfo
	if res.outcome == outcomeUnhandled {
		level = slog.LevelDebug
	}
	s.log.Log(r.Context(), level, "stripe event", "event_id", ev.ID, "event_type", string(ev.Type),
		"account_id", res.accountID, "outcome", res.outcome)
	writeJSON(w, http.StatusOK, map[string]bool{"received": true})
}

// verify checks the Stripe-Signature header (HMAC of the body with the
// endpoint's secret) and its age on s's clock, and parses the event.
func (s *Stripe) verify(body []byte, sigHeader string) (stripe.Event, error) {
	signedAt, err := signatureTime(sigHeader)
	if err != nil {
		return stripe.Event{}, err
	}
	switch age := s.now().Sub(signedAt); {
	case age > signatureTolerance:
		return stripe.Event{}, fmt.Errorf("%w (signed %s before now)", webhook.ErrTooOld, age.Round(time.Second))
	case age < -signatureSkew:
		return stripe.Event{}, fmt.Errorf("signature timestamp %s ahead of now", (-age).Round(time.Second))
	}
	ev, err := webhook.ConstructEventWithOptions(body, sigHeader, s.webhookSecret, webhook.ConstructEventOptions{
		// The age is checked above on the injected clock, so that a test's
		// clock and the fake Stripe's agree.
		IgnoreTolerance: true,
		// An endpoint's events come in the API version it was created
		// with, often older than stripe-go's; refusing them would leave a
		// paying customer on Free while Stripe retries. The fields read here
		// (ids, status, metadata, client_reference_id) are the same in
		// every version, and are decoded without stripe-go's types.
		IgnoreAPIVersionMismatch: true,
	})
	if err != nil {
		return stripe.Event{}, err
	}
	if ev.ID == "" || ev.Type == "" || ev.Data == nil {
		return stripe.Event{}, errors.New("event without id, type or data")
	}
	return ev, nil
}

// signatureTime is the one t= of a Stripe-Signature header, which
// ConstructEventWithOptions verifies but does not return. A header with
// more than one is refused: stripe-go verifies with the last, so a fresh t=
// put before an old signature's would pass an old capture as new. The pairs
// are split as stripe-go splits them, so that both read the same t=.
func signatureTime(header string) (time.Time, error) {
	if header == "" {
		return time.Time{}, webhook.ErrNotSigned
	}
	var (
		signedAt time.Time
		n        int
	)
	for pair := range strings.SplitSeq(header, ",") {
		k, v, _ := strings.Cut(pair, "=")
		if k != "t" {
			continue
		}
		if n++; n > 1 {
			return time.Time{}, fmt.Errorf("%w: more than one t=", webhook.ErrInvalidHeader)
		}
		sec, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return time.Time{}, webhook.ErrInvalidHeader
		}
		signedAt = time.Unix(sec, 0)
	}
	if n == 0 {
		return time.Time{}, webhook.ErrInvalidHeader
	}
	return signedAt, nil
}

// What applying an event did, for the log.
const (
	outcomeApplied   = "applied"
	outcomeUnchanged = "unchanged"  // already applied (a replay), or nothing to change
	outcomeIgnored   = "ignored"    // not for us, or not (yet) a reason to change a plan
	outcomeUnhandled = "unhandled"  // an event type this endpoint does not act on
	outcomeNoAccount = "no-account" // the account is gone or unknown
	outcomeOtherSub  = "other-subscription"
	outcomeOlderSub  = "older-subscription" // a late retry of a subscription older than the account's
)

type result struct {
	accountID int64
	outcome   string
}

// apply changes the account an event is about. An error means a retry may
// succeed (the store failed); an event that can never apply is ignored.
func (s *Stripe) apply(ctx context.Context, ev *stripe.Event) (result, error) {
	switch ev.Type {
	case stripe.EventTypeCheckoutSessionCompleted, stripe.EventTypeCheckoutSessionAsyncPaymentSucceeded:
		return s.checkoutCompleted(ctx, ev)
	case stripe.EventTypeCustomerSubscriptionDeleted:
		return s.subscriptionEnded(ctx, ev, true)
	case stripe.EventTypeCustomerSubscriptionUpdated:
		return s.subscriptionEnded(ctx, ev, false)
	}
	return result{outcome: outcomeUnhandled}, nil
}

// stripeID is a reference to another Stripe object: its id, or the object
// itself when the event expanded it.
type stripeID string

func (id *stripeID) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*id = ""
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*id = stripeID(s)
		return nil
	}
	var obj struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(b, &obj); err != nil {
		return err
	}
	*id = stripeID(obj.ID)
	return nil
}

// checkoutSession is the part of a Checkout Session the webhook reads.
type checkoutSession struct {
	ID                string            `json:"id"`
	Mode              string            `json:"mode"`
	PaymentStatus     string            `json:"payment_status"`
	ClientReferenceID string            `json:"client_reference_id"`
	Metadata          map[string]string `json:"metadata"`
	Customer          stripeID          `json:"customer"`
	Subscription      stripeID          `json:"subscription"`
}

func (s *Stripe) checkoutCompleted(ctx context.Context, ev *stripe.Event) (result, error) {
	var cs checkoutSession
	if err := json.Unmarshal(ev.Data.Raw, &cs); err != nil {
		s.log.Warn("stripe event not understood", "event_id", ev.ID, "event_type", string(ev.Type), "err", err)
		return result{outcome: outcomeIgnored}, nil
	}
	accountID, plan, ok := s.sessionTarget(&cs)
	if !ok || cs.Mode != string(stripe.CheckoutSessionModeSubscription) || cs.Customer == "" || cs.Subscription == "" {
		// Not one of ours (another integration on the same Stripe account).
		return result{accountID: accountID, outcome: outcomeIgnored}, nil
	}
	switch stripe.CheckoutSessionPaymentStatus(cs.PaymentStatus) {
	case stripe.CheckoutSessionPaymentStatusPaid, stripe.CheckoutSessionPaymentStatusNoPaymentRequired:
	default:
		// A delayed payment method: async_payment_succeeded will follow.
		return result{accountID: accountID, outcome: outcomeIgnored}, nil
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	acc, err := s.store.Account(ctx, accountID)
	if errors.Is(err, account.ErrNotFound) {
		return result{accountID: accountID, outcome: outcomeNoAccount}, nil
	}
	if err != nil {
		return result{accountID: accountID}, err
	}
	// The subscription id is kept after it ends, so a replayed or late
	// completion of a subscription already seen changes nothing.
	if acc.StripeSubscriptionID == string(cs.Subscription) {
		return result{accountID: accountID, outcome: outcomeUnchanged}, nil
	}
	// The latest checkout wins: Stripe retries an event with its first creation time, so an older one is a late retry.
	created := time.Unix(ev.Created, 0)
	if created.Before(acc.StripeSubscriptionAt) {
		return result{accountID: accountID, outcome: outcomeOlderSub}, nil
	}
	acc.Plan = plan
	acc.StripeCustomerID = string(cs.Customer)
	acc.StripeSubscriptionID = string(cs.Subscription)
	acc.StripeSubscriptionAt = created
	if err := s.store.UpdateAccount(ctx, acc); err != nil {
		return result{accountID: accountID}, err
	}
	return result{accountID: accountID, outcome: outcomeApplied}, nil
}

// sessionTarget is the account and plan a Checkout made by Checkout is for:
// the account from client_reference_id, which the metadata must not
// contradict, and a plan that is sold.
func (s *Stripe) sessionTarget(cs *checkoutSession) (int64, account.Plan, bool) {
	ref := cs.ClientReferenceID
	if meta := cs.Metadata[metaAccountID]; meta != "" {
		if ref != "" && ref != meta {
			return 0, "", false
		}
		ref = meta
	}
	id, err := strconv.ParseInt(ref, 10, 64)
	if err != nil || id <= 0 {
		return 0, "", false
	}
	plan, err := account.ParsePlan(cs.Metadata[metaPlan])
	if err != nil || !s.Sells(plan) {
		return id, "", false
	}
	return id, plan, true
}

// subscription is the part of a Subscription the webhook reads.
type subscription struct {
	ID       string   `json:"id"`
	Status   string   `json:"status"`
	Customer stripeID `json:"customer"`
}

// subscriptionEnded sets the customer's account back to Free when its
// subscription is deleted, or (deleted false) updated to a status that no
// longer pays.
func (s *Stripe) subscriptionEnded(ctx context.Context, ev *stripe.Event, deleted bool) (result, error) {
	var sub subscription
	if err := json.Unmarshal(ev.Data.Raw, &sub); err != nil {
		s.log.Warn("stripe event not understood", "event_id", ev.ID, "event_type", string(ev.Type), "err", err)
		return result{outcome: outcomeIgnored}, nil
	}
	if !deleted {
		switch stripe.SubscriptionStatus(sub.Status) {
		case stripe.SubscriptionStatusCanceled, stripe.SubscriptionStatusUnpaid, stripe.SubscriptionStatusIncompleteExpired:
		default:
			return result{outcome: outcomeIgnored}, nil
		}
	}
	if sub.ID == "" || sub.Customer == "" {
		return result{outcome: outcomeIgnored}, nil
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	acc, err := s.store.AccountByStripeCustomer(ctx, string(sub.Customer))
	if errors.Is(err, account.ErrNotFound) {
		return result{outcome: outcomeNoAccount}, nil
	}
	if err != nil {
		return result{}, err
	}
	res := result{accountID: acc.ID}
	// An older subscription's end must not take away a newer one's plan.
	if acc.StripeSubscriptionID != sub.ID {
		res.outcome = outcomeOtherSub
		return res, nil
	}
	// Only a plan the subscription gave is taken back: an operator who
	// since moved the account to another plan by hand keeps it.
	if !s.Sells(acc.Plan) {
		res.outcome = outcomeUnchanged
		return res, nil
	}
	acc.Plan = account.Free
	if err := s.store.UpdateAccount(ctx, acc); err != nil {
		return res, err
	}
	res.outcome = outcomeApplied
	return res, nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
