package memory

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/google/go-cmp/cmp"

	"github.com/cardcat/cardcat/internal/ratelimit"
	"github.com/cardcat/cardcat/internal/ratelimit/limitertest"
	"github.com/cardcat/cardcat/internal/testkit"
)

var (
	day1 = time.Date(2025, 3, 14, 13, 20, 0, 0, time.UTC)
	lim  = ratelimit.Limits{Hour: 100, Day: 1000}
)

// fixedClock is the clock pruning and loading see; tests move it by hand.
type fixedClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fixedClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fixedClock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

// logBuffer collects what the limiter logs, for tests that expect a warning.
type logBuffer struct{ testkit.SyncBuffer }

func (b *logBuffer) Logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// quiet keeps the background tick out of tests that flush by hand.
const quiet = time.Hour

func mustOpen(t *testing.T, path string, opts Options) *Limiter {
	t.Helper()
	l, err := Open(path, opts)
	if err != nil {
		t.Fatalf("Open(%q): %v", path, err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func TestSuiteNew(t *testing.T) {
	limitertest.Run(t, func(t *testing.T) ratelimit.Limiter {
		l := New(Options{})
		t.Cleanup(func() { l.Close() })
		return l
	})
}

func TestSuitePersisted(t *testing.T) {
	limitertest.Run(t, func(t *testing.T) ratelimit.Limiter {
		// A short interval, so the suite also runs with saves racing Takes.
		// The pruning clock stands still: the suite's own times span years.
		return mustOpen(t, filepath.Join(t.TempDir(), "ratelimit.json"), Options{SaveInterval: time.Millisecond, Now: func() time.Time { return day1 }})
	})
}

func TestCountersSurviveRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ratelimit.json")
	clock := &fixedClock{t: day1}
	opts := Options{SaveInterval: quiet, Now: clock.Now}

	l := mustOpen(t, path, opts)
	limitertest.TakeN(t, l, "acct:1", lim, day1, 7)
	limitertest.TakeN(t, l, "acct:2", lim, day1, 2)
	if err := l.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	// Restarted later the same day, in another hour: the day's usage is still there.
	later := day1.Add(3 * time.Hour)
	clock.Set(later)
	l = mustOpen(t, path, opts)
	got := limitertest.MustPeek(t, l, "acct:1", lim, later)
	if got.Day.Used != 7 || got.Hour.Used != 0 {
		t.Errorf("acct:1 after restart: used %d/%d (hour/day), want 0/7", got.Hour.Used, got.Day.Used)
	}

	// Restarted in the same hour: the hour's usage is there too.
	got = limitertest.MustPeek(t, l, "acct:2", lim, day1)
	if got.Day.Used != 2 || got.Hour.Used != 2 {
		t.Errorf("acct:2 after restart: used %d/%d (hour/day), want 2/2", got.Hour.Used, got.Day.Used)
	}
}

func TestExhaustedDayStaysExhaustedAfterRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ratelimit.json")
	small := ratelimit.Limits{Hour: 10, Day: 10}
	opts := Options{SaveInterval: quiet, Now: func() time.Time { return day1 }}
	l := mustOpen(t, path, opts)
	limitertest.TakeN(t, l, "k", small, day1, 10)
	if err := l.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	l = mustOpen(t, path, opts)
	if r := limitertest.MustTake(t, l, "k", small, day1.Add(time.Hour)); r.Allowed {
		t.Errorf("Take after a restart with the day exhausted was allowed: %+v", r)
	}
}

func TestPeriodicSave(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ratelimit.json")
	l := mustOpen(t, path, Options{SaveInterval: 5 * time.Millisecond, Now: func() time.Time { return day1 }})
	limitertest.TakeN(t, l, "acct:1", lim, day1, 3)

	// Without Close: a crash after the next tick keeps the counts.
	deadline := time.Now().Add(5 * time.Second)
	for {
		st, err := readState(path)
		if err == nil && len(st.Pools) == 1 && st.Pools[0].DayUsed == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("state file not written within 5s: %+v, %v", st, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	p := ratelimit.PeriodAt(day1)
	st, _ := readState(path)
	want := stateFile{Version: stateVersion, Pools: []poolState{{Key: "acct:1", Hour: p.Hour, HourUsed: 3, Day: p.Day, DayUsed: 3}}}
	if diff := cmp.Diff(want, st); diff != "" {
		t.Errorf("state file (-want +got):\n%s", diff)
	}
	leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*"))
	if len(leftovers) != 0 {
		t.Errorf("temporary files left behind: %v", leftovers)
	}
}

func readState(path string) (stateFile, error) {
	var st stateFile
	b, err := os.ReadFile(path)
	if err != nil {
		return st, err
	}
	err = json.Unmarshal(b, &st)
	return st, err
}

func TestSaveOnlyWhenChanged(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ratelimit.json")
	l := mustOpen(t, path, Options{SaveInterval: quiet, Now: func() time.Time { return day1 }})
	limitertest.TakeN(t, l, "k", lim, day1, 1)
	if err := l.flush(); err != nil {
		t.Fatalf("flush: %v", err)
	}
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	os.Chtimes(path, time.Time{}, before.ModTime().Add(-time.Hour))

	limitertest.MustPeek(t, l, "k", lim, day1)
	limitertest.MustTake(t, l, "zero", ratelimit.Limits{}, day1) // denied: changes nothing
	if err := l.flush(); err != nil {
		t.Fatalf("flush: %v", err)
	}
	after, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if !after.ModTime().Equal(before.ModTime().Add(-time.Hour)) {
		t.Errorf("state file rewritten although no count changed")
	}
}

func TestCorruptStateFile(t *testing.T) {
	tests := []struct {
		name    string
		content string
	}{
		{"garbage", "not json at all \x00\xff"},
		{"truncated", `{"version":1,"pools":[{"key":"acct:1","hour":4`},
		{"wrong shape", `{"version":1,"pools":{"acct:1":3}}`},
		{"unknown version", `{"version":99,"pools":[]}`},
		{"empty", ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "ratelimit.json")
			if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			var logs logBuffer
			l := mustOpen(t, path, Options{SaveInterval: quiet, Now: func() time.Time { return day1 }, Logger: logs.Logger()})

			if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), "corrupt") {
				t.Errorf("no warning logged; log:\n%s", logs.String())
			}
			aside, err := os.ReadFile(path + ".corrupt")
			if err != nil || string(aside) != tt.content {
				t.Errorf("corrupt file not kept aside: %q, %v", aside, err)
			}
			// It works, from zero, and saves a good file over the bad one.
			if r := limitertest.MustTake(t, l, "acct:1", lim, day1); !r.Allowed || r.Day.Used != 1 {
				t.Errorf("first Take after a corrupt file = %+v, want allowed with 1 used", r)
			}
			if err := l.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			if st, err := readState(path); err != nil || len(st.Pools) != 1 {
				t.Errorf("state after Close = %+v, %v; want one pool", st, err)
			}
		})
	}
}

