package account

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/cardcat/cardcat/internal/poll"
)

// DefaultFlushInterval is how often a Meter writes its counts to the store
// by default: the usage page and a key's last use lag by at most this much.
const DefaultFlushInterval = 10 * time.Second

// flushTimeout bounds one flush's store calls, so that a partition from the
// database cannot hold the loop; the counts are kept and retried.
const flushTimeout = 30 * time.Second

// Meter counts keyed requests per account and UTC hour (and the 429s among
// them) and each key's latest use, in memory, and adds them to the store on
// Flush. Every replica runs its own; their flushes add up in the store, so
// the usage is the same with either limiter backend. Record runs on every
// keyed request: a lock and two map updates, no allocation once the
// account's hour and the key are in the maps. Safe for concurrent use.
type Meter struct {
	st      Store
	tracker *poll.Tracker

	mu    sync.Mutex
	hours map[hourKey]hourCount
	keys  map[int64]time.Time // key id -> latest use

	// flushMu makes flushes one at a time; spareHours and spareKeys are the
	// maps the next flush swaps in (cleared, their buckets kept).
	flushMu    sync.Mutex
	spareHours map[hourKey]hourCount
	spareKeys  map[int64]time.Time
}

type hourKey struct {
	account int64
	hour    int64 // Unix seconds / 3600: the UTC hour
}

type hourCount struct{ requests, refused int64 }

// NewMeter returns a Meter that flushes to st; log (nil discards) gets a
// WARN when flushes start failing and an INFO when they recover.
func NewMeter(st Store, log *slog.Logger) *Meter {
	return &Meter{
		st:         st,
		tracker:    poll.NewTracker("usage flush", "the counts are kept in memory and retried", log, nil),
		hours:      map[hourKey]hourCount{},
		keys:       map[int64]time.Time{},
		spareHours: map[hourKey]hourCount{},
		spareKeys:  map[int64]time.Time{},
	}
}

// Record counts one keyed request of account accountRef with key keyRef at
// at; refused when it was answered 429. An unknown account (0) is not
// counted; an unknown key (0) counts for the account without a last use.
func (m *Meter) Record(accountRef, keyRef int64, refused bool, at time.Time) {
	if accountRef == 0 {
		return
	}
	k := hourKey{account: accountRef, hour: unixHour(at)}
	m.mu.Lock()
	c := m.hours[k]
	c.requests++
	if refused {
		c.refused++
	}
	m.hours[k] = c
	if keyRef != 0 {
		if last, ok := m.keys[keyRef]; !ok || at.After(last) {
			m.keys[keyRef] = at
		}
	}
	m.mu.Unlock()
}

// unixHour is the UTC hour of t as a count of hours since 1970, floored.
func unixHour(t time.Time) int64 {
	s := t.Unix()
	h := s / 3600
	if s%3600 < 0 {
		h--
	}
	return h
}

// Flush adds the counts recorded since the last successful flush to the
// store. What a failed call did not write is kept and added at the next
// flush, so no request is lost; a store that wrote and then failed to answer
// may count a flush twice. The outcome goes to the tracker (an outage is
// logged once).
func (m *Meter) Flush(ctx context.Context) error {
	err := m.flush(ctx)
	m.tracker.Record(ctx, err)
	return err
}

func (m *Meter) flush(ctx context.Context) error {
	m.flushMu.Lock()
	defer m.flushMu.Unlock()

	m.mu.Lock()
	hours, keys := m.hours, m.keys
	m.hours, m.keys = m.spareHours, m.spareKeys
	m.mu.Unlock()
	m.spareHours, m.spareKeys = hours, keys // cleared below once written, or merged back

	var err error
	if len(hours) > 0 {
		u := make([]Usage, 0, len(hours))
		for k, c := range hours {
			u = append(u, Usage{AccountID: k.account, Hour: time.Unix(k.hour*3600, 0).UTC(), Requests: c.requests, Refused: c.refused})
		}
		err = poll.Bounded(ctx, flushTimeout, "usage write", func(ctx context.Context) error { return m.st.AddUsage(ctx, u) })
		if err != nil {
			m.mergeBack(hours, keys)
			return err
		}
		clear(hours)
	}
	if len(keys) > 0 {
		uses := make([]KeyUse, 0, len(keys))
		for id, at := range keys {
			uses = append(uses, KeyUse{KeyID: id, At: at.UTC()})
		}
		err = poll.Bounded(ctx, flushTimeout, "keys' last use write", func(ctx context.Context) error { return m.st.MarkKeysUsed(ctx, uses) })
		if err != nil {
			m.mergeBack(nil, keys)
			return err
		}
		clear(keys)
	}
	return nil
}

// mergeBack returns the counts of a failed flush to the live maps, added to
// what was recorded meanwhile, and leaves the given maps cleared as spares.
func (m *Meter) mergeBack(hours map[hourKey]hourCount, keys map[int64]time.Time) {
	m.mu.Lock()
	for k, c := range hours {
		n := m.hours[k]
		n.requests += c.requests
		n.refused += c.refused
		m.hours[k] = n
	}
	for id, at := range keys {
		if last, ok := m.keys[id]; !ok || at.After(last) {
			m.keys[id] = at
		}
	}
	m.mu.Unlock()
	clear(hours)
	clear(keys)
}

// Run flushes every interval (DefaultFlushInterval when 0 or less) until ctx
// ends. It does not flush at the end: call Flush with a fresh context once
// the server stopped taking requests.
func (m *Meter) Run(ctx context.Context, every time.Duration) {
	if every <= 0 {
		every = DefaultFlushInterval
	}
	// A failure is the tracker's to log; the counts wait for the next tick.
	poll.Every(ctx, every, func(ctx context.Context) { m.Flush(ctx) })
}

// LastSuccess is when a flush last succeeded, zero before the first.
func (m *Meter) LastSuccess() time.Time { return m.tracker.LastSuccess() }

// FailingSince is when flushes started failing, zero while they succeed.
func (m *Meter) FailingSince() time.Time { return m.tracker.FailingSince() }
