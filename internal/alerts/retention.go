package alerts

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"time"
)

// The alerts' history (their events, the webhook deliveries with every
// attempt, the alert emails) grows with every firing. A prune
// (HistoryStore) deletes what is finished and older than a cutoff: an event
// goes with its deliveries, their attempts and its email, and only when
// none of them is still to be sent.
// Retention runs it once a day, on one replica at a time.

// DefaultHistoryDays is how many days of finished events, deliveries and
// emails are kept unless the operator sets another number: long enough for
// a customer to look back at last month's deliveries in the portal's log.
const DefaultHistoryDays = 30

// HistoryLockName is the store lock under which one replica prunes the
// history (store.Locker), so that two never delete the same rows at once.
const HistoryLockName = "alerts-history-prune"

// DefaultPruneBatch is how many events one transaction of a prune reads:
// with their deliveries, attempts and emails a few thousand rows, so that a
// first prune of a big history holds the SQLite writer, or PostgreSQL's
// row locks, a batch at a time (milliseconds: bench/README.md, "Alert
// history retention"), never for the whole delete.
const DefaultPruneBatch = 500

// Pruned counts what a prune deleted.
type Pruned struct {
	Events, Deliveries, Attempts, Emails int64
	// Batches counts the transactions committed.
	Batches int
}

// Rows is every row deleted.
func (p Pruned) Rows() int64 { return p.Events + p.Deliveries + p.Attempts + p.Emails }

// Add counts q's rows in p.
func (p *Pruned) Add(q Pruned) {
	p.Events += q.Events
	p.Deliveries += q.Deliveries
	p.Attempts += q.Attempts
	p.Emails += q.Emails
	p.Batches += q.Batches
}

// HistoryStore deletes the alerts' finished history.
type HistoryStore interface {
	// PruneAlertHistory deletes each event created before before that is
	// finished: each of its webhook deliveries delivered or failed and
	// none resent at or after before (what a customer just resent stays
	// in the log), and its email, if any, sent, failed, cancelled or
	// capped. The event's deliveries, their attempts and its email go
	// with it, so that what is kept reads whole in the delivery log;
	// anything pending or leased (a queued retry, one a worker holds)
	// keeps its event. It walks the events older than before by creation
	// time, batch at a time (DefaultPruneBatch when 0), each batch in a
	// transaction of its own, to the end: an event kept is passed over,
	// not read again. It returns what it deleted, with an error too (the
	// batches committed stay deleted).
	PruneAlertHistory(ctx context.Context, before time.Time, batch int) (Pruned, error)
}

// Retention prunes the alerts' history once a day: First after Run starts
// (so that a replica's start-up, and its first evaluation, go first), then
// every Every, each time under the store's lock (HistoryLockName) so that
// of several replicas one prunes at a time. A prune that finds the lock
// held is skipped (the holder is deleting the same rows); one that fails
// is logged, and the next deletes what it left.
type Retention struct {
	Store HistoryStore
	// Days is how many days of history are kept: what finished before
	// Now minus Days days goes. 0 keeps everything (Run returns at once).
	Days int
	// Batch is the events per transaction (DefaultPruneBatch when 0).
	Batch int
	// Lock takes the store's lock (HistoryLockName); ok is false when
	// another replica prunes.
	Lock func(ctx context.Context) (unlock func(), ok bool, err error)
	Now  func() time.Time
	Log  *slog.Logger
	// First and Every space the prunes (DefaultPruneFirst and
	// DefaultPruneEvery when 0).
	First, Every time.Duration
	// Timeout bounds one prune (DefaultPruneTimeout when 0), so that a
	// database that stops answering does not hold the lock for ever.
	Timeout time.Duration
	// OnPruned, when set, is told what each prune deleted (metrics), also
	// when it failed part-way.
	OnPruned func(Pruned)
}

// The defaults of Retention's zero fields.
const (
	DefaultPruneFirst   = 10 * time.Minute
	DefaultPruneEvery   = 24 * time.Hour
	DefaultPruneTimeout = time.Hour
)

// Prune deletes, under the lock, the history finished before before (Run
// gives it Days days before now). skipped is true when another replica
// holds the lock.
func (r *Retention) Prune(ctx context.Context, before time.Time) (p Pruned, skipped bool, err error) {
	if r.Lock != nil {
		unlock, ok, err := r.Lock(ctx)
		if err != nil {
			return p, false, fmt.Errorf("alerts: history prune lock: %w", err)
		}
		if !ok {
			return p, true, nil
		}
		defer unlock()
	}
	p, err = r.Store.PruneAlertHistory(ctx, before, r.Batch)
	if r.OnPruned != nil && p.Rows() > 0 {
		r.OnPruned(p)
	}
	return p, false, err
}

// Run prunes First after its start, then every Every, until ctx ends.
func (r *Retention) Run(ctx context.Context) {
	if r.Days <= 0 {
		return
	}
	wait := cmp.Or(r.First, DefaultPruneFirst)
	for {
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		r.run(ctx)
		wait = cmp.Or(r.Every, DefaultPruneEvery)
	}
}

// run is one prune of Run, logged.
func (r *Retention) run(ctx context.Context) {
	now := time.Now
	if r.Now != nil {
		now = r.Now
	}
	start := time.Now()
	before := now().UTC().AddDate(0, 0, -r.Days)
	pctx, cancel := context.WithTimeout(ctx, cmp.Or(r.Timeout, DefaultPruneTimeout))
	defer cancel()
	p, skipped, err := r.Prune(pctx, before)
	deleted := []any{"before", before.Format(time.RFC3339), "events", p.Events, "deliveries", p.Deliveries,
		"attempts", p.Attempts, "emails", p.Emails, "batches", p.Batches, "took", time.Since(start).Round(time.Millisecond)}
	switch {
	case err != nil:
		if ctx.Err() == nil {
			r.Log.Error("alert history not pruned in full; the next prune deletes the rest", append(deleted, "err", err)...)
		}
	case skipped:
		r.Log.Debug("alert history pruned by another replica")
	default:
		r.Log.Info("alert history pruned", deleted...)
	}
}
