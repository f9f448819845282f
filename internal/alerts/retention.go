package alerts

import (
	"context"
	"time"
)

// The alerts' history (their events, the webhook deliveries with every
// attempt, the alert emails) grows with every firing. A prune
// (HistoryStore) deletes what is finished and older than a cutoff: an event
// goes with its deliveries, their attempts and its email, and only when
// none of them is still to be sent.

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
