package webhooks

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/cardcat/cardcat/internal/poll"
	"github.com/cardcat/cardcat/internal/queue"
)

// The delivery schedule's defaults: the first retry after about
// DefaultBackoff, each next one after twice as long up to
// DefaultMaxBackoff, jittered down to half; failed once a retry would come
// DefaultMaxAge after the event. A claim's lease outlasts the attempt's
// timeout, so that no two workers send one delivery at once.
const (
	DefaultBackoff    = 30 * time.Second
	DefaultMaxBackoff = time.Hour
	DefaultMaxAge     = 24 * time.Hour
	DefaultLease      = 5 * Timeout
	DefaultPoll       = time.Second
	DefaultWorkers    = 4
	// StoreTimeout bounds each store call of a worker: a database that does
	// not answer costs a claim that long, never the shutdown more (a call
	// without a deadline may hold a pool's connection check for a minute).
	StoreTimeout = 5 * time.Second
)

// ReadLimit is how much of an answer a delivery reads before it closes the
// connection.
const ReadLimit = 4096

// Worker delivers the queued deliveries of a store. Several workers, in
// one process or in several replicas, share one queue.
type Worker struct {
	Store  Store
	Client *http.Client // NewClient's
	// AllowHTTP sends to http:// endpoints (CARDCAT_WEBHOOK_ALLOW_HTTP);
	// otherwise an endpoint saved as http:// while it was allowed is not
	// sent to, and its attempts say why.
	AllowHTTP bool
	Log       *slog.Logger
	Now       func() time.Time
	// The schedule (defaults above); tests shorten them.
	Backoff, MaxBackoff, MaxAge, Lease, Poll time.Duration
	// Workers is how many deliveries are sent at once (DefaultWorkers): a
	// slow endpoint holds one of them for at most the client's timeout.
	Workers int
	// OnAttempt, when set, is told each attempt recorded and the state it
	// left the delivery in (metrics).
	OnAttempt func(a Attempt, state State)
	// Jitter is a number in [0, 1) (rand.Float64 when nil).
	Jitter func() float64
}

func (w *Worker) now() time.Time {
	if w.Now != nil {
		return w.Now()
	}
	return time.Now()
}

// Run delivers until ctx ends: Workers loops, each claiming the next due
// delivery, or waiting Poll when none is.
func (w *Worker) Run(ctx context.Context) {
	n := w.Workers
	if n <= 0 {
		n = DefaultWorkers
	}
	queue.Run(ctx, n, queue.Or(w.Poll, DefaultPoll), w.DeliverOne, poll.NewTracker("webhook queue", "deliveries wait in the queue", w.Log, nil))
}

// DeliverOne claims the delivery due first, sends it once and records the
// attempt; did is false when none was due.
func (w *Worker) DeliverOne(ctx context.Context) (did bool, err error) {
	claimCtx, cancel := context.WithTimeout(ctx, StoreTimeout)
	d, err := w.Store.ClaimDelivery(claimCtx, w.now(), queue.Or(w.Lease, DefaultLease))
	cancel()
	if errors.Is(err, ErrNoDelivery) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	a := w.send(ctx, d)
	state, next := Delivered, time.Time{}
	if a.Status < 200 || a.Status > 299 {
		start, attempts := d.schedule()
		next = a.At.Add(w.delay(attempts))
		state = Pending
		if next.Sub(start) > queue.Or(w.MaxAge, DefaultMaxAge) {
			state, next = Failed, time.Time{}
		}
	}
	// Recorded even when the server is stopping (the attempt was cut
	// short): the delivery's lease ends now rather than in a minute.
	finishCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), StoreTimeout)
	err = w.Store.FinishDelivery(finishCtx, d, a, state, next)
	cancel()
	if errors.Is(err, ErrLeaseLost) {
		w.Log.Warn("webhook delivery's lease lost: another worker claimed it", "delivery", d.ID, "event", d.EventID)
		return true, nil
	}
	if err != nil {
		return true, err
	}
	if w.OnAttempt != nil {
		w.OnAttempt(a, state)
	}
	log := w.Log.With("delivery", d.ID, "event", d.EventID, "endpoint", d.EndpointID, "attempt", a.N, "status", a.Status,
		"took", a.Duration.Round(time.Millisecond))
	switch state {
	case Delivered:
		log.Info("webhook delivered")
	case Failed:
		log.Warn("webhook delivery failed for good", "error", a.Error)
	default:
		log.Info("webhook delivery to retry", "next", next, "error", a.Error)
	}
	return true, nil
}

// delay is the wait after the attempts-th failed attempt: Backoff doubled
// each time up to MaxBackoff, then jittered into its upper half.
func (w *Worker) delay(attempts int) time.Duration {
	return queue.Delay(attempts, queue.Or(w.Backoff, DefaultBackoff), queue.Or(w.MaxBackoff, DefaultMaxBackoff), w.Jitter)
}

// send makes one attempt of d.
func (w *Worker) send(ctx context.Context, d Delivery) Attempt {
	a := Attempt{DeliveryID: d.ID, N: d.Attempts, At: w.now()}
	start := time.Now()
	if err := CheckURL(d.URL, w.AllowHTTP); err != nil {
		a.Error = "not sent: " + err.Error()
		return a
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.URL, bytes.NewReader(d.Body))
	if err != nil {
		a.Error = "the endpoint's URL: " + err.Error()
		a.Duration = time.Since(start)
		return a
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "cardcat-webhooks/1")
	req.Header.Set("Cardcat-Event-Id", d.EventID)
	req.Header.Set(SignatureHeader, SignAll(a.At, d.Body, d.secrets(a.At)...))
	resp, err := w.Client.Do(req)
	if err != nil {
		var refused *RefusedError
		if errors.As(err, &refused) {
			a.Error = refused.Error()
		} else {
			a.Error = err.Error()
		}
		a.Duration = time.Since(start)
		return a
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, ReadLimit))
	resp.Body.Close()
	a.Status = resp.StatusCode
	if len(body) > MaxExcerpt {
		body = body[:MaxExcerpt]
	}
	a.Response = strings.ToValidUTF8(string(body), "\uFFFD")
	a.Duration = time.Since(start)
	return a
}
