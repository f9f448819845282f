package schedule

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fakeClock is a clock that Sleep moves forward; past until, Sleep ends the
// run (as a canceled context would).
type fakeClock struct {
	mu     sync.Mutex
	t      time.Time
	until  time.Time
	sleeps []time.Duration
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.t.After(c.until) {
		return context.Canceled
	}
	c.sleeps = append(c.sleeps, d)
	c.t = c.t.Add(d)
	return ctx.Err()
}

// fakeCatalogue is the shared store of the replicas: its lock, and when its
// catalogue was last written.
type fakeCatalogue struct {
	mu      sync.Mutex
	locked  bool
	done    time.Time
	version int64
	lockErr error
	// fail makes that many Work calls fail before one succeeds.
	fail   int
	works  []time.Time
	unlock int
}

func (c *fakeCatalogue) Lock(context.Context) (func(), bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.lockErr != nil {
		return nil, false, c.lockErr
	}
	if c.locked {
		return nil, false, nil
	}
	c.locked = true
	return func() { c.mu.Lock(); c.locked = false; c.unlock++; c.mu.Unlock() }, true, nil
}

func (c *fakeCatalogue) Done(context.Context) (time.Time, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.done, nil
}

func (c *fakeCatalogue) Work(_ context.Context, now time.Time) (int64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.works = append(c.works, now)
	if c.fail > 0 {
		c.fail--
		return 0, errors.New("upstream answered 502")
	}
	c.version++
	c.done = now
	return c.version, nil
}

func day(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func newScheduler(t *testing.T, at string, clock *fakeClock, cat *fakeCatalogue, log *bytes.Buffer) *Scheduler {
	t.Helper()
	times, err := ParseTimes(at)
	if err != nil {
		t.Fatal(err)
	}
	return &Scheduler{
		Times: times, Lock: cat.Lock, Done: cat.Done, Work: cat.Work,
		Now: clock.Now, Sleep: clock.Sleep, Backoff: time.Second, MaxBackoff: 4 * time.Second,
		Log: slog.New(slog.NewTextHandler(log, nil)),
	}
}

// A catalogue written before the last due time is refreshed at start; then
// each due time runs once, stamped at its time.
func TestRunCatchesUpThenRunsAtEachTime(t *testing.T) {
	clock := &fakeClock{t: day(t, "2026-11-25T10:00:00Z"), until: day(t, "2026-11-26T16:00:00Z")}
	cat := &fakeCatalogue{done: day(t, "2026-11-24T03:05:00Z"), version: 1}
	var log bytes.Buffer
	s := newScheduler(t, "03:00,15:30", clock, cat, &log)
	s.Run(context.Background())

	want := []time.Time{
		day(t, "2026-11-25T10:00:00Z"), // catch-up: yesterday 03:05 < today 03:00
		day(t, "2026-11-25T15:30:00Z"),
		day(t, "2026-11-26T03:00:00Z"),
		day(t, "2026-11-26T15:30:00Z"),
	}
	if diff := cmp.Diff(want, cat.works); diff != "" {
		t.Errorf("work stamps (-want +got):\n%s", diff)
	}
	st := s.Status()
	if st.Runs[OK] != 4 || st.Attempts != 4 || st.LastOutcome != OK || st.LastVersion != 5 ||
		!st.LastDue.Equal(day(t, "2026-11-26T15:30:00Z")) || !st.Next.Equal(day(t, "2026-11-27T03:00:00Z")) {
		t.Errorf("status = %+v", st)
	}
	if cat.locked || cat.unlock != 4 {
		t.Errorf("lock left held (%v) or not released after each run (%d)", cat.locked, cat.unlock)
	}
	// Waiting reads the clock at most every CheckEvery.
	for _, d := range clock.sleeps {
		if d > DefaultCheckEvery {
			t.Fatalf("slept %s at once, more than %s", d, DefaultCheckEvery)
		}
	}
}

// A catalogue written after the last due time is not refreshed at start.
func TestRunNoCatchUpOnFreshCatalogue(t *testing.T) {
	clock := &fakeClock{t: day(t, "2026-11-25T10:00:00Z"), until: day(t, "2026-11-25T14:00:00Z")}
	cat := &fakeCatalogue{done: day(t, "2026-11-25T03:00:00Z")} // written at the due time itself
	var log bytes.Buffer
	s := newScheduler(t, "03:00,15:30", clock, cat, &log)
	s.Run(context.Background())
	if len(cat.works) != 0 {
		t.Errorf("worked at %v on a fresh catalogue", cat.works)
	}
	if st := s.Status(); st.LastOutcome != "" || len(st.Runs) != 0 || !st.Next.Equal(day(t, "2026-11-25T15:30:00Z")) {
		t.Errorf("status = %+v", st)
	}
}

func TestRunRetriesWithBackoff(t *testing.T) {
	clock := &fakeClock{t: day(t, "2026-11-25T02:59:59Z"), until: day(t, "2026-11-25T04:00:00Z")}
	cat := &fakeCatalogue{done: day(t, "2026-11-25T00:00:00Z"), fail: 2}
	var log bytes.Buffer
	s := newScheduler(t, "03:00", clock, cat, &log)
	s.Run(context.Background())

	if len(cat.works) != 3 {
		t.Fatalf("works = %v, want 3 attempts", cat.works)
	}
	// Retry n waits Backoff·2^(n-1) plus up to half of it again.
	for i, lo := range []time.Duration{time.Second, 2 * time.Second} {
		if gap := cat.works[i+1].Sub(cat.works[i]); gap < lo || gap > lo*3/2 {
			t.Errorf("retry %d after %s, want %s to %s", i+1, gap, lo, lo*3/2)
		}
	}
	st := s.Status()
	if st.LastOutcome != OK || st.LastAttempts != 3 || st.Attempts != 3 || st.Runs[OK] != 1 || st.LastVersion != 1 ||
		st.LastError != "" {
		t.Errorf("status = %+v", st)
	}
	if n := strings.Count(log.String(), "scheduled refresh attempt failed; retrying"); n != 2 {
		t.Errorf("%d retry lines, want 2:\n%s", n, &log)
	}
}

// Every attempt failing: the run is failed, counted and logged, the
// catalogue's time unchanged, and the lock released; the next due time tries
// again.
func TestRunFailsAfterBoundedAttempts(t *testing.T) {
	clock := &fakeClock{t: day(t, "2026-11-25T02:59:59Z"), until: day(t, "2026-11-25T16:00:00Z")}
	cat := &fakeCatalogue{done: day(t, "2026-11-25T00:00:00Z"), fail: 4}
	var log bytes.Buffer
	s := newScheduler(t, "03:00,15:30", clock, cat, &log)
	s.Attempts = 4
	s.Run(context.Background())

	st := s.Status()
	if st.Runs[Failed] != 1 || st.Runs[OK] != 1 || st.Attempts != 5 || st.LastOutcome != OK {
		t.Errorf("status = %+v", st)
	}
	if !strings.Contains(log.String(), `level=ERROR msg="scheduled refresh failed; still serving the previous catalogue" due=2026-11-25T03:00:00.000Z attempts=4 err="upstream answered 502"`) {
		t.Errorf("no failure line:\n%s", &log)
	}
	if cat.locked || cat.unlock != 2 {
		t.Errorf("lock held %v, released %d times", cat.locked, cat.unlock)
	}
	// Backoff doubles up to MaxBackoff (4s), with jitter.
	var retries []time.Duration
	for i := 1; i < 4; i++ {
		retries = append(retries, cat.works[i].Sub(cat.works[i-1]))
	}
	for i, lo := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second} {
		if retries[i] < lo || retries[i] > lo*3/2 {
			t.Errorf("retry %d after %s, want %s to %s", i+1, retries[i], lo, lo*3/2)
		}
	}
}

