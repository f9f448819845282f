// Package limitertest is the behaviour every ratelimit.Limiter must show, as
// one suite that each backend's tests run, so that the in-process and the Redis
// limiter cannot drift apart. Time is passed in, never slept through.
package limitertest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cardcat/cardcat/internal/ratelimit"
)

// NewLimiter returns a fresh limiter with no counts, isolated from every other
// limiter the suite creates, and arranges for it to be closed when t ends.
type NewLimiter func(t *testing.T) ratelimit.Limiter

// base is an arbitrary instant in the middle of an hour; the suite's times are
// written relative to it or as literal UTC dates.
var base = time.Date(2025, 3, 14, 13, 20, 0, 0, time.UTC)

// Run runs the suite against the limiters newLimiter makes.
func Run(t *testing.T, newLimiter NewLimiter) {
	tests := []struct {
		name string
		run  func(t *testing.T, l ratelimit.Limiter)
	}{
		{"CountsToTheLimitThenDeniesWithoutCounting", testCountsToLimit},
		{"HourExhaustedWhileDayHasRoom", testHourExhausted},
		{"DayExhaustedWhileHourHasRoom", testDayExhausted},
		{"BothExhaustedWaitsForTheLaterWindow", testBothExhausted},
		{"RetryAfterIsExactToTheWindowEnd", testRetryAfterExact},
		{"HourRollover", testHourRollover},
		{"MidnightRollover", testMidnightRollover},
		{"PoolsAreIndependent", testPoolsIndependent},
		{"KeysAreOpaque", testKeysOpaque},
		{"LimitChangesApplyAtOnce", testLimitChange},
		{"ZeroLimitAdmitsNothing", testZeroLimit},
		{"PeekDoesNotCount", testPeek},
		{"ResetIsUTC", testResetUTC},
		{"ConcurrentTakesStopExactlyAtTheHourLimit", func(t *testing.T, l ratelimit.Limiter) {
			testConcurrent(t, l, ratelimit.Limits{Hour: 100, Day: 1000}, 100)
		}},
		{"ConcurrentTakesStopExactlyAtTheDayLimit", func(t *testing.T, l ratelimit.Limiter) {
			testConcurrent(t, l, ratelimit.Limits{Hour: 1000, Day: 60}, 60)
		}},
		{"RefundGivesBackInBothWindows", testRefund},
		{"RefundStopsAtZero", testRefundStopsAtZero},
		{"RefundLeavesOtherWindowsAlone", testRefundOtherWindows},
		{"RefundOfMaxInt64ClearsThePool", testRefundClears},
		{"ConcurrentTakesAndRefundsNeverPassTheLimit", testConcurrentRefunds},
		{"UseAfterClose", testUseAfterClose},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.run(t, newLimiter(t))
		})
	}
}

// MustTake takes one request and fails the test on an error.
func MustTake(tb testing.TB, l ratelimit.Limiter, key string, lim ratelimit.Limits, now time.Time) ratelimit.Result {
	tb.Helper()
	r, err := l.Take(context.Background(), key, lim, now)
	if err != nil {
		tb.Fatalf("Take(%q, %+v, %v): %v", key, lim, now, err)
	}
	return r
}

// MustRefund gives back n requests and fails the test on an error.
func MustRefund(tb testing.TB, l ratelimit.Limiter, key string, n int64, now time.Time) {
	tb.Helper()
	if err := l.Refund(context.Background(), key, n, now); err != nil {
		tb.Fatalf("Refund(%q, %d, %v): %v", key, n, now, err)
	}
}

// MustPeek peeks and fails the test on an error.
func MustPeek(tb testing.TB, l ratelimit.Limiter, key string, lim ratelimit.Limits, now time.Time) ratelimit.Result {
	tb.Helper()
	r, err := l.Peek(context.Background(), key, lim, now)
	if err != nil {
		tb.Fatalf("Peek(%q, %+v, %v): %v", key, lim, now, err)
	}
	return r
}

