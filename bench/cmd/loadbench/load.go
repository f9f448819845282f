package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// scenario is one kind of request the load runs send.
type scenario struct {
	Key    string // short name, as -scenarios takes it
	Name   string
	Paths  []string
	Keyed  bool // sends the harness's key
	Expect int  // the status every answer should have
	// Uncounted: its answers are never counted (a 304), so the limiter
	// should count none of its requests.
	Uncounted bool
	// Revalidate: Paths are card paths whose lines get the If-None-Match of
	// their answer once cardcat runs (revalidationLines).
	Revalidate bool
	// Prime: every path is asked of each cardcat once before the warm-up,
	// so that the runs measure the kept compressed variants (made on a
	// page's first compressed request, once per version) as the ceiling
	// replays them; the priming's time is reported apart.
	Prime bool
	file  string

	ceiling                 *server // serves captured answers of this scenario
	ceilingBody, ceilingHdr float64 // mean sizes of those answers
}

// revalidationPaths is how many card details the 304 scenario revalidates
// (each asked once, for its ETag, before the runs).
const revalidationPaths = 10_000

// allScenarios lists the scenarios in report order; answers and seed are
// those of the ceilings' captures (captureAnswers).
func allScenarios(w *workload, answers int, seed uint64) []*scenario {
	return []*scenario{
		{Key: "card", Name: "card detail", Paths: w.cardPaths, Keyed: true, Expect: 200},
		// The card detail ceiling replays a sample of the cards (200 by
		// default, ~250 kB: its processor's caches hold them), where cardcat's
		// card scenario reads 200,000 cards spread over the whole catalogue.
		// This one asks cardcat for the ceiling's own cards: the difference
		// between the two is what reading a large catalogue costs, the rest
		// is cardcat's code (bench/README.md, "The ceiling's own cards").
		{Key: "cardhot", Name: "card detail, the ceiling's cards", Paths: sampleLines(w.cardPaths, answers, seed), Keyed: true, Expect: 200},
		{Key: "set", Name: "set page of 50", Paths: w.setPages, Keyed: true, Expect: 200},
		// The same pages asked with Accept-Encoding: gzip, and br: each
		// ceiling replays the compressed answers, so both write the same bytes.
		{Key: "setgz", Name: "set page of 50, gzip", Paths: encodingLines(w.setPages, "gzip"), Keyed: true, Expect: 200, Prime: true},
		{Key: "setbr", Name: "set page of 50, br", Paths: encodingLines(w.setPages, "br"), Keyed: true, Expect: 200, Prime: true},
		{Key: "search", Name: "search (query mix)", Paths: w.queryPaths, Keyed: true, Expect: 200},
		{Key: "paid", Name: "paid: set statistics", Paths: w.paidPaths, Keyed: true, Expect: 200},
		{Key: "401", Name: "401 (no key)", Paths: w.cardPaths[:min(len(w.cardPaths), 10_000)], Keyed: false, Expect: 401},
		{Key: "404", Name: "404 (unknown card)", Paths: w.notFound, Keyed: true, Expect: 404},
		{Key: "304", Name: "304 (revalidation)", Paths: w.cardPaths[:min(len(w.cardPaths), revalidationPaths)], Keyed: true,
			Expect: 304, Uncounted: true, Revalidate: true},
	}
}

// encodingLines are paths asked with Accept-Encoding: coding.
func encodingLines(paths []string, coding string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = pathLine(p, "Accept-Encoding", coding)
	}
	return out
}

// target is a server under load: a ceiling or a cardcat.
type target struct {
	Name    string // "ceiling", "cardcat", "cardcat, Redis limiter"
	srv     *server
	admin   string // cardcat's pprof address
	redis   bool   // counts Redis commands during each run
	limiter bool   // sends X-RateLimit headers: counting is checked
}

const ceilingName = "ceiling"

// runResult is one wrk run of one scenario against one target.
type runResult struct {
	Phase            string // "" the main runs, "redis" the Redis limiter's
	Scenario, Target string
	Round            int
	Wrk              wrkResult
	ServerCPU        float64 // cores the server used during the run
	WrkCPU           float64 // cores wrk used
	Load             float64 // 1-minute load average at the start
	Counted          int64   // requests the limiter counted during the run; -1 unknown
	SpotN, SpotOK    int     // spot checks after the run: how many had the expected status
	SpotStatuses     []int
	LogBytes         int64 // bytes the server logged during the run
	// ServerP50, ServerP99: the requests' time inside cardcat (its access
	// log's durations); 0 for a ceiling, which logs nothing.
	ServerP50, ServerP99 time.Duration
	RedisCommands        int64 // Redis commands processed during the run; -1 unknown
	Profile              string
	// Rate is the requests per second a paced run asked for (0: saturation).
	Rate float64
	// Steal is the share of the server CPUs' time the hypervisor gave to
	// other machines during the run (-1 unknown): on a virtual machine, the
	// cause of a server core that is busy but slow.
	Steal float64
}

