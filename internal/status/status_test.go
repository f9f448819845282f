package status_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/status"
	"github.com/cardcat/cardcat/internal/store/sqlite"
	"github.com/cardcat/cardcat/internal/testkit"
)

func openStore(t *testing.T) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "cardcat.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

var quiet = slog.New(slog.DiscardHandler)

// TestProbeRecordsFailures: a chain that answers 500 and a closed listener
// are down minutes, with why; a 200 is up; a minute already recorded (by
// another replica) is not checked again.
func TestProbeRecordsFailures(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	answer := http.StatusInternalServerError
	requests := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests++
		if r.URL.Path != "/health" || r.Header.Get("User-Agent") != "cardcat-status-probe/test" {
			t.Errorf("the probe asked %s with User-Agent %q", r.URL.Path, r.Header.Get("User-Agent"))
		}
		w.WriteHeader(answer)
	}))
	defer srv.Close()
	now := time.Date(2026, 11, 28, 10, 0, 5, 0, time.UTC)
	p := &status.Prober{Store: st, URL: srv.URL + "/health", UserAgent: "cardcat-status-probe/test", Now: func() time.Time { return now }, Log: quiet}

	c, recorded, err := p.Probe(ctx)
	if err != nil || !recorded || c.OK || c.Status != 500 || !strings.Contains(c.Error, "answered 500") {
		t.Fatalf("a 500: %+v, %v, %v", c, recorded, err)
	}
	if _, recorded, _ := p.Probe(ctx); recorded || requests != 1 {
		t.Errorf("the same minute again: recorded %v after %d requests, want neither", recorded, requests)
	}

	now = now.Add(time.Minute)
	answer = http.StatusOK
	if c, recorded, err := p.Probe(ctx); err != nil || !recorded || !c.OK || c.Status != 200 || c.Error != "" {
		t.Errorf("a 200: %+v, %v, %v", c, recorded, err)
	}

	// A listener that is closed: nothing answers.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	now = now.Add(time.Minute)
	p.URL = "http://" + addr + "/health"
	c, recorded, err = p.Probe(ctx)
	if err != nil || !recorded || c.OK || c.Status != 0 || !strings.Contains(c.Error, "connection refused") {
		t.Errorf("a closed listener: %+v, %v, %v", c, recorded, err)
	}
	days, err := st.CheckDays(ctx, now.Add(-time.Hour), now.Add(time.Hour))
	if err != nil || len(days) != 1 || days[0].Recorded != 3 || days[0].Up != 1 {
		t.Errorf("recorded %+v, %v; want 3 checks, 1 up", days, err)
	}
}

// TestUptimeWithoutChecks: before any check, nothing counts.
func TestUptimeWithoutChecks(t *testing.T) {
	u := status.ComputeUptime(nil, time.Time{}, time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC))
	if len(u.Days) != status.WindowDays || u.Minutes != 0 {
		t.Fatalf("%d days, %d minutes; want %d days, none counted", len(u.Days), u.Minutes, status.WindowDays)
	}
	if _, ok := u.Share(); ok {
		t.Error("a share without minutes")
	}
}

