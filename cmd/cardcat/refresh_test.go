package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/schedule"
)

// The scheduled refresh end to end: two replicas (`serve` in process) on one
// store, with --refresh-at due on a shifted clock, ingest from a local
// upstream that serves the sample in the live sources' URL layout. Exactly
// one replica ingests and both serve the new version; then a broken upstream
// file leaves the good version served, and the failure is counted and logged.

const sampleMirror = "../../sample"

// sampleUpstream serves the sample mirror as tcgcsv and Cardmarket do, and
// counts the requests of each path. broken cuts the price guides in half: a
// partial file that does not parse.
type sampleUpstream struct {
	*httptest.Server
	mu       sync.Mutex
	requests map[string]int
	broken   atomic.Bool
}

func newSampleUpstream(t *testing.T) *sampleUpstream {
	t.Helper()
	u := &sampleUpstream{requests: map[string]int{}}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.mu.Lock()
		u.requests[r.URL.Path]++
		u.mu.Unlock()
		var file string
		switch p := r.URL.Path; {
		case strings.HasPrefix(p, "/tcgcsv/tcgplayer/"):
			file = strings.TrimPrefix(p, "/tcgcsv/") + ".json"
		case strings.HasPrefix(p, "/cm/productList/products_"), strings.HasPrefix(p, "/cm/priceGuide/price_guide_"):
			base := filepath.Base(p) // products_singles_13.json
			i := strings.LastIndex(base, "_")
			file = "cardmarket/" + strings.TrimSuffix(base[i+1:], ".json") + "/" + base[:i] + ".json"
		default:
			http.NotFound(w, r)
			return
		}
		b, err := os.ReadFile(filepath.Join(sampleMirror, filepath.FromSlash(file)))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		if u.broken.Load() && strings.Contains(file, "price_guide") {
			b = b[:len(b)/2]
		}
		w.Write(b)
	}))
	t.Cleanup(u.Close)
	return u
}

// fetches is how many times each path was requested; reset clears them.
func (u *sampleUpstream) fetches(reset bool) map[string]int {
	u.mu.Lock()
	defer u.mu.Unlock()
	m := u.requests
	if reset {
		u.requests = map[string]int{}
	}
	return m
}

// shiftedClock is the wall clock moved by an offset the test changes.
type shiftedClock struct{ offset atomic.Int64 }

func (c *shiftedClock) Now() time.Time { return time.Now().Add(time.Duration(c.offset.Load())) }

// jumpTo moves the clock to at.
func (c *shiftedClock) jumpTo(at time.Time) { c.offset.Store(int64(time.Until(at))) }

// outcomes collects the scheduler's outcomes of every replica.
type outcomes struct {
	mu   sync.Mutex
	seen []schedule.Status
}

func (o *outcomes) add(st schedule.Status) { o.mu.Lock(); o.seen = append(o.seen, st); o.mu.Unlock() }

func (o *outcomes) all() []schedule.Status {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]schedule.Status(nil), o.seen...)
}

// startServeCfg runs serve with args (parsed by parseServe, as main does),
// then tune applied to its configuration, and waits until it listens.
func startServeCfg(t *testing.T, args []string, tune func(*serveConfig)) *server {
	t.Helper()
	pr, pw := io.Pipe()
	env, stderr, finishLogs := inProcessEnv(nil, pw)
	cfg, err := parseServe(env, append([]string{"--addr", "127.0.0.1:0"}, args...))
	if err != nil {
		t.Fatal(err)
	}
	tune(cfg)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- serve(ctx, env, cfg)
		pw.Close()
	}()
	return awaitListening(t, pr, stderr, cancel, done, finishLogs)
}

// catalogueOf is /health's catalogue.
func catalogueOf(t *testing.T, s *server) (int64, time.Time) {
	t.Helper()
	_, body := get(t, s.url+"/health")
	var h struct {
		Catalogue *struct {
			Version   int64
			UpdatedAt time.Time `json:"updated_at"`
		}
	}
	if err := json.Unmarshal(body, &h); err != nil || h.Catalogue == nil {
		t.Fatalf("/health: %v: %s", err, body)
	}
	return h.Catalogue.Version, h.Catalogue.UpdatedAt
}

func TestScheduledRefreshPostgres(t *testing.T) {
	t.Parallel()
	testScheduledRefresh(t, []string{"--database-url", postgresSchema(t)})
}

// Two serves on one SQLite file: the lock file keeps the second from
// ingesting too.
func TestScheduledRefreshSQLite(t *testing.T) {
	t.Parallel()
	testScheduledRefresh(t, []string{"--database-url", "sqlite:" + filepath.Join(t.TempDir(), "shared.db")})
}

