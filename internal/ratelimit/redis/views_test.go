package redis

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/cardcat/cardcat/internal/ratelimit"
)

func TestShare(t *testing.T) {
	tests := []struct {
		name              string
		hourSeen, daySeen int64
		replicas          int64
		want              ratelimit.Limits
	}{
		{"fresh pool, two replicas", 0, 0, 2, ratelimit.Limits{Hour: 50, Day: 500}},
		{"fresh pool, three replicas: rounded down", 0, 0, 3, ratelimit.Limits{Hour: 33, Day: 333}},
		{"never saw Redis: alone", 0, 0, 0, ratelimit.Limits{Hour: 100, Day: 1000}},
		{"exhausted hour", 100, 400, 2, ratelimit.Limits{Hour: 0, Day: 300}},
		{"one left, two replicas: none", 99, 99, 2, ratelimit.Limits{Hour: 0, Day: 450}},
		{"over the limit after a downgrade", 150, 1200, 2, ratelimit.Limits{Hour: 0, Day: 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := share(free, tt.hourSeen, tt.daySeen, tt.replicas)
			if got != tt.want {
				t.Errorf("share(%+v, %d, %d, %d) = %+v, want %+v", free, tt.hourSeen, tt.daySeen, tt.replicas, got, tt.want)
			}
		})
	}
}

func TestViewsWindows(t *testing.T) {
	v := newViews()
	p := ratelimit.PeriodAt(now)
	nextHour := ratelimit.Period{Hour: p.Hour + 1, Day: p.Day}
	nextDay := ratelimit.Period{Hour: p.Hour + 24, Day: p.Day + 1}

	v.observe("k", p, 40, 400)
	v.observe("k", p, 30, 300) // a reply that overtook a later one
	if h, d := v.seen("k", p); h != 40 || d != 400 {
		t.Errorf("seen = %d, %d; want the highest answer, 40, 400", h, d)
	}
	if h, d := v.seen("k", nextHour); h != 0 || d != 400 {
		t.Errorf("seen in the next hour = %d, %d; want 0 this hour, 400 today", h, d)
	}
	if h, d := v.seen("other", p); h != 0 || d != 0 {
		t.Errorf("seen of an unknown pool = %d, %d; want 0, 0", h, d)
	}

	// Local counts of the windows still open are taken, once; those of an
	// ended hour are dropped, the day's kept.
	v.addLocal("k", p)
	v.addLocal("k", p)
	v.addLocal("fresh", nextHour)
	got := v.takeLocal(nextHour)
	want := []pending{{key: "fresh", period: nextHour, hour: 1, day: 1}, {key: "k", period: nextHour, hour: 0, day: 2}}
	less := func(a, b pending) bool { return a.key < b.key }
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(pending{}), cmpopts.SortSlices(less)); diff != "" {
		t.Errorf("takeLocal (-want +got):\n%s", diff)
	}
	if again := v.takeLocal(nextHour); len(again) != 0 {
		t.Errorf("takeLocal twice: %+v, want nothing the second time", again)
	}

	// A failed add comes back, unless its window ended meanwhile.
	v.putBack(pending{key: "k", period: nextHour, hour: 3, day: 3})
	if got := v.takeLocal(nextDay); len(got) != 0 {
		t.Errorf("takeLocal on the next day: %+v, want the ended day's counts dropped", got)
	}

	v.observe("today", nextDay, 1, 1)
	v.sweep(nextDay.Day)
	if n := v.len(); n != 1 {
		t.Errorf("%d pools after the day ended, want only the one seen today", n)
	}
}

// BenchmarkObserve is what remembering Redis's answer adds to every request
// that Redis answers (see BenchmarkTake for the whole Take).
func BenchmarkObserve(b *testing.B) {
	v := newViews()
	p := ratelimit.PeriodAt(now)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		var n int64
		for pb.Next() {
			n++
			v.observe("acct:1234567", p, n, n)
		}
	})
}

func TestNotRun(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		{errNotSent, true},
		{fmt.Errorf("wrapped: %w", &net.OpError{Op: "dial", Err: errors.New("connection refused")}), true},
		{&net.OpError{Op: "read", Err: os.ErrDeadlineExceeded}, false},
		{context.DeadlineExceeded, false},
	}
	for _, tt := range tests {
		if got := notRun(tt.err); got != tt.want {
			t.Errorf("notRun(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}
