package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// soakReport is the -soak run: mixed load on one cardcat for a long time,
// sampled slice by slice, while new catalogue versions are ingested into its
// store (issue 16: resident memory, goroutines and p99 should stay flat).
type soakReport struct {
	Duration, Slice, Refresh time.Duration
	Samples                  []soakSample
	Ingests                  []soakIngest
}

// soakSample is what one slice of the soak measured, read right after it.
type soakSample struct {
	At         time.Duration // end of the slice, since the soak started
	RPS        float64
	P50, P99   time.Duration // wrk's
	RSS        int64         // VmRSS of cardcat serve, bytes
	Goroutines int           // settled after the slice (the least of a few reads); -1 unknown
	Load       float64       // 1-minute load average at the start of the slice
	Version    int           // catalogue version served (its last snapshot line); 0 unknown
	Requests   int64
	Errors     int64 // non-2xx answers and socket errors
	// Refreshing: a refresh (synth and ingest) ran during some of the
	// slice. Its p99 is the ingest's as much as the server's: at 1M an
	// ingest takes a core and more for minutes (bench/README.md, "The soak
	// at a million cards").
	Refreshing bool
}

// soakIngest is one catalogue refresh during the soak.
type soakIngest struct {
	At   time.Duration // when it finished, since the soak started
	Day  int           // synth --day of its mirror
	Took time.Duration // synth and ingest
	Err  string
}

// soakMix interleaves the keyed 200 scenarios' requests (card detail, set
// page, search, paid statistics) one of each in turn, so that every slice
// sends about as many of each.
func soakMix(w *workload, n int) []string {
	kinds := [][]string{w.cardPaths, w.setPages, w.queryPaths, w.paidPaths}
	var out []string
	for i := range n {
		for _, k := range kinds {
			if len(k) > 0 {
				out = append(out, k[i%len(k)])
			}
		}
	}
	return out
}

