package storetest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/status"
	"github.com/cardcat/cardcat/internal/store"
	"github.com/google/go-cmp/cmp"
)

// RunStatus checks status.Store: the checks (one per minute, whichever
// store records it first, the first one remembered through pruning), the
// uptime of a simulated 90-day history, and the incidents' timeline. open
// returns a new store on a new, empty database (a Reopener).
func RunStatus(t *testing.T, open func(t *testing.T) store.Store) {
	tests := []struct {
		name string
		test func(t *testing.T, s status.Store)
	}{
		{"Checks", testStatusChecks},
		{"OneCheckPerMinuteAcrossReplicas", testStatusOneCheckPerMinute},
		{"TwoProbers", testStatusTwoProbers},
		{"UptimeOf90Days", testStatusUptime},
		{"Incidents", testStatusIncidents},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := open(t)
			st, ok := s.(status.Store)
			if !ok {
				t.Fatalf("%T is not a status.Store", s)
			}
			tt.test(t, st)
		})
	}
}

func testStatusChecks(t *testing.T, s status.Store) {
	ctx := context.Background()
	if _, err := s.LatestCheck(ctx); !errors.Is(err, status.ErrNotFound) {
		t.Fatalf("LatestCheck of an empty store: %v, want ErrNotFound", err)
	}
	if _, err := s.FirstCheck(ctx); !errors.Is(err, status.ErrNotFound) {
		t.Fatalf("FirstCheck of an empty store: %v, want ErrNotFound", err)
	}
	m0 := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	record := func(c status.Check, want bool) {
		t.Helper()
		got, err := s.RecordCheck(ctx, c)
		if err != nil || got != want {
			t.Fatalf("RecordCheck(%v) = %v, %v; want %v", c.Minute, got, err, want)
		}
	}
	// A time within the minute is its minute.
	record(status.Check{Minute: m0.Add(17 * time.Second), OK: true, Status: 200, Latency: 1500 * time.Microsecond}, true)
	record(status.Check{Minute: m0, OK: false, Status: 500, Error: "500 from the other replica"}, false)
	record(status.Check{Minute: m0.Add(time.Minute), OK: false, Status: 503, Latency: 2 * time.Millisecond, Error: "503"}, true)
	record(status.Check{Minute: m0.Add(3 * time.Minute), OK: false, Error: "connection refused"}, true)

	if has, err := s.HasCheck(ctx, m0.Add(30*time.Second)); err != nil || !has {
		t.Errorf("HasCheck(m0) = %v, %v", has, err)
	}
	if has, err := s.HasCheck(ctx, m0.Add(2*time.Minute)); err != nil || has {
		t.Errorf("HasCheck(m0+2) = %v, %v", has, err)
	}
	latest, err := s.LatestCheck(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := status.Check{Minute: m0.Add(3 * time.Minute), Error: "connection refused"}
	if diff := cmp.Diff(want, latest); diff != "" {
		t.Errorf("LatestCheck (-want +got):\n%s", diff)
	}
	days, err := s.CheckDays(ctx, m0.Add(-24*time.Hour), m0.Add(24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	wantDays := []status.DayChecks{{Day: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), Recorded: 3, Up: 1}}
	if diff := cmp.Diff(wantDays, days); diff != "" {
		t.Errorf("CheckDays (-want +got):\n%s", diff)
	}
	// to is excluded.
	if days, err := s.CheckDays(ctx, m0, m0.Add(time.Minute)); err != nil || len(days) != 1 || days[0].Recorded != 1 {
		t.Errorf("CheckDays(m0, m0+1) = %+v, %v; want the one check of m0", days, err)
	}

	// Pruning forgets the checks, not the first one's minute.
	n, err := s.PruneChecks(ctx, m0.Add(2*time.Minute))
	if err != nil || n != 2 {
		t.Fatalf("PruneChecks = %d, %v; want 2", n, err)
	}
	first, err := s.FirstCheck(ctx)
	if err != nil || !first.Equal(m0) {
		t.Errorf("FirstCheck after pruning = %v, %v; want %v", first, err, m0)
	}
	if has, _ := s.HasCheck(ctx, m0); has {
		t.Error("the pruned minute still has its check")
	}
}

// testStatusOneCheckPerMinute: two replicas (two stores on one database)
// record the same minutes at once; each minute has one check, recorded by
// one of them.
func testStatusOneCheckPerMinute(t *testing.T, s status.Store) {
	ctx := context.Background()
	r, ok := s.(Reopener)
	if !ok {
		t.Fatalf("%T is not a Reopener", s)
	}
	other, err := r.Reopen(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	replicas := []status.Store{s, other.(status.Store)}
	m0 := time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
	const minutes = 20
	var mu sync.Mutex
	won := map[int64]int{}
	var wg sync.WaitGroup
	for i, st := range replicas {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for m := range minutes {
				minute := m0.Add(time.Duration(m) * time.Minute)
				got, err := st.RecordCheck(ctx, status.Check{Minute: minute, OK: i == 0, Status: 200, Error: fmt.Sprint("replica ", i)})
				if err != nil {
					t.Errorf("replica %d, minute %d: %v", i, m, err)
					return
				}
				if got {
					mu.Lock()
					won[minute.Unix()]++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if len(won) != minutes {
		t.Errorf("%d minutes recorded, want %d", len(won), minutes)
	}
	for m, n := range won {
		if n != 1 {
			t.Errorf("minute %v recorded by %d replicas", time.Unix(m, 0).UTC(), n)
		}
	}
	days, err := s.CheckDays(ctx, m0, m0.Add(24*time.Hour))
	if err != nil || len(days) != 1 || days[0].Recorded != minutes {
		t.Errorf("CheckDays = %+v, %v; want %d checks", days, err, minutes)
	}
}

// testStatusUptime simulates 90 days of checks and computes their uptime:
// the first check at 10:00 of the window's first day (that day counts from
// then), a whole day without checks (down), two hours of failed checks, a
// gap of 90 minutes, and today up to now (the current minute not counted).
func testStatusUptime(t *testing.T, s status.Store) {
	ctx := context.Background()
	now := time.Date(2026, 11, 28, 12, 30, 40, 0, time.UTC)
	start := status.WindowStart(now)
	if want := time.Date(2026, 8, 31, 0, 0, 0, 0, time.UTC); !start.Equal(want) {
		t.Fatalf("WindowStart = %v, want %v", start, want)
	}
	first := start.Add(10 * time.Hour)
	// The first check through the store; the rest in bulk, in SQL that
	// both dialects run.
	if ok, err := s.RecordCheck(ctx, status.Check{Minute: first, OK: true, Status: 200}); err != nil || !ok {
		t.Fatalf("RecordCheck: %v, %v", ok, err)
	}
	day := func(i int) time.Time { return start.AddDate(0, 0, i) }
	noCheckDay := day(30)
	failFrom, failTo := day(45).Add(3*time.Hour), day(45).Add(5*time.Hour)
	gapFrom, gapTo := day(60).Add(20*time.Hour), day(60).Add(21*time.Hour+30*time.Minute)
	end := status.UptimeEnd(now)
	bulk := fmt.Sprintf(`WITH RECURSIVE m(x) AS (SELECT %d UNION ALL SELECT x + 60 FROM m WHERE x + 60 < %d)
INSERT INTO status_checks (minute, ok, http_status, latency_us, error)
SELECT x, NOT (x >= %d AND x < %d), CASE WHEN x >= %d AND x < %d THEN 500 ELSE 200 END, 1000, ''
FROM m WHERE NOT (x >= %d AND x < %d) AND NOT (x >= %d AND x < %d)`,
		first.Unix()+60, end.Unix()+60, // the current minute has a check too: it must not count
		failFrom.Unix(), failTo.Unix(), failFrom.Unix(), failTo.Unix(),
		noCheckDay.Unix(), noCheckDay.AddDate(0, 0, 1).Unix(), gapFrom.Unix(), gapTo.Unix())
	if err := s.(Reopener).Exec(ctx, bulk); err != nil {
		t.Fatalf("inserting the history: %v", err)
	}
	counts, err := s.CheckDays(ctx, start, end)
	if err != nil {
		t.Fatal(err)
	}
	firstSeen, err := s.FirstCheck(ctx)
	if err != nil || !firstSeen.Equal(first) {
		t.Fatalf("FirstCheck = %v, %v; want %v", firstSeen, err, first)
	}
	u := status.ComputeUptime(counts, firstSeen, now)
	if len(u.Days) != status.WindowDays {
		t.Fatalf("%d days, want %d", len(u.Days), status.WindowDays)
	}
	const full = 24 * 60
	want := map[int]status.Day{
		0:  {Minutes: 14 * 60, Up: 14 * 60},             // from the first check on
		1:  {Minutes: full, Up: full},                   // a plain day
		30: {Minutes: full, NoCheck: full},              // nobody probed
		45: {Minutes: full, Up: full - 120},             // two hours of 500s
		60: {Minutes: full, Up: full - 90, NoCheck: 90}, // a gap
		89: {Minutes: 12*60 + 30, Up: 12*60 + 30},       // today, to 12:30 excluded
		88: {Minutes: full, Up: full},                   // yesterday
	}
	for i, w := range want {
		w.Date = day(i)
		if diff := cmp.Diff(w, u.Days[i]); diff != "" {
			t.Errorf("day %d (%s) (-want +got):\n%s", i, day(i).Format(time.DateOnly), diff)
		}
	}
	wantMinutes := 14*60 + 88*full + 12*60 + 30
	wantUp := wantMinutes - full - 120 - 90
	if u.Minutes != wantMinutes || u.Up != wantUp {
		t.Errorf("total %d of %d minutes up, want %d of %d", u.Up, u.Minutes, wantUp, wantMinutes)
	}
	if share, ok := u.Days[30].Share(); !ok || share != 0 {
		t.Errorf("the day without checks: share %v, %v; want 0", share, ok)
	}

	// Before the first check, nothing counts; after 90 days, the checks go.
	before := status.ComputeUptime(counts, firstSeen, first.Add(-48*time.Hour))
	if before.Minutes != 0 {
		t.Errorf("uptime before the first check counts %d minutes", before.Minutes)
	}
	n, err := s.PruneChecks(ctx, start.AddDate(0, 0, 1))
	if err != nil || n != 14*60 {
		t.Errorf("PruneChecks of the first day = %d, %v; want %d", n, err, 14*60)
	}
}

func testStatusIncidents(t *testing.T, s status.Store) {
	ctx := context.Background()
	t0 := time.Date(2026, 11, 3, 9, 0, 0, 123456789, time.UTC)
	if _, err := s.Incident(ctx, 1); !errors.Is(err, status.ErrNotFound) {
		t.Fatalf("Incident of an empty store: %v, want ErrNotFound", err)
	}
	if ins, err := s.Incidents(ctx, time.Time{}); err != nil || len(ins) != 0 {
		t.Fatalf("Incidents of an empty store = %v, %v", ins, err)
	}
	old := &status.Incident{Title: "Old", Impact: status.Minor,
		Updates: []status.Update{{State: status.Investigating, Message: "looking", At: t0.Add(-30 * 24 * time.Hour)}}}
	if err := s.OpenIncident(ctx, old); err != nil {
		t.Fatal(err)
	}
	if _, err := s.UpdateIncident(ctx, old.ID, status.Update{State: status.Resolved, Message: "fixed", At: t0.Add(-29 * 24 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	in := &status.Incident{Title: "Slow answers <in EU>", Impact: status.Major,
		Updates: []status.Update{{State: status.Investigating, Message: "We are looking into slow answers.\nMore soon.", At: t0}}}
	if err := s.OpenIncident(ctx, in); err != nil {
		t.Fatal(err)
	}
	if in.ID == 0 || in.ID == old.ID || in.State != status.Investigating || !in.CreatedAt.Equal(t0.Truncate(time.Microsecond)) {
		t.Fatalf("OpenIncident set %+v", in)
	}
	if _, err := s.UpdateIncident(ctx, in.ID, status.Update{State: status.Identified, Message: "A slow disk.", At: t0.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	got, err := s.UpdateIncident(ctx, in.ID, status.Update{State: status.Resolved, Message: "Replaced.", At: t0.Add(2 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	us := time.Microsecond
	want := status.Incident{ID: in.ID, Title: "Slow answers <in EU>", Impact: status.Major, State: status.Resolved,
		CreatedAt: t0.Truncate(us), UpdatedAt: t0.Add(2 * time.Hour).Truncate(us), ResolvedAt: t0.Add(2 * time.Hour).Truncate(us),
		Updates: []status.Update{
			{State: status.Investigating, Message: "We are looking into slow answers.\nMore soon.", At: t0.Truncate(us)},
			{State: status.Identified, Message: "A slow disk.", At: t0.Add(time.Hour).Truncate(us)},
			{State: status.Resolved, Message: "Replaced.", At: t0.Add(2 * time.Hour).Truncate(us)},
		}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the incident after its updates (-want +got):\n%s", diff)
	}
	if again, err := s.Incident(ctx, in.ID); err != nil || !cmp.Equal(again, got) {
		t.Errorf("Incident(%d) = %+v, %v; want what UpdateIncident returned", in.ID, again, err)
	}
	if _, err := s.UpdateIncident(ctx, in.ID, status.Update{State: status.Monitoring, Message: "x", At: t0.Add(3 * time.Hour)}); !errors.Is(err, status.ErrResolved) {
		t.Errorf("updating a resolved incident: %v, want ErrResolved", err)
	}
	if _, err := s.UpdateIncident(ctx, 999, status.Update{State: status.Monitoring, Message: "x", At: t0}); !errors.Is(err, status.ErrNotFound) {
		t.Errorf("updating an unknown incident: %v, want ErrNotFound", err)
	}

	open := &status.Incident{Title: "Still open", Impact: status.Critical,
		Updates: []status.Update{{State: status.Monitoring, Message: "watching", At: t0.Add(-60 * 24 * time.Hour)}}}
	if err := s.OpenIncident(ctx, open); err != nil {
		t.Fatal(err)
	}
	// Since t0 - 10 days: the one updated since, then the open one, however old.
	ins, err := s.Incidents(ctx, t0.Add(-10*24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, x := range ins {
		ids = append(ids, x.ID)
	}
	if diff := cmp.Diff([]int64{in.ID, open.ID}, ids); diff != "" {
		t.Errorf("Incidents since 10 days (-want +got ids):\n%s", diff)
	}
	if len(ins) == 2 && len(ins[0].Updates) != 3 {
		t.Errorf("Incidents: %d updates of the first, want 3", len(ins[0].Updates))
	}
	all, err := s.Incidents(ctx, time.Time{})
	if err != nil || len(all) != 3 {
		t.Errorf("Incidents since ever = %d, %v; want 3", len(all), err)
	}
}

// testStatusTwoProbers: two replicas' probers, on two stores of one
// database, check the same minutes at once; each minute gets one check,
// and a prober that finds its minute recorded sends no request.
func testStatusTwoProbers(t *testing.T, s status.Store) {
	ctx := context.Background()
	other, err := s.(Reopener).Reopen(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	var mu sync.Mutex
	requests := 0
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requests++
		mu.Unlock()
	}))
	defer api.Close()
	m0 := time.Date(2026, 11, 5, 8, 0, 0, 0, time.UTC)
	const minutes = 10
	probers := make([]*status.Prober, 2)
	var clock [2]time.Time
	for i, st := range []status.Store{s, other.(status.Store)} {
		probers[i] = &status.Prober{Store: st, URL: api.URL + "/health", Now: func() time.Time { return clock[i] }, Log: slog.New(slog.DiscardHandler)}
	}
	recorded := 0
	for m := range minutes {
		var wg sync.WaitGroup
		var got [2]bool
		for i, p := range probers {
			clock[i] = m0.Add(time.Duration(m)*time.Minute + time.Duration(i)*time.Second)
			wg.Add(1)
			go func() {
				defer wg.Done()
				var err error
				if _, got[i], err = p.Probe(ctx); err != nil {
					t.Errorf("prober %d, minute %d: %v", i, m, err)
				}
			}()
		}
		wg.Wait()
		if got[0] == got[1] {
			t.Errorf("minute %d: recorded by prober 0 %v, prober 1 %v; want exactly one", m, got[0], got[1])
		}
		for _, g := range got {
			if g {
				recorded++
			}
		}
		// The next prober of the minute finds it recorded: no request.
		before := requests
		if _, again, err := probers[m%2].Probe(ctx); err != nil || again || requests != before {
			t.Errorf("minute %d probed again: recorded %v, %d requests, %v", m, again, requests-before, err)
		}
	}
	days, err := s.CheckDays(ctx, m0, m0.Add(time.Hour))
	if err != nil || len(days) != 1 || days[0].Recorded != minutes || days[0].Up != minutes || recorded != minutes {
		t.Errorf("CheckDays = %+v, %v (%d recorded); want %d checks, all up", days, err, recorded, minutes)
	}
}