// TestPage: the JSON, the page and the feed say the same: the checks'
// state and uptime, the catalogue, the last ingest and the incidents.
func TestPage(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	now := time.Date(2026, 11, 28, 12, 0, 30, 0, time.UTC)
	for m := 10; m >= 1; m-- {
		at := now.Add(-time.Duration(m) * time.Minute)
		if _, err := st.RecordCheck(ctx, status.Check{Minute: at, OK: m != 5, Status: map[bool]int{true: 200, false: 503}[m != 5], Latency: 1500 * time.Microsecond}); err != nil {
			t.Fatal(err)
		}
	}
	in := &status.Incident{Title: "Slow <answers>", Impact: status.Major,
		Updates: []status.Update{{State: status.Investigating, Message: "Looking.", At: now.Add(-time.Hour)}}}
	if err := st.OpenIncident(ctx, in); err != nil {
		t.Fatal(err)
	}
	page := &status.Page{Store: st, PublicURL: "https://api.example.com", Version: "v9", Now: func() time.Time { return now }, Log: quiet,
		Catalogue: func() []status.Game {
			return []status.Game{{Code: "dbs", Name: "Dragon Ball Super Card Game", Version: 4, UpdatedAt: now.Add(-2 * time.Hour), Sets: 6, Cards: 1043}}
		},
		LastIngest: func(context.Context) (status.Ingest, bool, error) {
			return status.Ingest{Version: 4, At: now.Add(-2 * time.Hour), Data: "sample", Failed: true, FailedAt: now.Add(-time.Hour), Error: "tcgcsv.com: 502"}, true, nil
		}}
	get := func(path string) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		page.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		return w
	}
	w := get("/status.json")
	var j struct {
		Status    string            `json:"status"`
		Indicator string            `json:"indicator"`
		LastCheck struct{ OK bool } `json:"last_check"`
		Catalogue []struct {
			Game       string
			AgeSeconds int64 `json:"age_seconds"`
		} `json:"catalogue"`
		LastIngest struct{ Outcome, Error string } `json:"last_ingest"`
		Uptime     struct {
			Percent *float64 `json:"percent"`
			Minutes int      `json:"minutes"`
			Daily   []struct {
				Date    string   `json:"date"`
				Percent *float64 `json:"percent"`
			} `json:"daily"`
		} `json:"uptime"`
		Incidents []struct {
			ID      int64
			Updates []struct{ Message string }
		} `json:"incidents"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &j); err != nil || w.Code != 200 {
		t.Fatalf("%d %v\n%s", w.Code, err, w.Body)
	}
	if j.Status != "up" || j.Indicator != "major" || !j.LastCheck.OK || len(j.Catalogue) != 1 || j.Catalogue[0].AgeSeconds != 7200 ||
		j.LastIngest.Outcome != "failed" || j.LastIngest.Error != "tcgcsv.com: 502" || len(j.Incidents) != 1 || j.Incidents[0].Updates[0].Message != "Looking." {
		t.Errorf("status.json: %+v", j)
	}
	// 10 minutes counted, one down: 90%.
	if j.Uptime.Minutes != 10 || j.Uptime.Percent == nil || *j.Uptime.Percent != 90 || len(j.Uptime.Daily) != 90 ||
		j.Uptime.Daily[0].Percent != nil || j.Uptime.Daily[89].Date != "2026-11-28" {
		t.Errorf("uptime: %+v", j.Uptime)
	}

	w = get("/status")
	html := w.Body.String()
	for _, want := range []string{"The API is up.", "Slow &lt;answers&gt;", "Looking.", "90.000%", `id="incident-1"`,
		`<link rel="alternate" type="application/atom+xml" title="cardcat API incidents" href="/status/incidents.atom">`,
		`href="/status" aria-current="page"`, "tcgcsv.com: 502", "Dragon Ball Super Card Game"} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if n := strings.Count(html, `<li class="uptime-`); n != 90 {
		t.Errorf("%d days in the bar, want 90", n)
	}
	if csp := w.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") {
		t.Errorf("CSP %q", csp)
	}

	w = get("/status/incidents.atom")
	ids := testkit.CheckAtom(t, w.Body.Bytes())
	if len(ids) != 1 || ids[0] != "https://api.example.com/status#incident-1" {
		t.Errorf("feed ids %v", ids)
	}

	if w := get("/status/nope"); w.Code != http.StatusNotFound {
		t.Errorf("/status/nope: %d", w.Code)
	}
	w = httptest.NewRecorder()
	page.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/status", nil))
	if w.Code != http.StatusMethodNotAllowed || w.Header().Get("Allow") != "GET, HEAD" {
		t.Errorf("POST /status: %d, Allow %q", w.Code, w.Header().Get("Allow"))
	}

	// No check for more than StaleAfter: unknown.
	now = now.Add(status.StaleAfter + time.Minute)
	w = get("/status.json")
	body, _ := io.ReadAll(w.Body)
	if !strings.Contains(string(body), `"status": "unknown"`) {
		t.Errorf("stale checks: %s", body[:200])
	}
}

// downStore is a store whose database is down.
type downStore struct{ status.Store }

var errDown = errors.New("connection refused")

func (downStore) LatestCheck(context.Context) (status.Check, error) { return status.Check{}, errDown }
func (downStore) FirstCheck(context.Context) (time.Time, error)     { return time.Time{}, errDown }
func (downStore) Incidents(context.Context, time.Time) ([]status.Incident, error) {
	return nil, errDown
}
func (downStore) CheckDays(context.Context, time.Time, time.Time) ([]status.DayChecks, error) {
	return nil, errDown
}

// TestPageStoreDown: with the store down, the page still answers, says
// what it could not read, and tells nothing of the failure's detail.
func TestPageStoreDown(t *testing.T) {
	page := &status.Page{Store: downStore{}, PublicURL: "http://localhost:8080", Now: time.Now, Log: quiet}
	for path, want := range map[string]string{"/status": "The uptime could not be read.", "/status.json": `"status": "unknown"`} {
		w := httptest.NewRecorder()
		page.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		if w.Code != 200 || !strings.Contains(w.Body.String(), want) || strings.Contains(w.Body.String(), "connection refused") {
			t.Errorf("%s: %d, want 200 with %q and no detail:\n%.400s", path, w.Code, want, w.Body)
		}
	}
	w := httptest.NewRecorder()
	page.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/status/incidents.atom", nil))
	testkit.CheckAtom(t, w.Body.Bytes())
}
