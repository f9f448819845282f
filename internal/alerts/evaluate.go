package alerts

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/store"
)

// LockName is the store lock under which one replica evaluates a version
// (store.Locker: PostgreSQL's advisory lock, SQLite's lock file).
const LockName = "alerts-evaluation"

// Holds reports whether the rule holds for price, avg7 being the 7-day
// average a move is measured against; ok is false when it cannot be told
// (no price, or no average for a move), and the alert's state is kept.
// Amounts are compared in cents, exactly: a move of N% is
// |price - avg7| * 100 >= N * avg7.
func (r Rule) Holds(price, avg7 catalog.Money) (holds, ok bool) {
	if !price.OK {
		return false, false
	}
	switch r.Kind {
	case Above:
		return price.Cents >= r.Cents, true
	case Below:
		return price.Cents <= r.Cents, true
	case Move:
		if !avg7.OK || avg7.Cents <= 0 {
			return false, false
		}
		d := price.Cents - avg7.Cents
		if d < 0 {
			d = -d
		}
		return d*100 >= int64(r.Percent)*avg7.Cents, true
	}
	return false, false
}

// Step is an alert's next state for a price: an armed alert whose rule
// holds fires and is disarmed; a disarmed one is re-armed when the rule
// stops holding; a price that cannot be judged changes nothing. A new
// alert is armed, so one whose rule holds at its first evaluation fires.
func Step(armed bool, r Rule, price, avg7 catalog.Money) (nextArmed, fire bool) {
	holds, ok := r.Holds(price, avg7)
	switch {
	case !ok:
		return armed, false
	case holds:
		return false, armed
	default:
		return true, false
	}
}

// Averages is the part of store.Store that gives TCGplayer's stored
// 7-day means.
type Averages interface {
	TCGMarketAverages(ctx context.Context, game string, day time.Time) (store.TCGHistory, error)
}

// Evaluator evaluates every alert against each new catalogue version, once
// per version across the replicas sharing a store.
type Evaluator struct {
	Alerts Store
	// Catalog gives the TCGplayer 7-day averages (TCGMarketAverages) of
	// the version's day.
	Catalog Averages
	// Lock takes the store's lock (LockName); ok is false when another
	// replica evaluates.
	Lock func(ctx context.Context) (unlock func(), ok bool, err error)
	Now  func() time.Time
	Log  *slog.Logger
	// Batch is how many alerts are read and written at once (default 1000).
	Batch int
	// EmailsPerHour caps the alert emails an account gets in an hour
	// (RecordEvaluations'); 0: no cap.
	EmailsPerHour int
	// Subscriptions, when set with Changes, are the card.changed
	// subscriptions evaluated in the same step (subscriptions.go).
	Subscriptions SubscriptionStore
	Changes       ChangeFeed
	// OnEvaluated, when set, is told each evaluation's result (metrics).
	OnEvaluated func(Result)
	// RetryAfter is how long Run waits to evaluate a version again when it
	// failed, or when another replica held the lock (which may have died
	// mid-way): DefaultRetryAfter when 0. A version evaluated in full
	// leaves nothing pending, so a retry then only reads that.
	RetryAfter time.Duration
	// Timeout bounds one evaluation in Run (DefaultTimeout when 0), so that
	// a database that stops answering holds it, and the shutdown, no longer.
	Timeout time.Duration

	next   atomic.Pointer[catalog.Snapshot]
	signal chan struct{}
}

// DefaultRetryAfter is Run's wait before it evaluates a version again;
// DefaultTimeout bounds an evaluation.
const (
	DefaultRetryAfter = time.Minute
	DefaultTimeout    = 5 * time.Minute
)

// Result is what one evaluation did.
type Result struct {
	Version   int64
	Evaluated int // alerts evaluated
	Fired     int // events written
	Queued    int // deliveries queued
	Emailed   int // emails queued
	Capped    int // emails not to be sent: past their account's emails per hour
	Skipped   bool
	// Subscriptions is what the card.changed subscriptions' evaluation did.
	Subscriptions SubscriptionResult
}

// Evaluate evaluates, under the store's lock, every alert not yet
// evaluated at snap's version. Another replica holding the lock makes it a
// no-op (Skipped); an alert evaluated already at this version (by another
// replica, or before a restart) is not read again, and one written by
// another in between is not written twice (RecordEvaluations' guard).
func (e *Evaluator) Evaluate(ctx context.Context, snap *catalog.Snapshot) (Result, error) {
	res := Result{Version: snap.Version}
	if e.Lock != nil {
		unlock, ok, err := e.Lock(ctx)
		if err != nil {
			return res, fmt.Errorf("alerts: evaluation lock: %w", err)
		}
		if !ok {
			res.Skipped = true
			return res, nil
		}
		defer unlock()
	}
	now := time.Now
	if e.Now != nil {
		now = e.Now
	}
	batch := e.Batch
	if batch <= 0 {
		batch = 1000
	}
	avgs := map[string]map[tcgKey]catalog.Money{} // by game, read once
	var prices catalog.CardPrices
	var after int64
	for {
		pending, err := e.Alerts.PendingAlerts(ctx, snap.Version, after, batch)
		if err != nil {
			return res, err
		}
		if len(pending) == 0 {
			break
		}
		evs := make([]Evaluation, 0, len(pending))
		created := now()
		for i := range pending {
			a := &pending[i]
			after = a.ID
			price, avg7, err := e.price(ctx, snap, a, &prices, avgs)
			if err != nil {
				return res, err
			}
			armed, fire := Step(a.Armed, a.Rule, price, avg7)
			ev := Evaluation{AlertID: a.ID, Armed: armed, Price: price}
			if !price.OK {
				ev.Price = a.LastPrice // the last price known stays the next event's old one
			}
			if fire {
				ev.Event = newEvent(a, snap.Version, created, a.LastPrice, price, avg7)
				// price read the card's prices: its name is the version's.
				ev.Email, ev.CardName = a.Email, prices.Name
			}
			ev.Kept = !fire && armed == a.Armed && sameMoney(ev.Price, a.LastPrice)
			evs = append(evs, ev)
		}
		rec, err := e.Alerts.RecordEvaluations(ctx, snap.Version, evs, e.EmailsPerHour)
		if err != nil {
			return res, err
		}
		res.Evaluated += len(evs)
		res.Fired += rec.Fired
		res.Queued += rec.Queued
		res.Emailed += rec.Emailed
		res.Capped += rec.Capped
	}
	sub, err := e.evaluateSubscriptions(ctx, snap, now, batch)
	res.Subscriptions = sub
	if err != nil {
		return res, err
	}
	if e.OnEvaluated != nil {
		e.OnEvaluated(res)
	}
	return res, nil
}