// TakeN takes n requests that must all be allowed.
func TakeN(tb testing.TB, l ratelimit.Limiter, key string, lim ratelimit.Limits, now time.Time, n int) {
	tb.Helper()
	for i := range n {
		if r := MustTake(tb, l, key, lim, now); !r.Allowed {
			tb.Fatalf("Take %d of %d (%q, %+v, %v) denied: %+v", i+1, n, key, lim, now, r)
		}
	}
}

func want(t *testing.T, what string, want, got ratelimit.Result) {
	t.Helper()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", what, diff)
	}
}

// win builds the expected window of a limit with used requests.
func win(limit, used int64, reset time.Time) ratelimit.Window {
	return ratelimit.Window{Limit: limit, Used: used, Remaining: max(limit-used, 0), Reset: reset}
}

func utc(y int, mo time.Month, d, h, mi, s, ns int) time.Time {
	return time.Date(y, mo, d, h, mi, s, ns, time.UTC)
}

var (
	baseHourEnd = utc(2025, 3, 14, 14, 0, 0, 0)
	baseDayEnd  = utc(2025, 3, 15, 0, 0, 0, 0)
)

func testCountsToLimit(t *testing.T, l ratelimit.Limiter) {
	lim := ratelimit.Limits{Hour: 3, Day: 10}
	for i := int64(1); i <= 3; i++ {
		got := MustTake(t, l, "acct:1", lim, base)
		want(t, fmt.Sprintf("Take %d", i), ratelimit.Result{
			Allowed: true,
			Hour:    win(3, i, baseHourEnd),
			Day:     win(10, i, baseDayEnd),
		}, got)
	}
	denied := ratelimit.Result{
		Hour:       win(3, 3, baseHourEnd),
		Day:        win(10, 3, baseDayEnd),
		RetryAfter: 40 * time.Minute,
	}
	for i := range 3 {
		want(t, fmt.Sprintf("denied Take %d", i+1), denied, MustTake(t, l, "acct:1", lim, base))
	}
	want(t, "Peek after denials", denied, MustPeek(t, l, "acct:1", lim, base))
}

func testHourExhausted(t *testing.T, l ratelimit.Limiter) {
	lim := ratelimit.Limits{Hour: 2, Day: 10}
	TakeN(t, l, "k", lim, base, 2)
	want(t, "Take past the hour limit", ratelimit.Result{
		Hour:       win(2, 2, baseHourEnd),
		Day:        win(10, 2, baseDayEnd),
		RetryAfter: 40 * time.Minute,
	}, MustTake(t, l, "k", lim, base))

	next := utc(2025, 3, 14, 14, 0, 0, 0)
	want(t, "Take in the next hour", ratelimit.Result{
		Allowed: true,
		Hour:    win(2, 1, utc(2025, 3, 14, 15, 0, 0, 0)),
		Day:     win(10, 3, baseDayEnd),
	}, MustTake(t, l, "k", lim, next))
}

func testDayExhausted(t *testing.T, l ratelimit.Limiter) {
	lim := ratelimit.Limits{Hour: 10, Day: 3}
	TakeN(t, l, "k", lim, base, 3)
	want(t, "Take past the day limit", ratelimit.Result{
		Hour:       win(10, 3, baseHourEnd),
		Day:        win(3, 3, baseDayEnd),
		RetryAfter: 10*time.Hour + 40*time.Minute,
	}, MustTake(t, l, "k", lim, base))

	later := utc(2025, 3, 14, 22, 15, 0, 0)
	want(t, "Take in a later hour of the same day", ratelimit.Result{
		Hour:       win(10, 0, utc(2025, 3, 14, 23, 0, 0, 0)),
		Day:        win(3, 3, baseDayEnd),
		RetryAfter: time.Hour + 45*time.Minute,
	}, MustTake(t, l, "k", lim, later))

	want(t, "Take the next day", ratelimit.Result{
		Allowed: true,
		Hour:    win(10, 1, utc(2025, 3, 15, 1, 0, 0, 0)),
		Day:     win(3, 1, utc(2025, 3, 16, 0, 0, 0, 0)),
	}, MustTake(t, l, "k", lim, baseDayEnd))
}

