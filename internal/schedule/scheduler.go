package schedule

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"
)

// Outcome is how a due run ended.
type Outcome string

const (
	// OK: this replica did the work.
	OK Outcome = "ok"
	// Failed: every attempt failed; what was there before stays.
	Failed Outcome = "failed"
	// SkippedLock: another replica holds the lock, so is doing the work.
	SkippedLock Outcome = "skipped-lock"
	// SkippedDone: the work was already done after the due time (by another
	// replica, or a one-shot run), found once the lock was taken.
	SkippedDone Outcome = "skipped-done"
)

// The defaults of a Scheduler's zero fields.
const (
	DefaultAttempts       = 3
	DefaultBackoff        = time.Minute
	DefaultMaxBackoff     = 15 * time.Minute
	DefaultAttemptTimeout = time.Hour
	DefaultCheckEvery     = 30 * time.Second
	// CallTimeout bounds each Lock and Done call: a partition from the
	// database must not hold the scheduler for as long as TCP would.
	CallTimeout = 30 * time.Second
)

// Scheduler runs Work at each of Times among replicas: the one that takes
// Lock, and only while the last result (Done) is older than the due time.
type Scheduler struct {
	Times Times
	// Lock takes the lock the replicas share without waiting; ok is false
	// when another holds it. It is held for every attempt of one due run.
	Lock func(ctx context.Context) (unlock func(), ok bool, err error)
	// Done is when the work was last done (the catalogue version's creation
	// time): a due time at or before it needs no run.
	Done func(ctx context.Context) (time.Time, error)
	// Work does the work, stamped now; it returns what it wrote (the
	// catalogue version). A failed Work must leave what was there.
	Work func(ctx context.Context, now time.Time) (version int64, err error)

	// Attempts bounds the attempts of one due run (DefaultAttempts). The
	// n-th retry waits Backoff·2^(n-1) (DefaultBackoff), at most MaxBackoff
	// (DefaultMaxBackoff), plus up to half as much again at random, so that
	// replicas started together do not retry together.
	Attempts            int
	Backoff, MaxBackoff time.Duration
	// AttemptTimeout bounds one Work (DefaultAttemptTimeout), so that a hung
	// upstream or database cannot hold the lock, and every later run, forever.
	AttemptTimeout time.Duration
	// CheckEvery is how often the clock is read while waiting for the next
	// due time (DefaultCheckEvery): a clock that jumps (a suspended host,
	// a corrected clock) is followed within it.
	CheckEvery time.Duration
	// Now is the clock (time.Now); Sleep waits d or until ctx ends (a timer).
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
	Log   *slog.Logger
	// OnOutcome, when set, is called with the status after each due run
	// (metrics hook here).
	OnOutcome func(Status)

	mu     sync.Mutex
	status Status
}

// Status is what the scheduler did: its last due run, and counts since start.
type Status struct {
	Times Times
	Next  time.Time // the next due time; zero before Run
	// The last due run: its due time, when it started and ended, how it
	// ended, the attempts it made, the last attempt's error (failed, or a
	// retried one of an ok run) and the version it wrote (ok).
	LastDue, LastStart, LastEnd time.Time
	LastOutcome                 Outcome // "" before the first
	LastAttempts                int
	LastError                   string
	LastVersion                 int64
	// Runs counts the due runs by outcome; Attempts every attempt made,
	// retries included.
	Runs     map[Outcome]int64
	Attempts int64
}

// Status returns a copy of the scheduler's status.
func (s *Scheduler) Status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.status
	st.Times = s.Times
	st.Runs = make(map[Outcome]int64, len(s.status.Runs))
	for o, n := range s.status.Runs {
		st.Runs[o] = n
	}
	return st
}

// Run runs the due runs until ctx ends. At start, when the work was last
// done before the latest due time (the server was down then, or that run
// failed), it runs at once: a replica started after a missed time catches
// up, and one started on fresh data does not redo it.
func (s *Scheduler) Run(ctx context.Context) {
	if len(s.Times) == 0 {
		return
	}
	now := s.now()
	if due := s.Times.Last(now); s.stale(ctx, due) {
		s.log().Info("scheduled refresh: the catalogue is older than the last due time; refreshing now", "due", due)
		s.runDue(ctx, due)
	}
	next := s.Times.Next(now)
	for {
		s.setNext(next)
		now := s.now()
		if now.Before(next) {
			if s.sleep(ctx, min(next.Sub(now), s.checkEvery())) != nil {
				return
			}
			continue
		}
		s.runDue(ctx, next)
		if ctx.Err() != nil {
			return
		}
		next = s.Times.Next(s.now())
	}
}

// stale says whether the work was last done before due; a store that
// cannot say counts as stale (the run's own check, under the lock, decides).
func (s *Scheduler) stale(ctx context.Context, due time.Time) bool {
	done, err := s.done(ctx)
	if err != nil {
		s.log().Warn("scheduled refresh: cannot read when the catalogue was written", "err", err)
		return true
	}
	return done.Before(due)
}