// runSoak loads cc with the mixed requests for cfg.soak in slices of
// cfg.soakSlice and, every cfg.soakRefresh, generates the same catalogue a
// day later (about 10% of prices changed: the same card ids, so the request
// lists stay valid) and ingests it into the store cc serves, which swaps its
// snapshot under load.
func runSoak(ctx context.Context, cfg *config, cardcat, script string, cc *runningCardcat, cat *catalogue, w *workload, dir string, logf func(string, ...any)) (*soakReport, error) {
	sr := &soakReport{Duration: cfg.soak, Slice: cfg.soakSlice, Refresh: cfg.soakRefresh}
	paths := filepath.Join(dir, "paths", "soak.txt")
	if err := writeLines(paths, soakMix(w, 50_000)); err != nil {
		return nil, err
	}
	start := time.Now()
	refreshCtx, stopRefresh := context.WithCancel(ctx)
	var mu sync.Mutex
	// refreshEvents counts the refreshes' starts and ends (under mu): odd
	// while one runs. A slice ran beside a refresh when it started at an odd
	// count or the count moved during it.
	refreshEvents := 0
	var wg sync.WaitGroup
	if cfg.soakRefresh > 0 {
		wg.Go(func() {
			mirror := filepath.Join(dir, "soak-mirror")
			defer os.RemoveAll(mirror)
			for day := 1; ; day++ {
				select {
				case <-refreshCtx.Done():
					return
				case <-time.After(cfg.soakRefresh):
				}
				t0 := time.Now()
				mu.Lock()
				refreshEvents++
				mu.Unlock()
				_, err := command(refreshCtx, nil, cardcat, "synth", "--cards", strconv.Itoa(cat.Cards), "--seed", strconv.FormatUint(cfg.seed, 10),
					"--day", strconv.Itoa(day), "--out", mirror)
				if err == nil {
					_, err = command(refreshCtx, nil, cardcat, "ingest", "--from", mirror, "--data-dir", cat.DataDir)
				}
				mu.Lock()
				refreshEvents++
				mu.Unlock()
				if refreshCtx.Err() != nil {
					return // stopped at the end of the soak: not a failure
				}
				in := soakIngest{At: time.Since(start), Day: day, Took: time.Since(t0)}
				if err != nil {
					in.Err = lastLine(err.Error())
					logf("soak: refresh (day %d) failed: %v", day, err)
				} else {
					logf("soak: catalogue of day %d ingested in %s", day, dur(in.Took))
				}
				mu.Lock()
				sr.Ingests = append(sr.Ingests, in)
				mu.Unlock()
			}
		})
	}
	defer func() { stopRefresh(); wg.Wait() }()

	logf("soak: mixed load for %s in slices of %s, a catalogue refresh every %s", cfg.soak, cfg.soakSlice, cfg.soakRefresh)
	version := cc.version
	for time.Since(start) < cfg.soak {
		d := min(cfg.soakSlice, cfg.soak-time.Since(start))
		if d < time.Second {
			break
		}
		logBefore := fileSize(cc.srv.log)
		load := loadAvg()
		mu.Lock()
		eventsAtStart := refreshEvents
		mu.Unlock()
		run := wrkRun{Threads: cfg.threads, Connections: cfg.connections, Duration: d, CPUs: cfg.loadCPUs,
			Script: script, URL: cc.srv.url, Paths: paths, Header: "X-API-Key", Value: cat.Key}
		res, _, err := run.run(ctx)
		if err != nil {
			return nil, fmt.Errorf("soak: %w", err)
		}
		s := soakSample{At: time.Since(start), RPS: res.RPS(), P50: time.Duration(res.Latency.P50) * time.Microsecond,
			P99: time.Duration(res.Latency.P99) * time.Microsecond, Requests: res.Requests, Errors: res.Errors(200), Goroutines: -1, Load: load}
		mu.Lock()
		s.Refreshing = eventsAtStart%2 == 1 || refreshEvents != eventsAtStart
		mu.Unlock()
		m, err := readMem(cc.srv.pid())
		if err != nil {
			return nil, fmt.Errorf("soak: cardcat exited: %w", err)
		}
		s.RSS = m.RSS
		s.Goroutines = settledGoroutines(ctx, cc.target.admin)
		if v, ok := lastSnapshotVersion(cc.srv.log, logBefore); ok {
			version = v
		}
		s.Version = version
		// The access log's content is not needed, and grows by gigabytes
		// over a long soak; serve's own lines (a snapshot's load and build,
		// what a swap's slow slice would be asked about) are kept apart.
		if err := keepServerLines(cc.srv.log, cc.srv.log+".server"); err != nil {
			logf("soak: serve's own log lines not kept: %v", err)
		}
		os.Truncate(cc.srv.log, 0)
		sr.Samples = append(sr.Samples, s)
		logf("soak %s: %.0f req/s, p99 %.2f ms, VmRSS %s, %d goroutines, catalogue version %d, %d errors",
			s.At.Round(time.Second), s.RPS, msd(s.P99), mb(s.RSS), s.Goroutines, s.Version, s.Errors)
	}
	stopRefresh()
	wg.Wait()
	return sr, nil
}

// settledGoroutines is the least of a few goroutine counts a quarter of a
// second apart: right after a slice the goroutines of wrk's closing
// connections are still there, and a leak is what stays.
func settledGoroutines(ctx context.Context, admin string) int {
	least := -1
	for i := range 4 {
		if i > 0 {
			time.Sleep(250 * time.Millisecond)
		}
		if n, err := goroutines(ctx, admin); err == nil && (least < 0 || n < least) {
			least = n
		}
	}
	return least
}

// goroutines reads "goroutine profile: total N" from the admin listener.
func goroutines(ctx context.Context, admin string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+admin+"/debug/pprof/goroutine?debug=1", nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	line, err := bufio.NewReader(io.LimitReader(resp.Body, 4096)).ReadString('\n')
	if err != nil && line == "" {
		return 0, err
	}
	return parseGoroutineTotal(line)
}

func parseGoroutineTotal(line string) (int, error) {
	v, ok := strings.CutPrefix(strings.TrimSpace(line), "goroutine profile: total ")
	if !ok {
		return 0, fmt.Errorf("goroutine profile: first line %q", line)
	}
	return strconv.Atoi(v)
}

var snapshotVersionLine = regexp.MustCompile(`catalogue snapshot ready.*?\bversion=(\d+)`)

// lastSnapshotVersion returns the version of the last "catalogue snapshot
// ready" line of a log from offset on.
func lastSnapshotVersion(path string, offset int64) (int, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return 0, false
	}
	v, found := 0, false
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if m := snapshotVersionLine.FindSubmatch(sc.Bytes()); m != nil {
			if n, err := strconv.Atoi(string(m[1])); err == nil {
				v, found = n, true
			}
		}
	}
	return v, found
}