// sameMoney reports whether a and b are the same amount, or both none.
func sameMoney(a, b catalog.Money) bool {
	return a.OK == b.OK && (!a.OK || a.Cents == b.Cents)
}

type tcgKey struct{ card, finish string }

// price is a's price in snap and the 7-day average a move compares it
// with: TCGplayer's market price and the mean of the stored daily points
// of the version's day (store.TCGHistory's Avg7), Cardmarket's trend and
// its avg7. A card or finish gone from the catalogue has no price.
func (e *Evaluator) price(ctx context.Context, snap *catalog.Snapshot, a *Alert, p *catalog.CardPrices, avgs map[string]map[tcgKey]catalog.Money) (price, avg7 catalog.Money, err error) {
	gs := snap.Game(a.Game)
	if gs == nil {
		return price, avg7, nil
	}
	r, ok := gs.LookupCard(a.CardID)
	if !ok {
		return price, avg7, nil
	}
	gs.CardPrices(r, p)
	if a.Source == CM {
		for _, c := range p.CM {
			if c.Variant == a.Finish {
				return c.Trend, c.Avg7, nil
			}
		}
		return price, avg7, nil
	}
	for _, t := range p.TCG {
		if t.SubType == a.Finish {
			price = t.Market
		}
	}
	if !price.OK || a.Rule.Kind != Move || e.Catalog == nil {
		return price, avg7, nil
	}
	m, ok := avgs[a.Game]
	if !ok {
		h, err := e.Catalog.TCGMarketAverages(ctx, a.Game, snap.CreatedAt)
		if err != nil {
			return price, avg7, fmt.Errorf("alerts: TCGplayer averages of %s: %w", a.Game, err)
		}
		m = make(map[tcgKey]catalog.Money, len(h.Averages))
		for _, av := range h.Averages {
			m[tcgKey{av.CardID, av.Finish}] = av.Avg7
		}
		avgs[a.Game] = m
	}
	return price, m[tcgKey{a.CardID, a.Finish}], nil
}

// Notify asks Run to evaluate snap (the newest one asked wins); it never
// blocks, so serve's holder calls it as it publishes a version.
func (e *Evaluator) Notify(snap *catalog.Snapshot) {
	e.next.Store(snap)
	e.wake()
}

func (e *Evaluator) wake() {
	select {
	case e.signal <- struct{}{}:
	default:
	}
}

// Replace puts now in the place of was, the same version read from
// elsewhere, when was is the version the evaluator holds (to evaluate, or
// evaluated last): serve's holder swaps a version built in memory for its
// artifact, mapped, and the memory of the built one is freed only once
// nothing holds it. Nothing is evaluated again.
func (e *Evaluator) Replace(was, now *catalog.Snapshot) {
	e.next.CompareAndSwap(was, now)
}

// Start makes Notify's channel; call it before Notify and Run.
func (e *Evaluator) Start() { e.signal = make(chan struct{}, 1) }

// Run evaluates each version Notify names until ctx ends; a failure is
// logged, and the next version evaluates what this one left.
func (e *Evaluator) Run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-e.signal:
		}
		snap := e.next.Load()
		if snap == nil {
			continue
		}
		start := time.Now()
		timeout := e.Timeout
		if timeout <= 0 {
			timeout = DefaultTimeout
		}
		evalCtx, cancel := context.WithTimeout(ctx, timeout)
		res, err := e.Evaluate(evalCtx, snap)
		cancel()
		if err != nil || res.Skipped {
			retry := e.RetryAfter
			if retry <= 0 {
				retry = DefaultRetryAfter
			}
			// The version, not the snapshot: a retry pending does not keep
			// a snapshot that Replace or a newer version let go.
			version := snap.Version
			time.AfterFunc(retry, func() {
				if cur := e.next.Load(); ctx.Err() == nil && cur != nil && cur.Version == version {
					e.wake()
				}
			})
		}
		switch {
		case err != nil:
			if ctx.Err() == nil {
				e.Log.Error("alerts not evaluated", "version", snap.Version, "err", err)
			}
		case res.Skipped:
			e.Log.Debug("alerts evaluated by another replica", "version", snap.Version)
		default:
			e.Log.Info("alerts evaluated", "version", snap.Version, "alerts", res.Evaluated, "fired", res.Fired,
				"queued", res.Queued, "emailed", res.Emailed, "emails_capped", res.Capped, "subscriptions", res.Subscriptions.Evaluated, "changed_events", res.Subscriptions.Fired,
				"changed_queued", res.Subscriptions.Queued, "took", time.Since(start).Round(time.Millisecond))
		}
	}
}