// runner drives wrk with the settings shared by every run.
type runner struct {
	cfg    *config
	script string
	key    string
	phase  string // recorded with each result
	// rate paces the runs at this many requests per second, on
	// cfg.pacedConnections connections; 0 saturates.
	rate    float64
	results []runResult
	primes  []primeResult
	logf    func(string, ...any)
}

// primeResult is the priming of one scenario on one cardcat (scenario.Prime).
type primeResult struct {
	Phase, Scenario, Target string
	Paths                   int
	Took                    time.Duration
}

// run loads t with sc for d and records the result when round > 0 (round 0
// is a warm-up).
func (r *runner) run(ctx context.Context, sc *scenario, t *target, round int, d time.Duration, profile bool) error {
	res := runResult{Phase: r.phase, Scenario: sc.Key, Target: t.Name, Round: round, Counted: -1, RedisCommands: -1, Load: loadAvg(),
		Rate: r.rate, Steal: -1}
	probe := ""
	if t.Name != ceilingName && t.limiter && sc.Keyed {
		probe = t.srv.url + r.cfg.probePath
	}
	var before int64
	if probe != "" {
		n, ok, err := rateRemaining(ctx, probe, r.key)
		if err != nil {
			return err
		}
		if ok {
			before = n
		} else {
			probe = ""
		}
	}
	var redisBefore int64
	if t.redis {
		redisBefore, _ = redisCommands(ctx, r.cfg.redisURL)
	}
	logBefore := fileSize(t.srv.log)
	cpu0, err := cpuTime(t.srv.pid())
	if err != nil {
		return err
	}
	ticks0, ticksErr := readCPUTicks(r.cfg.serverCPUs)

	var profDone chan string
	if profile && t.admin != "" && d >= 4*time.Second {
		profDone = make(chan string, 1)
		name := filepath.Join(r.cfg.profileDir, fmt.Sprintf("%s-%s-%s.pprof", r.cfg.sizeLabel, sanitize(t.Name), sc.Key))
		go func() { profDone <- captureProfile(ctx, t.admin, d-2*time.Second, name) }()
	}

	w := wrkRun{Threads: r.cfg.threads, Connections: r.cfg.connections, Duration: d, CPUs: r.cfg.loadCPUs,
		Script: r.script, URL: t.srv.url, Paths: sc.file}
	if sc.Keyed {
		w.Header, w.Value = "X-API-Key", r.key
	}
	if r.rate > 0 {
		w.Rate, w.Connections = r.rate, r.cfg.pacedConnections
	}
	res.Wrk, res.WrkCPU, err = r.wrk(ctx, w)
	if err != nil {
		return fmt.Errorf("%s against %s: %w", sc.Name, t.Name, err)
	}
	cpu1, err := cpuTime(t.srv.pid())
	if err != nil {
		return fmt.Errorf("%s exited during the run: %w", t.Name, err)
	}
	if ticks1, err := readCPUTicks(r.cfg.serverCPUs); err == nil && ticksErr == nil {
		res.Steal = stealShare(ticks0, ticks1)
	}
	secs := float64(res.Wrk.DurationUS) / 1e6
	res.ServerCPU = (cpu1 - cpu0).Seconds() / secs
	res.WrkCPU /= secs
	if profDone != nil {
		res.Profile = <-profDone
	}
	if t.redis {
		if after, err := redisCommands(ctx, r.cfg.redisURL); err == nil {
			res.RedisCommands = after - redisBefore
		}
	}

	// Spot checks: wrk counts statuses of 400 and more but does not tell
	// them apart, so a few requests are checked one by one.
	rng := rand.New(rand.NewPCG(uint64(round), uint64(len(r.results))))
	for range 8 {
		p := sc.Paths[rng.IntN(len(sc.Paths))]
		h := ""
		if sc.Keyed {
			h = "X-API-Key"
		}
		a, err := get(ctx, t.srv.url+p, h, r.key)
		if err != nil {
			return fmt.Errorf("spot check %s: %w", p, err)
		}
		res.SpotN++
		if a.Status == sc.Expect {
			res.SpotOK++
		} else if !slices.Contains(res.SpotStatuses, a.Status) {
			res.SpotStatuses = append(res.SpotStatuses, a.Status)
		}
	}
	if probe != "" {
		after, ok, err := rateRemaining(ctx, probe, r.key)
		if err != nil {
			return err
		}
		spots := int64(res.SpotN)
		if sc.Uncounted {
			spots = 0
		}
		if ok && after <= before {
			res.Counted = before - after - 1 - spots
		}
	}
	if t.Name != ceilingName {
		res.LogBytes = fileSize(t.srv.log) - logBefore
		if ds, err := accessDurations(t.srv.log, logBefore); err == nil && len(ds) > 0 {
			res.ServerP50, res.ServerP99 = percentile(ds, 50), percentile(ds, 99)
		}
		// The access log grows by hundreds of MB per run at 1M cards' load;
		// its content is not needed (the start-up lines were read already).
		os.Truncate(t.srv.log, 0)
	}
	if round > 0 {
		r.results = append(r.results, res)
		paced := ""
		if res.Rate > 0 {
			paced = fmt.Sprintf(" (paced at %.0f)", res.Rate)
		}
		r.logf("  round %d %-22s %-26s %9.0f req/s%s  p50 %6.2f ms  p99 %6.2f ms  in server p99 %6.2f ms  errors %d  server %.2f cores  steal %s  load %.2f",
			round, sc.Name, t.Name, res.Wrk.RPS(), paced, ms(res.Wrk.Latency.P50), ms(res.Wrk.Latency.P99), msd(res.ServerP99), res.Wrk.Errors(sc.Expect), res.ServerCPU, pct(res.Steal), res.Load)
	}
	return nil
}