// soakTrend compares the last quarter of the samples with the first (the
// medians of each): what "flat" is judged on. Memory and goroutines are
// judged on every slice; p99 and requests/s on the slices without a refresh
// running when each quarter has some (else each half), so that an ingest
// beside the load in one quarter and not the other does not read as the
// server's drift.
type soakTrend struct {
	N int // samples per quarter
	// QuietFirst, QuietLast: the slices without a refresh of each quarter
	// that p99 and requests/s were taken on, or of each half when a quarter
	// had none (Halves); 0 and 0 when every slice was (no refresh ran in
	// either quarter) or when a half had none (then all were, and Busy says
	// so).
	QuietFirst, QuietLast int
	Halves, Busy          bool
	RSSFirst, RSSLast     float64
	GorFirst, GorLast     float64 // -1 unknown
	P99First, P99Last     float64 // ms
	RPSFirst, RPSLast     float64
	MemGrowth, P99Drift   float64 // last/first - 1
	GorGrowth             float64 // goroutines, last - first
}

func trendOf(ss []soakSample) (soakTrend, bool) {
	q := len(ss) / 4
	if q < 1 {
		return soakTrend{}, false
	}
	med := func(xs []soakSample, f func(soakSample) float64) float64 {
		var v []float64
		for _, s := range xs {
			if x := f(s); x >= 0 {
				v = append(v, x)
			}
		}
		if len(v) == 0 {
			return -1
		}
		return statOf(v).Median
	}
	first, last := ss[:q], ss[len(ss)-q:]
	rss := func(s soakSample) float64 { return float64(s.RSS) }
	gor := func(s soakSample) float64 { return float64(s.Goroutines) }
	p99 := func(s soakSample) float64 { return msd(s.P99) }
	rps := func(s soakSample) float64 { return s.RPS }
	t := soakTrend{N: q, RSSFirst: med(first, rss), RSSLast: med(last, rss), GorFirst: med(first, gor), GorLast: med(last, gor)}
	quietFirst, quietLast := quiet(first), quiet(last)
	latFirst, latLast := first, last
	switch {
	case len(quietFirst) == q && len(quietLast) == q: // no refresh in either quarter
	case len(quietFirst) > 0 && len(quietLast) > 0:
		latFirst, latLast = quietFirst, quietLast
		t.QuietFirst, t.QuietLast = len(quietFirst), len(quietLast)
	default:
		// A quarter ran a refresh in every slice (a refresh longer than a
		// quarter, on a slow host): the halves' slices without one, else
		// every slice.
		h := len(ss) / 2
		if qa, qb := quiet(ss[:h]), quiet(ss[h:]); len(qa) > 0 && len(qb) > 0 {
			latFirst, latLast = qa, qb
			t.QuietFirst, t.QuietLast, t.Halves = len(qa), len(qb), true
		} else {
			t.Busy = true
		}
	}
	t.P99First, t.P99Last = med(latFirst, p99), med(latLast, p99)
	t.RPSFirst, t.RPSLast = med(latFirst, rps), med(latLast, rps)
	if t.RSSFirst > 0 {
		t.MemGrowth = t.RSSLast/t.RSSFirst - 1
	}
	if t.P99First > 0 {
		t.P99Drift = t.P99Last/t.P99First - 1
	}
	if t.GorFirst >= 0 && t.GorLast >= 0 {
		t.GorGrowth = t.GorLast - t.GorFirst
	}
	return t, true
}

// quiet returns the samples of ss without a refresh running.
func quiet(ss []soakSample) []soakSample {
	var out []soakSample
	for _, s := range ss {
		if !s.Refreshing {
			out = append(out, s)
		}
	}
	return out
}

// What the verdict calls flat. Reported, never asserted: on a shared
// machine p99 moves with the neighbours.
const (
	soakFlatMem        = 0.10 // resident memory, last quarter over first
	soakFlatGoroutines = 10   // goroutines more
	soakFlatP99        = 0.25 // p99, last quarter over first
)

