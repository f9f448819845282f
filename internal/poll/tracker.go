package poll

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// Tracker records the outcome of each refresh of one in-memory view: when it
// last succeeded (the readiness rule of the key directory reads it), and
// since when it has been failing (/health's database check reads it). It logs
// an outage once, not once per failed refresh: a WARN with the first error
// when refreshes start failing, the failures that follow at DEBUG, and an INFO
// with the outage's length and count when one succeeds again. Safe for
// concurrent use.
type Tracker struct {
	what string // "catalogue refresh", "key directory refresh"
	// serving says, in the WARN line, what is served meanwhile.
	serving string
	log     *slog.Logger
	now     func() time.Time

	mu           sync.Mutex
	lastOK       time.Time
	failingSince time.Time // zero while refreshes succeed
	failures     int
	successes    uint64 // recorded so far, for Attempt
}

// NewTracker returns the tracker of a refresh called what, whose WARN line
// says what is served meanwhile (serving). A nil log discards; a nil now is
// time.Now.
func NewTracker(what, serving string, log *slog.Logger, now func() time.Time) *Tracker {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if now == nil {
		now = time.Now
	}
	return &Tracker{what: what, serving: serving, log: log, now: now}
}

// Record notes the outcome of one refresh. The error of a refresh cut short
// because ctx ended (shutdown) is not a failure and is not recorded.
func (t *Tracker) Record(ctx context.Context, err error) { t.record(ctx, err, nil) }

// Attempt is a refresh begun by one of several loops sharing a Tracker (a
// queue's workers): Begin it before the call, Record its outcome after.
type Attempt struct {
	t         *Tracker
	successes uint64 // the Tracker's when it began
}

// Begin starts an Attempt.
func (t *Tracker) Begin() Attempt {
	t.mu.Lock()
	defer t.mu.Unlock()
	return Attempt{t: t, successes: t.successes}
}

// Record notes the attempt's outcome as Tracker.Record does, except that a
// failure of an attempt begun before another's success was recorded is not
// one: the store answered since it began, and the failure, reported late,
// would log a second outage of a millisecond after the recovery.
func (a Attempt) Record(ctx context.Context, err error) { a.t.record(ctx, err, &a.successes) }

func (t *Tracker) record(ctx context.Context, err error, begun *uint64) {
	if err != nil && ctx.Err() != nil {
		return
	}
	now := t.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	if err != nil && begun != nil && *begun != t.successes {
		t.log.LogAttrs(ctx, slog.LevelDebug, t.what+" failed before it recovered", slog.Any("err", err))
		return
	}
	if err == nil {
		t.successes++
	}
	switch {
	case err == nil && t.failingSince.IsZero():
		t.lastOK = now
	case err == nil:
		t.log.LogAttrs(ctx, slog.LevelInfo, t.what+" recovered",
			slog.Duration("outage", now.Sub(t.failingSince).Round(time.Millisecond)),
			slog.Int("failures", t.failures))
		t.lastOK, t.failingSince, t.failures = now, time.Time{}, 0
	case t.failingSince.IsZero():
		t.failingSince, t.failures = now, 1
		attrs := []slog.Attr{slog.Any("err", err)}
		if !t.lastOK.IsZero() {
			attrs = append(attrs, slog.Time("last_success", t.lastOK))
		}
		t.log.LogAttrs(ctx, slog.LevelWarn, t.what+" failing; "+t.serving+" (logged once per outage)", attrs...)
	default:
		t.failures++
		t.log.LogAttrs(ctx, slog.LevelDebug, t.what+" still failing",
			slog.Duration("for", now.Sub(t.failingSince).Round(time.Millisecond)), slog.Int("failures", t.failures), slog.Any("err", err))
	}
}

// LastSuccess is when a refresh last succeeded, zero before the first.
func (t *Tracker) LastSuccess() time.Time {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.lastOK
}

// FailingSince is when the current run of failed refreshes began, zero
// while refreshes succeed.
func (t *Tracker) FailingSince() time.Time {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.failingSince
}