func (r *runner) wrk(ctx context.Context, w wrkRun) (wrkResult, float64, error) {
	res, cpu, err := w.run(ctx)
	return res, cpu.Seconds(), err
}

// rounds runs every scenario against each of its targets, interleaved: per
// round, each scenario's targets one after the other (the order alternating
// between rounds), after one warm-up run each.
func (r *runner) rounds(ctx context.Context, scs []*scenario, targets func(*scenario) []*target) error {
	for _, sc := range scs {
		if !sc.Prime {
			continue
		}
		for _, t := range targets(sc) {
			if t.Name == ceilingName {
				continue
			}
			start := time.Now()
			if err := prime(ctx, t.srv.url, r.key, sc.Paths); err != nil {
				return fmt.Errorf("priming %s on %s: %w", sc.Key, t.Name, err)
			}
			p := primeResult{Phase: r.phase, Scenario: sc.Key, Target: t.Name, Paths: len(sc.Paths), Took: time.Since(start)}
			r.primes = append(r.primes, p)
			r.logf("  primed %s on %s: %d paths in %s", sc.Name, t.Name, p.Paths, dur(p.Took))
		}
	}
	if r.cfg.warmup > 0 {
		r.logf("  warm-up: %s per scenario and target", r.cfg.warmup)
		for _, sc := range scs {
			for _, t := range targets(sc) {
				if err := r.run(ctx, sc, t, 0, r.cfg.warmup, false); err != nil {
					return err
				}
			}
		}
	}
	for round := 1; round <= r.cfg.rounds; round++ {
		for _, sc := range scs {
			ts := targets(sc)
			if round%2 == 0 {
				ts = slices.Clone(ts)
				slices.Reverse(ts)
			}
			for _, t := range ts {
				profile := r.cfg.profileDir != "" && round == r.cfg.rounds && t.Name != ceilingName
				if err := r.run(ctx, sc, t, round, r.cfg.duration, profile); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// captureProfile saves a CPU profile of d from a pprof address; it returns
// the file name, or "" when the profile could not be taken.
func captureProfile(ctx context.Context, admin string, d time.Duration, path string) string {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet,
		fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", admin, int(d.Seconds())), nil)
	if err != nil {
		return ""
	}
	resp, err := (&http.Client{Timeout: d + time.Minute}).Do(req)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return ""
	}
	f, err := os.Create(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if _, err := io.Copy(f, resp.Body); err != nil {
		return ""
	}
	return path
}

func sanitize(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			b[i] = '-'
		}
	}
	return string(b)
}

func ms(us int64) float64 { return float64(us) / 1000 }

// pct formats a share as a percentage; a negative share is unknown.
func pct(share float64) string {
	if share < 0 {
		return "—"
	}
	return fmt.Sprintf("%.0f%%", share*100)
}