func (t soakTrend) verdict() string {
	word := func(flat bool) string {
		if flat {
			return "flat"
		}
		return "**grows**"
	}
	gor := "goroutines unknown"
	if t.GorFirst >= 0 && t.GorLast >= 0 {
		gor = fmt.Sprintf("goroutines %.0f → %.0f (%s)", t.GorFirst, t.GorLast, word(t.GorGrowth <= soakFlatGoroutines))
	}
	p99 := "flat"
	switch {
	case t.P99Drift > soakFlatP99:
		p99 = "**drifts up**"
	case t.P99Drift < -soakFlatP99:
		p99 = "lower"
	}
	which := ""
	switch {
	case t.Halves:
		which = fmt.Sprintf("; p99 and requests/s of the slices without a refresh running in each half, %d and %d of them: a quarter had a refresh running in each of its slices", t.QuietFirst, t.QuietLast)
	case t.QuietFirst > 0:
		which = fmt.Sprintf("; p99 and requests/s of the slices without a refresh running, %d and %d of them", t.QuietFirst, t.QuietLast)
	case t.Busy:
		which = "; p99 and requests/s of every slice: a half had a refresh running in each of its slices"
	}
	return fmt.Sprintf("Last quarter against the first (medians of %d slices each%s): resident memory %s → %s (%+.1f%%, %s), %s, p99 %.2f → %.2f ms (%+.0f%%, %s), requests/s %s → %s.",
		t.N, which, mb(int64(t.RSSFirst)), mb(int64(t.RSSLast)), t.MemGrowth*100, word(t.MemGrowth <= soakFlatMem), gor,
		t.P99First, t.P99Last, t.P99Drift*100, p99, thousands(t.RPSFirst), thousands(t.RPSLast))
}

func (rep *report) soakSection(b *strings.Builder, s *soakReport) {
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	cfg := rep.cfg
	p("### Soak\n\n")
	refresh := "no catalogue refresh"
	if s.Refresh > 0 {
		refresh = fmt.Sprintf("every %s the same catalogue a day later (`cardcat synth --day N`, about 10%% of prices changed) ingested into the store cardcat serves, which swaps its snapshot under load", s.Refresh)
	}
	p("Mixed load (card detail, set page, search, paid statistics in turn) on one `cardcat serve` for %s, wrk -t%d -c%d in slices of %s; %s. Each row is read right after its slice: wrk's figures of the slice, VmRSS, goroutines (the admin listener's goroutine profile), the catalogue version of the last \"catalogue snapshot ready\" line so far; the load average at the slice's start says how busy the machine was (p99 follows it); \"refresh running\": a synth or ingest of the next day ran during some of the slice, beside the load.\n\n",
		s.Duration, cfg.threads, cfg.connections, s.Slice, refresh)
	p("| time | req/s | p50 ms | p99 ms | VmRSS | goroutines | catalogue version | errors | load avg | refresh running |\n|---|---|---|---|---|---|---|---|---|---|\n")
	for _, x := range s.Samples {
		g, v := "—", "—"
		if x.Goroutines >= 0 {
			g = strconv.Itoa(x.Goroutines)
		}
		if x.Version > 0 {
			v = strconv.Itoa(x.Version)
		}
		r := ""
		if x.Refreshing {
			r = "yes"
		}
		p("| %s | %s | %.2f | %.2f | %s | %s | %s | %s | %.2f | %s |\n", x.At.Round(time.Second), thousands(x.RPS), msd(x.P50), msd(x.P99), mb(x.RSS), g, v, errorsCell(x.Errors, x.Requests), x.Load, r)
	}
	p("\n")
	if len(s.Ingests) > 0 {
		var ok, failed []string
		for _, in := range s.Ingests {
			if in.Err != "" {
				failed = append(failed, fmt.Sprintf("day %d at %s: %s", in.Day, in.At.Round(time.Second), in.Err))
			} else {
				ok = append(ok, fmt.Sprintf("%s (%s)", in.At.Round(time.Second), dur(in.Took)))
			}
		}
		p("Refreshes finished at (synth + ingest): %s.", strings.Join(ok, ", "))
		if len(failed) > 0 {
			p(" **Failed**: %s.", strings.Join(failed, "; "))
		}
		p("\n\n")
	}
	if t, ok := trendOf(s.Samples); ok {
		p("%s\n\n", t.verdict())
	} else {
		p("Too few slices (%d) to compare the last quarter with the first.\n\n", len(s.Samples))
	}
}
