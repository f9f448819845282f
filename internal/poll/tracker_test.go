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