func testBothExhausted(t *testing.T, l ratelimit.Limiter) {
	lim := ratelimit.Limits{Hour: 2, Day: 2}
	TakeN(t, l, "k", lim, base, 2)
	want(t, "Take past both limits", ratelimit.Result{
		Hour:       win(2, 2, baseHourEnd),
		Day:        win(2, 2, baseDayEnd),
		RetryAfter: 10*time.Hour + 40*time.Minute,
	}, MustTake(t, l, "k", lim, base))
}

func testRetryAfterExact(t *testing.T, l ratelimit.Limiter) {
	lim := ratelimit.Limits{Hour: 1, Day: 5}
	now := utc(2025, 3, 14, 13, 59, 59, 250000000)
	TakeN(t, l, "k", lim, now, 1)
	if got := MustTake(t, l, "k", lim, now).RetryAfter; got != 750*time.Millisecond {
		t.Errorf("RetryAfter at %v = %v, want 750ms", now, got)
	}
	if got := MustTake(t, l, "k", lim, now).RetryAfter; got != 750*time.Millisecond {
		t.Errorf("RetryAfter of a repeated denial = %v, want 750ms", got)
	}
	if r := MustTake(t, l, "k", lim, baseHourEnd); !r.Allowed || r.RetryAfter != 0 {
		t.Errorf("Take at the window end = %+v, want allowed with no RetryAfter", r)
	}
}

func testHourRollover(t *testing.T, l ratelimit.Limiter) {
	lim := ratelimit.Limits{Hour: 2, Day: 100}
	last := utc(2025, 3, 14, 13, 59, 59, 999999999)
	TakeN(t, l, "k", lim, last, 2)
	if r := MustTake(t, l, "k", lim, last); r.Allowed {
		t.Fatalf("third Take at %v allowed: %+v", last, r)
	}
	want(t, "first Take of the next hour", ratelimit.Result{
		Allowed: true,
		Hour:    win(2, 1, utc(2025, 3, 14, 15, 0, 0, 0)),
		Day:     win(100, 3, baseDayEnd),
	}, MustTake(t, l, "k", lim, baseHourEnd))
}

func testMidnightRollover(t *testing.T, l ratelimit.Limiter) {
	// The last second of a year, so that the day, month and year all change.
	lim := ratelimit.Limits{Hour: 100, Day: 2}
	last := utc(2025, 12, 31, 23, 59, 59, 0)
	newYear := utc(2026, 1, 1, 0, 0, 0, 0)
	TakeN(t, l, "k", lim, last, 2)
	want(t, "Take past the day limit at 23:59:59", ratelimit.Result{
		Hour:       win(100, 2, newYear),
		Day:        win(2, 2, newYear),
		RetryAfter: time.Second,
	}, MustTake(t, l, "k", lim, last))
	want(t, "Take at 00:00:00", ratelimit.Result{
		Allowed: true,
		Hour:    win(100, 1, utc(2026, 1, 1, 1, 0, 0, 0)),
		Day:     win(2, 1, utc(2026, 1, 2, 0, 0, 0, 0)),
	}, MustTake(t, l, "k", lim, newYear))
}

func testPoolsIndependent(t *testing.T, l ratelimit.Limiter) {
	lim := ratelimit.Limits{Hour: 2, Day: 10}
	TakeN(t, l, "acct:a", lim, base, 2)
	if r := MustTake(t, l, "acct:a", lim, base); r.Allowed {
		t.Fatalf("acct:a past its limit allowed: %+v", r)
	}
	want(t, "first Take of acct:b", ratelimit.Result{
		Allowed: true,
		Hour:    win(2, 1, baseHourEnd),
		Day:     win(10, 1, baseDayEnd),
	}, MustTake(t, l, "acct:b", lim, base))
	if r := MustPeek(t, l, "acct:a", lim, base); r.Hour.Used != 2 {
		t.Errorf("acct:a after acct:b took: Hour.Used = %d, want 2", r.Hour.Used)
	}
}