func TestOpenUnreadableStateFile(t *testing.T) {
	// A directory where the file should be: not corruption but a setup fault,
	// which must stop the start rather than hand out fresh quotas.
	path := t.TempDir()
	if _, err := Open(path, Options{}); err == nil {
		t.Fatal("Open of a directory succeeded")
	}
	if _, err := Open("", Options{}); err == nil {
		t.Fatal("Open with an empty path succeeded")
	}
}

func TestLoadDropsEndedDays(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ratelimit.json")
	clock := &fixedClock{t: day1}
	opts := Options{SaveInterval: quiet, Now: clock.Now}
	l := mustOpen(t, path, opts)
	limitertest.TakeN(t, l, "yesterday", lim, day1, 4)
	today := day1.Add(24 * time.Hour)
	limitertest.TakeN(t, l, "today", lim, today, 2)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}

	clock.Set(today)
	l = mustOpen(t, path, opts)
	if n := l.pools(); n != 1 {
		t.Errorf("pools after loading = %d, want 1 (yesterday's dropped)", n)
	}
	if r := limitertest.MustPeek(t, l, "today", lim, today); r.Day.Used != 2 {
		t.Errorf("today's pool Day.Used = %d, want 2", r.Day.Used)
	}
}

func TestEndedWindowsArePruned(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ratelimit.json")
	clock := &fixedClock{t: day1}
	l := mustOpen(t, path, Options{SaveInterval: quiet, Now: clock.Now})
	for _, key := range []string{"a", "b", "c"} {
		limitertest.TakeN(t, l, key, lim, day1, 1)
	}
	// An hour later, the pools stay: their day is not over.
	clock.Set(day1.Add(time.Hour))
	limitertest.TakeN(t, l, "d", lim, clock.Now(), 1)
	if err := l.flush(); err != nil {
		t.Fatal(err)
	}
	if n := l.pools(); n != 4 {
		t.Fatalf("pools after an hour = %d, want 4", n)
	}
	// The next day, all of them go, in memory and in the file.
	next := time.Date(2025, 3, 15, 0, 0, 1, 0, time.UTC)
	clock.Set(next)
	limitertest.TakeN(t, l, "e", lim, next, 1)
	if err := l.flush(); err != nil {
		t.Fatal(err)
	}
	if n := l.pools(); n != 1 {
		t.Errorf("pools the next day = %d, want 1", n)
	}
	if st, err := readState(path); err != nil || len(st.Pools) != 1 || st.Pools[0].Key != "e" {
		t.Errorf("state file the next day = %+v, %v; want only pool e", st, err)
	}
}