func TestRunFailedStatusKeepsError(t *testing.T) {
	clock := &fakeClock{t: day(t, "2026-11-25T02:59:59Z"), until: day(t, "2026-11-25T04:00:00Z")}
	cat := &fakeCatalogue{done: day(t, "2026-11-25T00:00:00Z"), lockErr: errors.New("connection refused")}
	var log bytes.Buffer
	s := newScheduler(t, "03:00", clock, cat, &log)
	s.Attempts = 2
	var seen []Status
	s.OnOutcome = func(st Status) { seen = append(seen, st) }
	s.Run(context.Background())
	if len(seen) != 1 || seen[0].LastOutcome != Failed || seen[0].LastAttempts != 2 ||
		seen[0].LastError != "taking the refresh lock: connection refused" || len(cat.works) != 0 {
		t.Errorf("outcomes = %+v, works %v", seen, cat.works)
	}
}

// Two replicas sharing a store: at each due time exactly one works; the
// other finds the lock held or the catalogue already written. They share
// one clock (a synctest bubble's; replica 1's reads a second ahead, as a
// skewed clock would), so that neither runs days ahead of the other: with a
// fake clock each, one could pass the next due time while the other still
// held the lock for the last, and skip it.
func TestRunTwoReplicasOneWorks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		base, start := day(t, "2026-11-25T02:59:00Z"), time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), day(t, "2026-11-27T04:00:00Z").Sub(base))
		defer cancel()
		cat := &fakeCatalogue{done: day(t, "2026-11-25T00:00:00Z")}
		var wg sync.WaitGroup
		var scheds []*Scheduler
		for i := range 2 {
			var log bytes.Buffer
			s := newScheduler(t, "03:00", &fakeClock{}, cat, &log)
			skew := time.Duration(i) * time.Second
			s.Now = func() time.Time { return base.Add(skew + time.Since(start)) }
			s.Sleep = func(ctx context.Context, d time.Duration) error {
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-time.After(d):
					return nil
				}
			}
			scheds = append(scheds, s)
			wg.Go(func() { s.Run(ctx) })
		}
		wg.Wait()
		if len(cat.works) != 3 {
			t.Errorf("works = %v, want one per due time (3)", cat.works)
		}
		var ok, skipped int64
		for _, s := range scheds {
			st := s.Status()
			ok += st.Runs[OK]
			skipped += st.Runs[SkippedLock] + st.Runs[SkippedDone]
		}
		if ok != 3 || skipped != 3 {
			t.Errorf("ok %d, skipped %d; want 3 and 3", ok, skipped)
		}
	})
}

func TestRunEndsWithContext(t *testing.T) {
	times, _ := ParseTimes("03:00")
	s := &Scheduler{Times: times, Lock: (&fakeCatalogue{}).Lock, Done: func(context.Context) (time.Time, error) { return time.Now(), nil },
		Work: func(context.Context, time.Time) (int64, error) { return 0, nil }}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Run(ctx); close(done) }()
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after its context ended")
	}
}