func testScheduledRefresh(t *testing.T, storeArgs []string) {
	up := newSampleUpstream(t)
	clock := &shiftedClock{}
	// Due two minutes from now: not yet at start (the sample, loaded at
	// start, is newer than the last due time), so nothing runs until the
	// test moves the clock.
	due := time.Now().UTC().Truncate(time.Minute).Add(2 * time.Minute)
	var seen outcomes
	start := func() *server {
		args := append([]string{"--data-dir", t.TempDir(), "--refresh-interval", "100ms",
			"--refresh-at", due.Format("15:04"),
			"--tcgplayer-url", up.URL + "/tcgcsv", "--cardmarket-url", up.URL + "/cm", "--local-dir", sampleMirror,
			"--admin-addr", "127.0.0.1:0"}, storeArgs...)
		return startServeCfg(t, args, func(cfg *serveConfig) {
			cfg.now = clock.Now
			cfg.scheduled.checkEvery = 20 * time.Millisecond
			cfg.scheduled.backoff = 10 * time.Millisecond
			cfg.scheduled.attempts = 2
			cfg.scheduled.onOutcome = seen.add
		})
	}
	// One after the other: the first loads the sample into the empty store.
	replicas := []*server{start(), start()}
	for _, r := range replicas {
		if v, _ := catalogueOf(t, r); v != 1 {
			t.Fatalf("before the refresh: version %d, want the sample's (1)", v)
		}
	}
	time.Sleep(100 * time.Millisecond) // a few checks of the clock: not due yet
	if got := seen.all(); len(got) != 0 || len(up.fetches(false)) != 0 {
		t.Fatalf("ran before it was due: %+v, fetched %v", got, up.fetches(false))
	}

	// Due: exactly one replica ingests, the other skips; both serve it.
	clock.jumpTo(due.Add(time.Second))
	poll(t, 30*time.Second, 20*time.Millisecond, "both replicas to report the due run", func() bool { return len(seen.all()) == 2 })
	runs := map[schedule.Outcome]int{}
	for _, st := range seen.all() {
		runs[st.LastOutcome]++
		if !st.LastDue.Equal(due) {
			t.Errorf("due %s, want %s", st.LastDue, due)
		}
	}
	if runs[schedule.OK] != 1 || runs[schedule.SkippedLock]+runs[schedule.SkippedDone] != 1 {
		t.Fatalf("outcomes %v, want one ok and one skipped\n%s\n%s", runs, replicas[0].stderr, replicas[1].stderr)
	}
	for path, n := range up.fetches(true) {
		if n != 1 {
			t.Errorf("%s fetched %d times: more than one ingest", path, n)
		}
	}
	for i, r := range replicas {
		poll(t, 10*time.Second, 20*time.Millisecond, "the new version served", func() bool { v, _ := catalogueOf(t, r); return v == 2 })
		if _, at := catalogueOf(t, r); at.Before(due) {
			t.Errorf("replica %d: updated_at %s, before the due time %s", i, at, due)
		}
	}
	doneLines := func() (n int) {
		for _, r := range replicas {
			n += strings.Count(r.stderr.String(), `msg="scheduled refresh done"`)
		}
		return n
	}
	// A replica may serve the new version (it polls the store) before the run
	// that wrote it has returned and logged its line: wait for the line.
	poll(t, 5*time.Second, 20*time.Millisecond, `the "scheduled refresh done" line`, func() bool { return doneLines() >= 1 })
	if done := doneLines(); done != 1 {
		t.Errorf(`%d "scheduled refresh done" lines, want 1`, done)
	}
	// The metrics say the same: one run succeeded (version 2, with its
	// counts), the other skipped.
	ingested := map[string]float64{}
	for _, r := range replicas {
		fams := scrape(t, adminURL(t, r))
		for _, o := range []string{"succeeded", "skipped", "failed"} {
			v, _ := metricValue(fams, "cardcat_ingest_runs_total", "outcome", o)
			ingested[o] += v
		}
		if v, _ := metricValue(fams, "cardcat_ingest_runs_total", "outcome", "succeeded"); v == 1 {
			wantMetric(t, fams, 2, "cardcat_ingest_last_version")
			if n, _ := metricValue(fams, "cardcat_ingest_last_count", "game", "mtg", "what", "cards"); n <= 0 {
				t.Errorf("cardcat_ingest_last_count{game=mtg,what=cards} %v, want the ingested cards", n)
			}
		}
	}
	if ingested["succeeded"] != 1 || ingested["skipped"] != 1 || ingested["failed"] != 0 {
		t.Errorf("cardcat_ingest_runs_total over both replicas: %v, want 1 succeeded and 1 skipped", ingested)
	}

	// A day later the price guides come cut in half: each replica whose turn
	// comes tries (within its attempts), none writes, the good version stays.
	up.broken.Store(true)
	clock.jumpTo(due.AddDate(0, 0, 1).Add(time.Second))
	poll(t, 30*time.Second, 20*time.Millisecond, "both replicas to report the second due run", func() bool { return len(seen.all()) == 4 })
	var failed int
	for _, st := range seen.all()[2:] {
		switch st.LastOutcome {
		case schedule.Failed:
			failed++
			if st.LastAttempts != 2 || !strings.Contains(st.LastError, "price_guide") || st.Runs[schedule.Failed] != 1 {
				t.Errorf("failed run: %+v", st)
			}
		case schedule.SkippedLock:
		default:
			t.Errorf("outcome %s of a broken upstream", st.LastOutcome)
		}
	}
	if failed == 0 {
		t.Error("no replica counted the failed refresh")
	}
	time.Sleep(300 * time.Millisecond) // three refresh intervals: a new version would be picked up
	var failLines int
	for _, r := range replicas {
		if v, at := catalogueOf(t, r); v != 2 || at.After(due.Add(time.Minute)) {
			t.Errorf("after the failed refresh: version %d of %s, want 2 of the first run", v, at)
		}
		failLines += strings.Count(r.stderr.String(), `level=ERROR msg="scheduled refresh failed; still serving the previous catalogue"`)
	}
	if failLines != failed {
		t.Errorf("%d failure lines for %d failed runs", failLines, failed)
	}
	var failedRuns float64
	for _, r := range replicas {
		v, _ := metricValue(scrape(t, adminURL(t, r)), "cardcat_ingest_runs_total", "outcome", "failed")
		failedRuns += v
	}
	if int(failedRuns) != failed {
		t.Errorf("cardcat_ingest_runs_total{outcome=\"failed\"} %v over both replicas, want %d", failedRuns, failed)
	}
}