func (l *Limiter) pools() int {
	n := 0
	for i := range l.shards {
		s := &l.shards[i]
		s.mu.Lock()
		n += len(s.pools)
		s.mu.Unlock()
	}
	return n
}

func TestClockStepBackKeepsUsage(t *testing.T) {
	l := New(Options{})
	t.Cleanup(func() { l.Close() })
	small := ratelimit.Limits{Hour: 2, Day: 10}
	after := time.Date(2025, 3, 14, 14, 0, 0, 100, time.UTC)
	limitertest.TakeN(t, l, "k", small, after, 2)
	// The clock steps back over the hour boundary: the pool must not get the
	// earlier hour's quota afresh.
	before := after.Add(-time.Second)
	r := limitertest.MustTake(t, l, "k", small, before)
	if r.Allowed || r.Hour.Used != 2 || !r.Hour.Reset.Equal(time.Date(2025, 3, 14, 15, 0, 0, 0, time.UTC)) {
		t.Errorf("Take after the clock stepped back = %+v, want denied in the 14:00 window", r)
	}
}

func TestSaveFailureIsReportedAndRecovers(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ratelimit.json")
	var logs logBuffer
	l := mustOpen(t, path, Options{SaveInterval: quiet, Now: func() time.Time { return day1 }, Logger: logs.Logger()})
	limitertest.TakeN(t, l, "k", lim, day1, 1)

	// Make the directory unusable: a file where the directory was.
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := l.flush(); err == nil {
			t.Fatal("flush into a missing directory succeeded")
		}
	}
	if err := l.Healthy(context.Background()); err == nil {
		t.Error("Healthy after a failed save = nil")
	}
	if n := strings.Count(logs.String(), "level=ERROR"); n != 1 {
		t.Errorf("failed saves logged %d times, want once:\n%s", n, logs.String())
	}

	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := l.flush(); err != nil {
		t.Fatalf("flush after the directory came back: %v", err)
	}
	if err := l.Healthy(context.Background()); err != nil {
		t.Errorf("Healthy after a good save: %v", err)
	}
	if st, err := readState(path); err != nil || len(st.Pools) != 1 {
		t.Errorf("state after recovery = %+v, %v; want the pool written although it changed before the failure", st, err)
	}
	if !strings.Contains(logs.String(), "saved again") {
		t.Errorf("recovery not logged:\n%s", logs.String())
	}
}

func TestHealthyAfterClose(t *testing.T) {
	l := New(Options{})
	if err := l.Healthy(context.Background()); err != nil {
		t.Errorf("Healthy: %v", err)
	}
	l.Close()
	if err := l.Healthy(context.Background()); !errors.Is(err, ratelimit.ErrClosed) {
		t.Errorf("Healthy after Close = %v, want ErrClosed", err)
	}
}

func TestTakeDoesNotAllocate(t *testing.T) {
	l := New(Options{})
	t.Cleanup(func() { l.Close() })
	ctx := context.Background()
	big := ratelimit.Limits{Hour: 1 << 40, Day: 1 << 40}
	l.Take(ctx, "acct:1", big, day1)
	if n := testing.AllocsPerRun(1000, func() { l.Take(ctx, "acct:1", big, day1) }); n != 0 {
		t.Errorf("Take of a known pool allocates %v times, want 0", n)
	}
}

func TestShardFillsOneCacheLine(t *testing.T) {
	if size := unsafe.Sizeof(shard{}); size != 64 {
		t.Errorf("shard is %d bytes, want 64", size)
	}
}

func TestReset(t *testing.T) {
	l := New(Options{})
	t.Cleanup(func() { l.Close() })
	limitertest.TakeN(t, l, "a", lim, day1, 3)
	limitertest.TakeN(t, l, "b", lim, day1, 1)
	l.Reset()
	for _, key := range []string{"a", "b"} {
		if r := limitertest.MustPeek(t, l, key, lim, day1); r.Hour.Used != 0 || r.Day.Used != 0 {
			t.Errorf("%s after Reset: %+v, want nothing used", key, r)
		}
	}
	if r := limitertest.MustTake(t, l, "a", lim, day1); r.Hour.Used != 1 {
		t.Errorf("first Take after Reset: %+v, want 1 used", r)
	}
}