// runDue does the run of one due time: lock, check, work, retried.
func (s *Scheduler) runDue(ctx context.Context, due time.Time) {
	start := s.now()
	log := s.log().With("due", due)
	var (
		unlock   func()
		outcome  Outcome
		version  int64
		attempts int
		lastErr  error
	)
	defer func() {
		if unlock != nil {
			unlock()
		}
	}()
	for attempts < s.attempts() && outcome == "" {
		if attempts > 0 {
			d := s.backoff(attempts)
			log.Warn("scheduled refresh attempt failed; retrying", "attempt", attempts, "of", s.attempts(), "retry_in", d.Round(time.Millisecond), "err", lastErr)
			if s.sleep(ctx, d) != nil {
				break
			}
		}
		attempts++
		s.countAttempt()
		outcome, version, lastErr = s.attempt(ctx, due, &unlock)
	}
	if outcome == "" && ctx.Err() != nil {
		log.Info("scheduled refresh interrupted: shutting down")
		return
	}
	if outcome == "" {
		outcome = Failed
	}
	end := s.now()
	switch outcome {
	case OK:
		log.Info("scheduled refresh done", "version", version, "attempts", attempts, "duration", end.Sub(start).Round(time.Millisecond))
	case Failed:
		log.Error("scheduled refresh failed; still serving the previous catalogue", "attempts", attempts, "err", lastErr)
	case SkippedLock:
		log.Info("scheduled refresh skipped: another replica holds the lock")
	case SkippedDone:
		log.Info("scheduled refresh skipped: the catalogue was written after the due time")
	}
	s.mu.Lock()
	st := &s.status
	st.LastDue, st.LastStart, st.LastEnd = due, start, end
	st.LastOutcome, st.LastAttempts, st.LastVersion = outcome, attempts, version
	st.LastError = ""
	if lastErr != nil {
		st.LastError = lastErr.Error()
	}
	if st.Runs == nil {
		st.Runs = map[Outcome]int64{}
	}
	st.Runs[outcome]++
	s.mu.Unlock()
	if s.OnOutcome != nil {
		s.OnOutcome(s.Status())
	}
}

// attempt is one try: the lock (kept in *unlock once taken), the check that
// the work is still due, the work. An empty outcome is a failure to retry.
func (s *Scheduler) attempt(ctx context.Context, due time.Time, unlock *func()) (Outcome, int64, error) {
	if *unlock == nil {
		lctx, cancel := context.WithTimeout(ctx, CallTimeout)
		u, ok, err := s.Lock(lctx)
		cancel()
		if err != nil {
			return "", 0, fmt.Errorf("taking the refresh lock: %w", err)
		}
		if !ok {
			return SkippedLock, 0, nil
		}
		*unlock = u
	}
	done, err := s.done(ctx)
	if err != nil {
		return "", 0, fmt.Errorf("reading the catalogue's time: %w", err)
	}
	if !done.Before(due) {
		return SkippedDone, 0, nil
	}
	actx, cancel := context.WithTimeout(ctx, s.attemptTimeout())
	defer cancel()
	v, err := s.Work(actx, s.now())
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			err = fmt.Errorf("attempt timed out after %s: %w", s.attemptTimeout(), err)
		}
		return "", 0, err
	}
	return OK, v, nil
}

// done is Done within CallTimeout.
func (s *Scheduler) done(ctx context.Context) (time.Time, error) {
	ctx, cancel := context.WithTimeout(ctx, CallTimeout)
	defer cancel()
	return s.Done(ctx)
}

// backoff is the wait before retry n (1, 2, ...).
func (s *Scheduler) backoff(n int) time.Duration {
	base := s.Backoff
	if base <= 0 {
		base = DefaultBackoff
	}
	limit := s.MaxBackoff
	if limit <= 0 {
		limit = DefaultMaxBackoff
	}
	d := base
	for i := 1; i < n && d < limit; i++ {
		d *= 2
	}
	d = min(d, limit)
	return d + rand.N(d/2+1)
}

func (s *Scheduler) countAttempt() {
	s.mu.Lock()
	s.status.Attempts++
	s.mu.Unlock()
}

func (s *Scheduler) setNext(t time.Time) {
	s.mu.Lock()
	s.status.Next = t
	s.mu.Unlock()
}

func (s *Scheduler) attempts() int {
	if s.Attempts > 0 {
		return s.Attempts
	}
	return DefaultAttempts
}

func (s *Scheduler) attemptTimeout() time.Duration {
	if s.AttemptTimeout > 0 {
		return s.AttemptTimeout
	}
	return DefaultAttemptTimeout
}

func (s *Scheduler) checkEvery() time.Duration {
	if s.CheckEvery > 0 {
		return s.CheckEvery
	}
	return DefaultCheckEvery
}

func (s *Scheduler) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

func (s *Scheduler) sleep(ctx context.Context, d time.Duration) error {
	if s.Sleep != nil {
		return s.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func (s *Scheduler) log() *slog.Logger {
	if s.Log != nil {
		return s.Log
	}
	return slog.New(slog.DiscardHandler)
}
