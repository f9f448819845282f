// Package alertmail sends the price alerts' emails (issue 25's second
// channel): a Worker claims each email the alerts' evaluation queued in the
// store (alerts.EmailStore), writes it from the firing's event (Compose)
// and sends it through the portal's mailer (SMTP, or the log without one),
// with a one-click unsubscribe link (RFC 8058) that the portal serves.
//
// The queue is the webhook deliveries' design: an email is claimed with a
// lease (PostgreSQL: FOR UPDATE SKIP LOCKED, so that replicas share the
// work and never send one email at once; SQLite: one process), retried
// with exponential backoff and jitter for MaxAge after a failure the SMTP
// server may get over, failed at once after one it will not (a 5xx), and
// survives restarts. An email whose alert was deleted or stopped emailing
// since the firing, or whose account's address is not verified, is not
// sent (cancelled).
package alertmail

import (
	"context"
	"errors"
	"log/slog"
	"net/textproto"
	"time"

	"github.com/cardcat/cardcat/internal/alerts"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/poll"
	"github.com/cardcat/cardcat/internal/portal/mail"
	"github.com/cardcat/cardcat/internal/queue"
)

// The schedule's defaults, the webhook deliveries': the first retry after
// about DefaultBackoff, each next one after twice as long up to
// DefaultMaxBackoff, jittered down to half; failed once a retry would come
// DefaultMaxAge after the firing. A claim's lease outlasts the attempt
// (sendTimeout), so that no two workers send one email at once.
const (
	DefaultBackoff    = 30 * time.Second
	DefaultMaxBackoff = time.Hour
	DefaultMaxAge     = 24 * time.Hour
	DefaultLease      = 3 * mail.DefaultTimeout
	DefaultPoll       = time.Second
	// DefaultWorkers is how many emails a replica sends at once: the SMTP
	// mailer opens one connection per email, and a relay takes a few at a
	// time from one client more gladly than many.
	DefaultWorkers = 2
	// StoreTimeout bounds each store call of a worker.
	StoreTimeout = 5 * time.Second
)

// Worker sends the queued alert emails of a store. Several workers, in one
// process or in several replicas, share one queue.
type Worker struct {
	Store  alerts.EmailStore
	Mailer mail.Mailer
	// PublicURL is the base of the emails' links (no trailing slash): the
	// portal's pages, the API and its docs, the unsubscribe link.
	PublicURL string
	// Games names the games and their API paths (game.Default() when nil).
	Games *game.Registry
	// EmailsPerHour is the cap the note of capped emails names (0: none is
	// named).
	EmailsPerHour int
	Log           *slog.Logger
	Now           func() time.Time
	// The schedule (defaults above); tests shorten them.
	Backoff, MaxBackoff, MaxAge, Lease, Poll time.Duration
	// Workers is how many emails are sent at once (DefaultWorkers).
	Workers int
	// OnFinish, when set, is told the state each claimed email was left in
	// (metrics).
	OnFinish func(state alerts.EmailState)
	// Jitter is a number in [0, 1) (rand.Float64 when nil).
	Jitter func() float64
}

func (w *Worker) now() time.Time {
	if w.Now != nil {
		return w.Now()
	}
	return time.Now()
}

// Run sends until ctx ends: Workers loops, each claiming the next due
// email, or waiting Poll when none is.
func (w *Worker) Run(ctx context.Context) {
	n := w.Workers
	if n <= 0 {
		n = DefaultWorkers
	}
	queue.Run(ctx, n, queue.Or(w.Poll, DefaultPoll), w.SendOne, poll.NewTracker("alert email queue", "emails wait in the queue", w.Log, nil))
}