// testKeysOpaque guards against a backend that builds storage names from the
// key and lets characters such as ':' or '}' make two pools share a counter.
func testKeysOpaque(t *testing.T, l ratelimit.Limiter) {
	keys := []string{"", "a", "a:h", "a}:h:1", "{a}", "ip:2001:db8::1", "ip:192.0.2.1", "acct:ünïcode", "with space", "a\x00b"}
	lim := ratelimit.Limits{Hour: 100, Day: 100}
	for i, key := range keys {
		TakeN(t, l, key, lim, base, i+1)
	}
	for i, key := range keys {
		if got := MustPeek(t, l, key, lim, base).Hour.Used; got != int64(i+1) {
			t.Errorf("pool %q: Hour.Used = %d, want %d", key, got, i+1)
		}
	}
}

func testLimitChange(t *testing.T, l ratelimit.Limiter) {
	old := ratelimit.Limits{Hour: 1000, Day: 10000}
	TakeN(t, l, "k", old, base, 150)

	lowered := ratelimit.Limits{Hour: 100, Day: 1000}
	deniedLowered := ratelimit.Result{
		Hour:       win(100, 150, baseHourEnd),
		Day:        win(1000, 150, baseDayEnd),
		RetryAfter: 40 * time.Minute,
	}
	want(t, "Take after the hourly limit fell below the usage", deniedLowered, MustTake(t, l, "k", lowered, base))
	want(t, "Peek after the hourly limit fell below the usage", deniedLowered, MustPeek(t, l, "k", lowered, base))

	dayLowered := ratelimit.Limits{Hour: 1000, Day: 120}
	want(t, "Take after the daily limit fell below the usage", ratelimit.Result{
		Hour:       win(1000, 150, baseHourEnd),
		Day:        win(120, 150, baseDayEnd),
		RetryAfter: 10*time.Hour + 40*time.Minute,
	}, MustTake(t, l, "k", dayLowered, base))

	raised := ratelimit.Limits{Hour: 200, Day: 2000}
	want(t, "Take after the limit was raised", ratelimit.Result{
		Allowed: true,
		Hour:    win(200, 151, baseHourEnd),
		Day:     win(2000, 151, baseDayEnd),
	}, MustTake(t, l, "k", raised, base))
}

func testZeroLimit(t *testing.T, l ratelimit.Limiter) {
	for _, lim := range []ratelimit.Limits{{Hour: 0, Day: 0}, {Hour: 0, Day: 10}, {Hour: -5, Day: -5}} {
		r := MustTake(t, l, "k", lim, base)
		if r.Allowed || r.Hour.Used != 0 || r.Hour.Remaining != 0 || r.RetryAfter <= 0 {
			t.Errorf("Take with %+v = %+v, want denied, nothing used, none remaining, a RetryAfter", lim, r)
		}
	}
}

func testPeek(t *testing.T, l ratelimit.Limiter) {
	lim := ratelimit.Limits{Hour: 2, Day: 10}
	fresh := ratelimit.Result{Allowed: true, Hour: win(2, 0, baseHourEnd), Day: win(10, 0, baseDayEnd)}
	for i := range 3 {
		want(t, fmt.Sprintf("Peek %d of an unused pool", i+1), fresh, MustPeek(t, l, "k", lim, base))
	}
	TakeN(t, l, "k", lim, base, 1)
	want(t, "Peek after one Take", ratelimit.Result{
		Allowed: true, Hour: win(2, 1, baseHourEnd), Day: win(10, 1, baseDayEnd),
	}, MustPeek(t, l, "k", lim, base))
	TakeN(t, l, "k", lim, base, 1)
	exhausted := ratelimit.Result{Hour: win(2, 2, baseHourEnd), Day: win(10, 2, baseDayEnd), RetryAfter: 40 * time.Minute}
	want(t, "Peek of an exhausted pool", exhausted, MustPeek(t, l, "k", lim, base))
	want(t, "Take after Peeks", exhausted, MustTake(t, l, "k", lim, base))
}

