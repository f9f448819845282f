package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/blob/fileblob"
	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/images"
)

// logCounter is a slog.Handler that keeps the records at INFO or above but
// the access log's.
type logCounter struct {
	mu       sync.Mutex
	messages []string
}

func (l *logCounter) Enabled(_ context.Context, lv slog.Level) bool { return lv >= slog.LevelInfo }
func (l *logCounter) WithAttrs([]slog.Attr) slog.Handler            { return l }
func (l *logCounter) WithGroup(string) slog.Handler                 { return l }
func (l *logCounter) Handle(_ context.Context, r slog.Record) error {
	if r.Message == "request" {
		return nil
	}
	l.mu.Lock()
	l.messages = append(l.messages, r.Level.String()+" "+r.Message)
	l.mu.Unlock()
	return nil
}

// TestImageOutage: 4,500 image requests while the source fails are 4,500
// 502s with a Retry-After of a few seconds, logged as one outage (two lines),
// not once each; the first image comes seconds after the source is back.
func TestImageOutage(t *testing.T) {
	cdn := newFakeCDN(t)
	logs := &logCounter{}
	log := slog.New(logs)
	var mu sync.Mutex
	now := testNow
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	st, err := fileblob.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	svc, err := images.New(images.Config{SourceURL: cdn.srv.URL + "/product/{productId}_in_1000x1000.jpg"},
		st, images.WithClock(clock), images.WithLogger(log))
	if err != nil {
		t.Fatal(err)
	}
	deps := testDeps(mustView(t, mustFixture(t)))
	deps.Images, deps.Logger = svc, log
	h := mustServer(t, Config{}, deps)
	paths := []string{"/dbs/images/" + catalog.TCGCardID("dbs", 535600), "/mtg/images/" + firstMTGImage(t)}

	cdn.status.Store(http.StatusInternalServerError)
	const answers = 4500
	badRetryAfter := 0
	for i := range answers {
		w := get(h, paths[i%len(paths)])
		if w.Code != http.StatusBadGateway {
			t.Fatalf("answer %d with the source down: %d %s", i, w.Code, w.Body)
		}
		if s, err := strconv.Atoi(w.Header().Get("Retry-After")); err != nil || s < 1 || s > 4 {
			badRetryAfter++
		}
		advance(10 * time.Millisecond) // 4,500 answers in 45 s
	}
	cdn.status.Store(0)
	back := clock()
	for get(h, paths[0]).Code != http.StatusOK {
		advance(100 * time.Millisecond)
		if clock().Sub(back) > 2*time.Minute {
			t.Fatal("no image 2 minutes after the source came back")
		}
	}
	recovered := clock().Sub(back)
	logs.mu.Lock()
	lines := logs.messages
	logs.mu.Unlock()
	t.Logf("%d answers 502: %d log lines at INFO or above; first image %v after the source came back", answers, len(lines), recovered)
	if badRetryAfter > 0 {
		t.Errorf("%d of %d 502s without a Retry-After of 1 to 4 seconds", badRetryAfter, answers)
	}
	if len(lines) != 2 {
		t.Errorf("log lines at INFO or above: %d %q, want 2 (the outage's start and end)", len(lines), lines[:min(4, len(lines))])
	}
	if recovered > 5*time.Second {
		t.Errorf("first image %v after the source came back, want within 5 s", recovered)
	}
}
