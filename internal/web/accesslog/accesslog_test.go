package accesslog

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/config"
	"github.com/cardcat/cardcat/internal/web"
)

// slogLine is what slog's text or JSON handler writes for e.
func slogLine(t testing.TB, e *web.AccessEntry, json bool) string {
	var buf bytes.Buffer
	var h slog.Handler = slog.NewTextHandler(&buf, nil)
	if json {
		h = slog.NewJSONHandler(&buf, nil)
	}
	r := slog.NewRecord(e.Time, slog.LevelInfo, "request", 0)
	r.AddAttrs(e.Attrs(e.Duration)...)
	if err := h.Handle(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func accessEntries() []web.AccessEntry {
	at := time.Date(2026, 11, 22, 4, 5, 6, 789_654_321, time.UTC)
	return []web.AccessEntry{
		{Time: at, RequestID: "1a2b3c4d-5f", Method: "GET", Path: "/dbs/cards/dbs_00ab12cd34ef5678", Status: 200,
			Bytes: 1834, Duration: 1234567 * time.Nanosecond, Remote: "127.0.0.1:54321", Account: "42"},
		{Time: at.In(time.FixedZone("CET", 3600)), RequestID: "caller.id_7", Method: "POST", Path: "/mtg/search?q=l%C3%A9gion+d=1&x=\"y\"",
			Status: 405, Bytes: 0, Duration: 0, Remote: "[::1]:8080", Account: ""},
		{Time: at, RequestID: "r", Method: "GET", Path: "/dbs/search?q=goku vegeta\\n\t\x01é\u2028\xff<b>&", Status: 429,
			Bytes: 512, Duration: 2*time.Minute + 5*time.Millisecond, Remote: "", Account: "ac count=1"},
		{RequestID: "no-time", Method: "GET", Path: "/", Status: 200, Bytes: 10, Duration: 999, Remote: "10.0.0.1:1", Account: "7"},
	}
}

// The access log's lines are byte for byte the slog handlers' lines, so
// that switching the access log to its own writer changed nothing for
// whoever reads the logs.
func TestAccessLogMatchesSlog(t *testing.T) {
	for _, e := range accessEntries() {
		if got, want := string(appendText(nil, &e)), slogLine(t, &e, false); got != want {
			t.Errorf("text:\n got %s\nwant %s", got, want)
		}
		if got, want := string(appendJSON(nil, &e)), slogLine(t, &e, true); got != want {
			t.Errorf("json:\n got %s\nwant %s", got, want)
		}
	}
}

func FuzzAccessLogMatchesSlog(f *testing.F) {
	for _, e := range accessEntries() {
		f.Add(e.RequestID, e.Path, e.Remote, e.Account, int64(e.Duration))
	}
	f.Fuzz(func(t *testing.T, id, path, remote, acct string, d int64) {
		e := web.AccessEntry{Time: time.Unix(1_790_000_000, d%1e9).UTC(), RequestID: id, Method: "GET", Path: path,
			Status: 200, Bytes: len(path), Duration: time.Duration(d), Remote: remote, Account: acct}
		if got, want := string(appendText(nil, &e)), slogLine(t, &e, false); got != want {
			t.Errorf("text:\n got %s\nwant %s", got, want)
		}
		if got, want := string(appendJSON(nil, &e)), slogLine(t, &e, true); got != want {
			t.Errorf("json:\n got %s\nwant %s", got, want)
		}
	})
}

// The access log follows the log's level and format.
func TestAccessLogLevelAndFormat(t *testing.T) {
	e := accessEntries()[0]
	for _, c := range []struct {
		cfg  config.Log
		want string // a prefix of the line; "" means no line
	}{
		{config.Log{}, "time="},
		{config.Log{JSON: true}, `{"time":`},
		{config.Log{Level: slog.LevelDebug}, "time="},
		{config.Log{Level: slog.LevelWarn}, ""},
		{config.Log{Level: slog.LevelError, JSON: true}, ""},
	} {
		var buf bytes.Buffer
		New(c.cfg, &buf)(e)
		if c.want == "" && buf.Len() != 0 || !strings.HasPrefix(buf.String(), c.want) {
			t.Errorf("%+v: wrote %q, want a line starting %q", c.cfg, buf.String(), c.want)
		}
	}
	if New(config.Log{}, nil) != nil {
		t.Error("without a writer: an access log, want nil (httpapi's slog Logger)")
	}
}

// BenchmarkAccessLog compares the access log's writer with the slog call
// it replaced, in one run (go test ./internal/web/accesslog -run XXX -bench AccessLog).
func BenchmarkAccessLog(b *testing.B) {
	e := accessEntries()[0]
	b.Run("slog", func(b *testing.B) {
		buf := NewBuffer(discard{})
		log := slog.New(buf.FlushOnWarn(slog.NewTextHandler(buf, nil)))
		ctx := context.Background()
		b.ReportAllocs()
		for b.Loop() {
			log.LogAttrs(ctx, slog.LevelInfo, "request", e.Attrs(e.Duration)...)
		}
	})
	b.Run("accesslog", func(b *testing.B) {
		write := New(config.Log{}, NewBuffer(discard{}))
		b.ReportAllocs()
		for b.Loop() {
			e.Time = time.Now()
			write(e)
		}
	})
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// The stamps write what AppendFormat writes with slog's two layouts, for
// times in one second and across seconds, in several locations (a zone's
// offset changes within the day of a daylight-saving change), with every
// kind of fraction (none, trailing zeros, nine digits).
func TestStampMatchesAppendFormat(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		ny = time.FixedZone("EST", -5*3600) // no zone database here: still a second location
	}
	locs := []*time.Location{time.UTC, time.FixedZone("CET", 3600), time.FixedZone("odd", -(9*3600 + 30*60)), ny}
	base := time.Date(2026, 3, 8, 6, 59, 58, 0, time.UTC) // New York's change to daylight time is at 07:00 UTC
	nanos := []int{0, 1, 10, 100_000, 1_000_000, 5_000_000, 120_000_000, 999_999_999, 789_654_321, 500_000_000}
	for _, loc := range locs {
		for s := 0; s < 5; s++ {
			for _, ns := range nanos {
				at := base.Add(time.Duration(s)*time.Second + time.Duration(ns)).In(loc)
				for _, c := range []struct {
					st     *stamp
					layout string
				}{{textStamp, slogTime}, {jsonStamp, time.RFC3339Nano}} {
					if got, want := string(c.st.append([]byte("x"), at)), "x"+at.Format(c.layout); got != want {
						t.Errorf("%v (%s): got %s, want %s", at, c.layout, got, want)
					}
				}
			}
		}
	}
}