func testResetUTC(t *testing.T, l ratelimit.Limiter) {
	// 02:00 in India is 20:30 UTC the day before.
	now := time.Date(2025, 3, 15, 2, 0, 0, 0, time.FixedZone("IST", 5*3600+1800))
	r := MustTake(t, l, "k", ratelimit.Limits{Hour: 10, Day: 10}, now)
	for name, w := range map[string]ratelimit.Window{"Hour": r.Hour, "Day": r.Day} {
		if w.Reset.Location() != time.UTC {
			t.Errorf("%s.Reset %v is in %v, want UTC", name, w.Reset, w.Reset.Location())
		}
	}
	if want := utc(2025, 3, 14, 21, 0, 0, 0); !r.Hour.Reset.Equal(want) {
		t.Errorf("Hour.Reset = %v, want %v", r.Hour.Reset, want)
	}
	if want := utc(2025, 3, 15, 0, 0, 0, 0); !r.Day.Reset.Equal(want) {
		t.Errorf("Day.Reset = %v, want %v", r.Day.Reset, want)
	}
}

// testConcurrent has more goroutines than the limit allows requests race for
// one pool; exactly wantAllowed may pass, whatever the interleaving.
func testConcurrent(t *testing.T, l ratelimit.Limiter, lim ratelimit.Limits, wantAllowed int64) {
	const workers, perWorker = 8, 40
	var allowed atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for range workers {
		wg.Go(func() {
			for range perWorker {
				r, err := l.Take(context.Background(), "hot", lim, base)
				if err != nil {
					errs <- err
					return
				}
				if r.Allowed {
					allowed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("concurrent Take: %v", err)
	}
	if got := allowed.Load(); got != wantAllowed {
		t.Errorf("%d×%d concurrent Takes with %+v: %d allowed, want %d", workers, perWorker, lim, got, wantAllowed)
	}
	r := MustPeek(t, l, "hot", lim, base)
	if r.Hour.Used != wantAllowed || r.Day.Used != wantAllowed {
		t.Errorf("after concurrent Takes: used %d/%d (hour/day), want %d", r.Hour.Used, r.Day.Used, wantAllowed)
	}
}

func testRefund(t *testing.T, l ratelimit.Limiter) {
	lim := ratelimit.Limits{Hour: 3, Day: 10}
	TakeN(t, l, "k", lim, base, 3)
	MustRefund(t, l, "k", 1, base)
	want(t, "Peek after a refund of one", ratelimit.Result{
		Allowed: true, Hour: win(3, 2, baseHourEnd), Day: win(10, 2, baseDayEnd),
	}, MustPeek(t, l, "k", lim, base))
	want(t, "Take after the refund", ratelimit.Result{
		Allowed: true, Hour: win(3, 3, baseHourEnd), Day: win(10, 3, baseDayEnd),
	}, MustTake(t, l, "k", lim, base))
	if r := MustTake(t, l, "k", lim, base); r.Allowed {
		t.Errorf("Take past the limit after the refund was used: %+v", r)
	}
}

func testRefundStopsAtZero(t *testing.T, l ratelimit.Limiter) {
	lim := ratelimit.Limits{Hour: 3, Day: 10}
	MustRefund(t, l, "never-taken", 5, base)
	fresh := ratelimit.Result{Allowed: true, Hour: win(3, 0, baseHourEnd), Day: win(10, 0, baseDayEnd)}
	want(t, "Peek of a pool refunded without a Take", fresh, MustPeek(t, l, "never-taken", lim, base))

	TakeN(t, l, "k", lim, base, 2)
	MustRefund(t, l, "k", 5, base)
	want(t, "Peek after a refund of more than was taken", fresh, MustPeek(t, l, "k", lim, base))
	MustRefund(t, l, "k", 0, base)
	MustRefund(t, l, "k", -3, base)
	want(t, "Peek after refunds of nothing", fresh, MustPeek(t, l, "k", lim, base))
	// The pool has its whole quota, no more.
	TakeN(t, l, "k", lim, base, 3)
	if r := MustTake(t, l, "k", lim, base); r.Allowed {
		t.Errorf("a refund below zero left room past the limit: %+v", r)
	}
}

// testRefundOtherWindows: a refund names the windows of the Take it gives
// back; an hour that began since keeps its count.
func testRefundOtherWindows(t *testing.T, l ratelimit.Limiter) {
	lim := ratelimit.Limits{Hour: 10, Day: 10}
	TakeN(t, l, "k", lim, base, 1)
	TakeN(t, l, "k", lim, baseHourEnd, 1)
	MustRefund(t, l, "k", 1, base)
	want(t, "Peek in the next hour after a refund of the hour before", ratelimit.Result{
		Allowed: true, Hour: win(10, 1, utc(2025, 3, 14, 15, 0, 0, 0)), Day: win(10, 1, baseDayEnd),
	}, MustPeek(t, l, "k", lim, baseHourEnd))
	MustRefund(t, l, "k", 1, base.Add(-24*time.Hour))
	if r := MustPeek(t, l, "k", lim, baseHourEnd); r.Hour.Used != 1 || r.Day.Used != 1 {
		t.Errorf("a refund of yesterday changed today: %+v", r)
	}
}

func testRefundClears(t *testing.T, l ratelimit.Limiter) {
	lim := ratelimit.Limits{Hour: 5, Day: 10}
	TakeN(t, l, "k", lim, base, 5)
	MustRefund(t, l, "k", math.MaxInt64, base)
	want(t, "Peek after a refund of MaxInt64", ratelimit.Result{
		Allowed: true, Hour: win(5, 0, baseHourEnd), Day: win(10, 0, baseDayEnd),
	}, MustPeek(t, l, "k", lim, base))
	TakeN(t, l, "k", lim, base, 5)
}

// testConcurrentRefunds takes and gives back from many goroutines at once,
// as logins do: the requests held at any instant never pass the limit, and
// once all are given back nothing is used.
func testConcurrentRefunds(t *testing.T, l ratelimit.Limiter) {
	const workers, perWorker = 8, 40
	lim := ratelimit.Limits{Hour: 3, Day: 1000}
	var held, admitted atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for range workers {
		wg.Go(func() {
			for range perWorker {
				r, err := l.Take(context.Background(), "hot", lim, base)
				if err != nil {
					errs <- err
					return
				}
				if !r.Allowed {
					continue
				}
				admitted.Add(1)
				if n := held.Add(1); n > lim.Hour {
					errs <- fmt.Errorf("%d requests held at once, limit %d", n, lim.Hour)
					return
				}
				held.Add(-1)
				if err := l.Refund(context.Background(), "hot", 1, base); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("concurrent Take and Refund: %v", err)
	}
	if admitted.Load() == 0 {
		t.Fatal("no Take was admitted")
	}
	if r := MustPeek(t, l, "hot", lim, base); r.Hour.Used != 0 || r.Day.Used != 0 {
		t.Errorf("after every admitted Take was given back: used %d/%d (hour/day), want 0", r.Hour.Used, r.Day.Used)
	}
}

func testUseAfterClose(t *testing.T, l ratelimit.Limiter) {
	if err := l.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := l.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	lim := ratelimit.Limits{Hour: 10, Day: 10}
	if _, err := l.Take(context.Background(), "k", lim, base); !errors.Is(err, ratelimit.ErrClosed) {
		t.Errorf("Take after Close: error %v, want ErrClosed", err)
	}
	if _, err := l.Peek(context.Background(), "k", lim, base); !errors.Is(err, ratelimit.ErrClosed) {
		t.Errorf("Peek after Close: error %v, want ErrClosed", err)
	}
	if err := l.Refund(context.Background(), "k", 1, base); !errors.Is(err, ratelimit.ErrClosed) {
		t.Errorf("Refund after Close: error %v, want ErrClosed", err)
	}
}
