package poll

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestTracker: an outage is logged once when it starts (WARN, with the
// error) and once when it ends (INFO, with its length and its failures); the
// failures between are DEBUG; LastSuccess and FailingSince follow; a refresh
// cut short by shutdown is not a failure.
func TestTracker(t *testing.T) {
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug,
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		}}))
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	tr := NewTracker("catalogue refresh", "still serving the version loaded last", log, func() time.Time { return now })
	ctx := context.Background()
	down := errors.New("postgres: catalog version: connection refused")

	if !tr.LastSuccess().IsZero() || !tr.FailingSince().IsZero() {
		t.Fatal("a new tracker has a success or a failure")
	}
	tr.Record(ctx, nil)
	ok := now
	for range 3 {
		now = now.Add(5 * time.Second)
		tr.Record(ctx, down)
	}
	if got := tr.FailingSince(); !got.Equal(ok.Add(5 * time.Second)) {
		t.Errorf("FailingSince = %v, want the first failure", got)
	}
	if got := tr.LastSuccess(); !got.Equal(ok) {
		t.Errorf("LastSuccess = %v during the outage, want the last success %v", got, ok)
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	tr.Record(canceled, context.Canceled)
	now = now.Add(5 * time.Second)
	tr.Record(ctx, nil)
	if !tr.FailingSince().IsZero() || !tr.LastSuccess().Equal(now) {
		t.Errorf("after recovery: failing since %v, last success %v", tr.FailingSince(), tr.LastSuccess())
	}
	tr.Record(ctx, nil)

	want := []string{
		`level=WARN msg="catalogue refresh failing; still serving the version loaded last (logged once per outage)" err="postgres: catalog version: connection refused" last_success=2026-11-25T12:00:00.000Z`,
		`level=DEBUG msg="catalogue refresh still failing" for=5s failures=2 err="postgres: catalog version: connection refused"`,
		`level=DEBUG msg="catalogue refresh still failing" for=10s failures=3 err="postgres: catalog version: connection refused"`,
		`level=INFO msg="catalogue refresh recovered" outage=15s failures=3`,
	}
	got := strings.Split(strings.TrimSpace(logs.String()), "\n")
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("log:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if regexp.MustCompile(`(?i)cancel`).MatchString(logs.String()) {
		t.Error("a refresh cut short by shutdown was logged")
	}
}

// TestTrackerAttempts: of several loops sharing a tracker, a failure whose
// attempt began before another attempt's success was recorded (reported
// late) is not a new outage; an attempt begun after the success that fails
// is one; failures of attempts begun during an outage count in it.
func TestTrackerAttempts(t *testing.T) {
	var logs bytes.Buffer
	tr := NewTracker("webhook queue", "deliveries wait", slog.New(slog.NewTextHandler(&logs, nil)), nil)
	ctx := context.Background()
	busy := errors.New("database is locked")

	a, b := tr.Begin(), tr.Begin()
	a.Record(ctx, busy) // the outage starts
	c, d := tr.Begin(), tr.Begin()
	c.Record(ctx, busy)         // during it: counted
	tr.Begin().Record(ctx, nil) // the store answers again
	b.Record(ctx, busy)         // begun before the outage, told after the recovery
	d.Record(ctx, busy)         // begun during the outage, told after the recovery
	if !tr.FailingSince().IsZero() {
		t.Fatalf("late failures made a new outage:\n%s", logs.String())
	}
	out := logs.String()
	if strings.Count(out, "level=WARN") != 1 || strings.Count(out, "recovered") != 1 || !strings.Contains(out, "failures=2") {
		t.Fatalf("want one outage of two failures logged:\n%s", out)
	}
	tr.Begin().Record(ctx, busy) // a new outage
	if tr.FailingSince().IsZero() || strings.Count(logs.String(), "level=WARN") != 2 {
		t.Fatalf("a failure begun after the recovery is not a new outage:\n%s", logs.String())
	}
}