// SendOne claims the email due first, sends it once (or decides it is not
// to be sent) and records the outcome; did is false when none was due.
func (w *Worker) SendOne(ctx context.Context) (did bool, err error) {
	lease := queue.Or(w.Lease, DefaultLease)
	claimCtx, cancel := context.WithTimeout(ctx, StoreTimeout)
	e, err := w.Store.ClaimEmail(claimCtx, w.now(), lease)
	cancel()
	if errors.Is(err, alerts.ErrNoEmail) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	start := time.Now()
	state, why := w.send(ctx, e, lease)
	at := w.now()
	var next time.Time
	if state == alerts.EmailPending {
		next = at.Add(w.delay(e.Attempts))
		if next.Sub(e.CreatedAt) > queue.Or(w.MaxAge, DefaultMaxAge) {
			state, next = alerts.EmailFailed, time.Time{}
		}
	}
	// Recorded even when the server is stopping (the attempt was cut
	// short): the email's lease ends now rather than in a minute.
	finishCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), StoreTimeout)
	err = w.Store.FinishEmail(finishCtx, e, state, at, next, why)
	cancel()
	log := w.Log.With("email", e.ID, "event", e.EventID, "account", e.AccountID, "alert", e.AlertID, "attempt", e.Attempts)
	if errors.Is(err, alerts.ErrEmailLeaseLost) {
		log.Warn("alert email's lease lost: another worker claimed it")
		return true, nil
	}
	if err != nil {
		return true, err
	}
	if w.OnFinish != nil {
		w.OnFinish(state)
	}
	log = log.With("took", time.Since(start).Round(time.Millisecond))
	switch state {
	case alerts.EmailSent:
		log.Info("alert email sent")
	case alerts.EmailCancelled:
		log.Info("alert email not sent", "reason", why)
	case alerts.EmailFailed:
		log.Warn("alert email failed for good", "error", why)
	default:
		log.Info("alert email to retry", "next", next, "error", why)
	}
	return true, nil
}

// send makes one attempt of e: the state it leaves e in (EmailPending: to
// retry) and why it was not sent.
func (w *Worker) send(ctx context.Context, e alerts.Email, lease time.Duration) (alerts.EmailState, string) {
	switch {
	case !e.AlertEmails:
		return alerts.EmailCancelled, "the alert was deleted, or its emails turned off, after it fired"
	case e.To == "":
		return alerts.EmailCancelled, "the account was deleted"
	case !e.Verified:
		return alerts.EmailCancelled, "the account's email address is not verified"
	}
	f, err := alerts.ReadFiring(e.Body)
	if err != nil {
		return alerts.EmailFailed, err.Error()
	}
	m := Compose(e, f, w.PublicURL, w.games(), w.EmailsPerHour)
	// Bounded below the lease, so that the claim is still this worker's
	// when the outcome is recorded.
	sendCtx, cancel := context.WithTimeout(ctx, lease/2)
	defer cancel()
	err = w.Mailer.Send(sendCtx, m)
	switch {
	case err == nil:
		return alerts.EmailSent, ""
	case permanent(err):
		return alerts.EmailFailed, err.Error()
	}
	return alerts.EmailPending, err.Error()
}

func (w *Worker) games() *game.Registry {
	if w.Games != nil {
		return w.Games
	}
	return game.Default()
}

// permanent reports whether err says the email will never be taken: the
// SMTP server refused it for good (a 5xx reply: no such mailbox, a policy),
// or the message is malformed. Anything else (no connection, a timeout, a
// 4xx) may pass later.
func permanent(err error) bool {
	var reply *textproto.Error
	if errors.As(err, &reply) {
		return reply.Code >= 500
	}
	return errors.Is(err, mail.ErrHeaderInjection)
}

// delay is the wait after the attempts-th failed attempt: Backoff doubled
// each time up to MaxBackoff, then jittered into its upper half.
func (w *Worker) delay(attempts int) time.Duration {
	return queue.Delay(attempts, queue.Or(w.Backoff, DefaultBackoff), queue.Or(w.MaxBackoff, DefaultMaxBackoff), w.Jitter)
}
