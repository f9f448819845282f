package httpapi

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/ratelimit"
)

// usageLog is a UsageRecorder that keeps every call.
type usageLog struct {
	mu    sync.Mutex
	calls []usageCall
}

type usageCall struct {
	Account, Key int64
	Refused      bool
	At           time.Time
}

func (u *usageLog) Record(accountRef, keyRef int64, refused bool, at time.Time) {
	u.mu.Lock()
	u.calls = append(u.calls, usageCall{accountRef, keyRef, refused, at})
	u.mu.Unlock()
}

func (u *usageLog) get() []usageCall {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]usageCall(nil), u.calls...)
}

// TestUsageRecorded: a keyed request the rate-limit step counts is recorded
// with the caller's store ids and the request's time, its 429 as refused;
// public routes, requests without a valid key and the 500 of a key that
// could not be checked are not. Without a limiter the same requests are
// recorded (none refused).
func TestUsageRecorded(t *testing.T) {
	for _, withLimiter := range []bool{true, false} {
		t.Run(map[bool]string{true: "limiter", false: "no limiter"}[withLimiter], func(t *testing.T) {
			usage := &usageLog{}
			l := newLimited(t, Config{}, func(d *Deps) {
				d.Usage = usage
				if !withLimiter {
					d.Limiter = nil
				}
			})
			l.auth.set(keySmall, func(c *account.Caller) {
				c.AccountRef, c.KeyRef = 3, 30
				c.Limits = ratelimit.Limits{Hour: 1, Day: 5}
			})
			l.auth.set(keyA1, func(c *account.Caller) { c.AccountRef, c.KeyRef = 1, 10 })
			for _, r := range []struct {
				target, key string
				status      int
			}{
				{"/dbs/sets", keySmall, 200},
				{"/dbs/sets", keySmall, 429}, // past its hour of 1
				{"/health", keySmall, 200},   // public: not counted
				{"/", keyA1, 200},
				{"/dbs/sets", "", 401},
				{"/dbs/sets", "pk_test_unknown0000000000000000000000000", 401},
				{"/dbs/sets", "pk_short", 401},
			} {
				status := r.status
				if !withLimiter && status == 429 {
					status = 200
				}
				if w := l.get(r.target, r.key); w.Code != status {
					t.Fatalf("GET %s with %.12s: %d, want %d", r.target, r.key, w.Code, status)
				}
			}
			want := []usageCall{{3, 30, false, testNow}, {3, 30, withLimiter, testNow}}
			if diff := cmp.Diff(want, usage.get()); diff != "" {
				t.Errorf("recorded (-want +got):\n%s", diff)
			}
		})
	}
}

// TestUsageNotRecordedOnAuthFailure: a key the Authenticator could not check
// (a 500) is not counted, so it is not recorded either.
func TestUsageNotRecordedOnAuthFailure(t *testing.T) {
	usage := &usageLog{}
	l := newLimited(t, Config{}, func(d *Deps) { d.Usage = usage })
	l.auth.mu.Lock()
	l.auth.fail = context.DeadlineExceeded
	l.auth.mu.Unlock()
	if w := l.get("/dbs/sets", keyA1); w.Code != 500 {
		t.Fatalf("Authenticator failure: %d, want 500", w.Code)
	}
	if got := usage.get(); len(got) != 0 {
		t.Errorf("recorded %+v, want nothing", got)
	}
}

// TestUsageWithMeter: the production recorder, account.Meter, adds no
// allocation to a keyed request.
func TestUsageWithMeter(t *testing.T) {
	measure := func(usage UsageRecorder) float64 {
		l := newLimited(t, Config{}, func(d *Deps) { d.Usage = usage })
		l.auth.set(keyA1, func(c *account.Caller) {
			c.AccountRef, c.KeyRef = 1, 10
			c.Limits = ratelimit.Limits{Hour: 1 << 40, Day: 1 << 40}
		})
		r := httptest.NewRequest("GET", cardPath, nil)
		r.Header.Set("X-API-Key", keyA1)
		w := &sink{h: http.Header{}}
		return testing.AllocsPerRun(500, func() { clear(w.h); l.h.ServeHTTP(w, r) })
	}
	without, with := measure(nil), measure(account.NewMeter(nil, nil))
	if with > without {
		t.Errorf("card detail: %.1f allocations with the meter, %.1f without", with, without)
	}
}