// TestParseRefreshAt: --refresh-at from the environment (a comma list) or
// the flags (repeated, or lists), which replace the environment's; the
// upstream flags are ingest's.
func TestParseRefreshAt(t *testing.T) {
	for _, tt := range []struct {
		env  map[string]string
		args []string
		want string
	}{
		{nil, nil, ""},
		{map[string]string{"CARDCAT_REFRESH_AT": "15:30, 03:00"}, nil, "03:00,15:30"},
		{map[string]string{"CARDCAT_REFRESH_AT": "15:30"}, []string{"--refresh-at", "04:00", "--refresh-at", "02:00,04:00"}, "02:00,04:00"},
	} {
		env, _ := configEnv(tt.env)
		cfg, err := parseServe(env, tt.args)
		if err != nil || cfg.scheduled.at.String() != tt.want {
			t.Errorf("%v %v: %v, %v; want %q", tt.env, tt.args, cfg.scheduled.at, err, tt.want)
		}
	}
	env, _ := configEnv(map[string]string{"CARDCAT_TCGPLAYER_URL": "http://tcg.test", "CARDCAT_HISTORY_DAYS": "0"})
	cfg, err := parseServe(env, []string{"--cardmarket-url", "http://cm.test", "--change-days", "7"})
	if err != nil || cfg.scheduled.upstream.TCGPlayerURL != "http://tcg.test" || cfg.scheduled.upstream.CardmarketURL != "http://cm.test" ||
		cfg.scheduled.upstream.ChangeDays != 7 || cfg.scheduled.upstream.HistoryDays != 0 {
		t.Errorf("upstream %+v, %v", cfg.scheduled.upstream, err)
	}
	for _, tt := range []struct {
		env  map[string]string
		args []string
		want string
	}{
		{map[string]string{"CARDCAT_REFRESH_AT": "3am"}, nil, "CARDCAT_REFRESH_AT"},
		{nil, []string{"--refresh-at", "24:00"}, "refresh-at"},
		{nil, []string{"--refresh-at", "03:00,"}, "refresh-at"},
		{map[string]string{"CARDCAT_HISTORY_DAYS": "30"}, nil, "CARDCAT_HISTORY_DAYS"},
	} {
		env, _ := configEnv(tt.env)
		_, err := parseServe(env, tt.args)
		if err == nil || !strings.Contains(err.Error(), tt.want) || exitCode(err) != 2 {
			t.Errorf("%v %v: error %v (exit %d), want a usage error naming %s", tt.env, tt.args, err, exitCode(err), tt.want)
		}
	}
}
