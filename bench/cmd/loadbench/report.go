package main

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// report is the whole run, rendered as Markdown.
type report struct {
	cfg            *config
	Machine        string
	Version        string
	Started        time.Time
	Elapsed        time.Duration
	RedisSupported bool
	Sizes          []*sizeReport
}

// The targets of issue 7.
const (
	targetCardRatio    = 0.75
	targetCardP99      = 5 * time.Millisecond
	targetSetRatio     = 0.50
	targetSearchP99    = 5 * time.Millisecond
	targetSearchFaster = 20.0
	targetBytesPerCard = 3 * 1024
	targetBuild        = 30 * time.Second
	targetRedisRatio   = 0.50
)

// stealNote: from this share of CPU time stolen in a run, the report says so.
const stealNote = 0.05

// stat is the median of a series and its spread.
type stat struct {
	Median, Min, Max float64
	N                int
}

func statOf(xs []float64) stat {
	if len(xs) == 0 {
		return stat{}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return stat{Median: m, Min: s[0], Max: s[len(s)-1], N: len(s)}
}

// percentile of durations (nearest rank).
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(float64(len(s))*p/100+0.5) - 1
	return s[max(0, min(len(s)-1, i))]
}

func median(ds []time.Duration) time.Duration { return percentile(ds, 50) }

// series is the results of one target in one scenario and phase.
type series struct {
	runs []runResult
}

func (s series) stat(f func(runResult) float64) stat {
	var xs []float64
	for _, r := range s.runs {
		xs = append(xs, f(r))
	}
	return statOf(xs)
}

func (sr *sizeReport) series(phase, scenario, target string) series {
	var s series
	for _, r := range sr.Results {
		if r.Phase == phase && r.Scenario == scenario && r.Target == target {
			s.runs = append(s.runs, r)
		}
	}
	return s
}

// ratios pairs a target's runs with the ceiling's runs of the same round:
// the ratio of their requests per second, round by round.
func (sr *sizeReport) ratios(phase, scenario, target string) stat {
	return sr.pairRatios(phase, scenario, target, func(r runResult) float64 { return r.Wrk.RPS() })
}

// coreRatios is the ratio of requests per second of server CPU: what each
// server does with the CPU it got, which holds when another process on a
// shared machine takes part of the server's core during a run.
func (sr *sizeReport) coreRatios(phase, scenario, target string) stat {
	return sr.pairRatios(phase, scenario, target, perCore)
}

func perCore(r runResult) float64 {
	if r.ServerCPU <= 0 {
		return 0
	}
	return r.Wrk.RPS() / r.ServerCPU
}

func (sr *sizeReport) pairRatios(phase, scenario, target string, f func(runResult) float64) stat {
	ceil := map[int]float64{}
	for _, r := range sr.series(phase, scenario, ceilingName).runs {
		ceil[r.Round] = f(r)
	}
	var xs []float64
	for _, r := range sr.series(phase, scenario, target).runs {
		if c := ceil[r.Round]; c > 0 {
			xs = append(xs, f(r)/c)
		}
	}
	return statOf(xs)
}

func (sr *sizeReport) scenario(key string) *scenario {
	for _, sc := range sr.Scenarios {
		if sc.Key == key {
			return sc
		}
	}
	return nil
}

func (rep *report) markdown() string {
	var b strings.Builder
	cfg := rep.cfg
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	p("# cardcat load bench\n\n")
	p("cardcat %s, %s; machine: %s.\n\n", rep.Version, rep.Started.UTC().Format("2006-01-02 15:04 UTC"), rep.Machine)
	pin := "unpinned: wrk and the server share both cores (GOMAXPROCS 2)"
	if cfg.serverCPUs != "" {
		pin = fmt.Sprintf("servers pinned to CPU %s, wrk to CPU %s (taskset; Go sets GOMAXPROCS to the CPUs it is given)", cfg.serverCPUs, cfg.loadCPUs)
	}
	p("Load: wrk -t%d -c%d, %d interleaved rounds of %s per scenario and server (ceiling and cardcat alternately first), after a %s warm-up each; %s. ",
		cfg.threads, cfg.connections, cfg.rounds, cfg.duration, cfg.warmup, pin)
	if len(cfg.serveEnv) > 0 {
		p("**What-if run: cardcat serve ran with %s.** ", strings.Join(cfg.serveEnv, " "))
	}
	p("Figures are the median of the rounds with [min–max]; the ratio to the ceiling is taken round by round. Whole run: %s.\n\n", rep.Elapsed.Round(time.Second))
	for _, sr := range rep.Sizes {
		rep.sizeSection(&b, sr)
	}
	if len(rep.Sizes) > 1 {
		rep.growth(&b)
	}
	p("## Every run\n\n")
	p("| cards | phase | scenario | server | round | req/s | p50 ms | p90 ms | p99 ms | max ms | non-2xx (wrk) | socket errors | spot checks | counted by limiter | server cores | server CPU stolen | wrk cores | bytes/answer (wrk) | log bytes/req | Redis commands/req (inside its script too) | load avg |\n")
	p("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, sr := range rep.Sizes {
		for _, r := range sr.Results {
			phase := "main"
			if r.Phase != "" {
				phase = r.Phase
			}
			if r.Rate > 0 {
				phase += fmt.Sprintf(" (%s req/s)", thousands(r.Rate))
			}
			counted, logb, redis := "—", "—", "—"
			if r.Counted >= 0 {
				counted = fmt.Sprintf("%d (%.3f)", r.Counted, float64(r.Counted)/float64(max(1, r.Wrk.Requests)))
			}
			if r.Target != ceilingName {
				logb = fmt.Sprintf("%.0f", float64(r.LogBytes)/float64(max(1, r.Wrk.Requests)))
			}
			if r.RedisCommands >= 0 {
				redis = fmt.Sprintf("%.2f", float64(r.RedisCommands)/float64(max(1, r.Wrk.Requests)))
			}
			spot := fmt.Sprintf("%d/%d", r.SpotOK, r.SpotN)
			if len(r.SpotStatuses) > 0 {
				spot += fmt.Sprintf(" (got %v)", r.SpotStatuses)
			}
			l := r.Wrk.Latency
			p("| %d | %s | %s | %s | %d | %.0f | %.2f | %.2f | %.2f | %.1f | %d | %d | %s | %s | %.2f | %s | %.2f | %.0f | %s | %s | %.2f |\n",
				sr.Cat.Cards, phase, r.Scenario, r.Target, r.Round, r.Wrk.RPS(), ms(l.P50), ms(l.P90), ms(l.P99), ms(l.Max),
				r.Wrk.StatusErrors, r.Wrk.SocketErrors(), spot, counted, r.ServerCPU, pct(r.Steal), r.WrkCPU, r.Wrk.BytesPerAnswer(), logb, redis, r.Load)
		}
	}
	p("\n")
	return b.String()
}

func (rep *report) sizeSection(b *strings.Builder, sr *sizeReport) {
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	cat := sr.Cat
	products := cat.Total()
	var games []string
	for g, n := range cat.Products {
		games = append(games, fmt.Sprintf("%s %s", g, thousands(float64(n))))
	}
	slices.Sort(games)
	p("## %s cards\n\n", thousands(float64(cat.Cards)))
	p("`cardcat synth --cards %d` gave %s products (%s) after linking; the store is SQLite (embedded default).", cat.Cards, thousands(float64(products)), strings.Join(games, ", "))
	var loads []float64
	for _, r := range sr.Results {
		loads = append(loads, r.Load)
	}
	if l := statOf(loads); l.N > 0 {
		p(" Load average (1 min) at the start of the runs: median %.2f [%.2f–%.2f].", l.Median, l.Min, l.Max)
	}
	p("\n\n")

	p("| phase | time |\n|---|---|\n")
	if cat.Reused {
		p("| synth, ingest | reused from an earlier run of the same work directory (times of that run) |\n")
	}
	p("| synth | %s (%.0f MB of upstream files) |\n", dur(cat.SynthTime), float64(cat.MirrorBytes)/1e6)
	p("| ingest into SQLite | %s (cardcat reports %s) |\n", dur(cat.IngestTime), dur(cat.IngestSays))
	if sr.SnapshotOK && sr.Snapshot.Artifact {
		p("| snapshot: read from its artifact (`read=` of \"catalogue snapshot ready\") | %s |\n", dur(sr.Snapshot.Read))
	} else if sr.SnapshotOK {
		p("| snapshot: load from the store | %s |\n", dur(sr.Snapshot.Load))
		p("| snapshot: build (`build=` of \"catalogue snapshot ready\") | %s |\n", dur(sr.Snapshot.Build))
	} else {
		p("| snapshot | the log line \"catalogue snapshot ready\" was not found |\n")
	}
	if sr.HugeOK {
		reread := "left as it was"
		if sr.Huge.Reread {
			reread = "its small pages re-read in " + dur(sr.Huge.Took)
		}
		p("| snapshot artifact mapped with 2 MB pages (\"snapshot artifact pages\") | %s MB of %s when read, %s after (%s) |\n",
			thousands(float64(sr.Huge.Before)), thousands(float64(sr.Huge.Whole)), thousands(float64(sr.Huge.After)), reread)
	}
	p("| serve: start until it answers | %s |\n\n", dur(sr.StartTime))
	if sr.Replica != nil {
		rep.replicaSection(p, sr.Replica, products)
	}
	if sr.Alerts != nil {
		rep.alertsSection(p, sr.Alerts)
	}

	p("| cardcat memory (in-process limiter) | resident | per product |\n|---|---|---|\n")
	per := func(v int64) string { return fmt.Sprintf("%s B", thousands(float64(v)/float64(max(1, products)))) }
	p("| VmRSS after start | %s | %s |\n", mb(sr.MemIdle.RSS), per(sr.MemIdle.RSS))
	p("| VmRSS after the load runs | %s | %s |\n", mb(sr.MemLoaded.RSS), per(sr.MemLoaded.RSS))
	p("| VmHWM (peak, snapshot build included) | %s | %s |\n\n", mb(sr.MemLoaded.HWM), per(sr.MemLoaded.HWM))
	footprintSection(p, sr.FootIdle, sr.FootLoaded, sr.MemIdle.RSS, sr.MemLoaded.RSS)

	p("### Load\n\n")
	p("| scenario | server | req/s | p50 ms | p99 ms | p99 ms in the server | errors | vs ceiling | server cores | req per core-second | vs ceiling per core |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
	row := func(phase string, sc *scenario, target, label string) {
		s := sr.series(phase, sc.Key, target)
		if len(s.runs) == 0 {
			return
		}
		rps := s.stat(func(r runResult) float64 { return r.Wrk.RPS() })
		p50 := s.stat(func(r runResult) float64 { return ms(r.Wrk.Latency.P50) })
		p99 := s.stat(func(r runResult) float64 { return ms(r.Wrk.Latency.P99) })
		cpu := s.stat(func(r runResult) float64 { return r.ServerCPU })
		inServer := "—"
		if target != ceilingName {
			sp := s.stat(func(r runResult) float64 { return msd(r.ServerP99) })
			inServer = fmt.Sprintf("%.2f [%.2f–%.2f]", sp.Median, sp.Min, sp.Max)
		}
		var errs, reqs int64
		for _, r := range s.runs {
			errs += r.Wrk.Errors(sc.Expect)
			reqs += r.Wrk.Requests
		}
		ratio, coreRatio := "—", "—"
		if target != ceilingName {
			rt := sr.ratios(phase, sc.Key, target)
			ratio = fmt.Sprintf("**%.2f** [%.2f–%.2f]", rt.Median, rt.Min, rt.Max)
			ct := sr.coreRatios(phase, sc.Key, target)
			coreRatio = fmt.Sprintf("%.2f [%.2f–%.2f]", ct.Median, ct.Min, ct.Max)
		}
		pc := s.stat(perCore)
		name := label
		if target != ceilingName {
			name = ""
		}
		p("| %s | %s | %s [%s–%s] | %.2f [%.2f–%.2f] | %.2f [%.2f–%.2f] | %s | %s | %s | %.2f [%.2f–%.2f] | %s | %s |\n",
			name, target, thousands(rps.Median), thousands(rps.Min), thousands(rps.Max),
			p50.Median, p50.Min, p50.Max, p99.Median, p99.Min, p99.Max, inServer, errorsCell(errs, reqs), ratio,
			cpu.Median, cpu.Min, cpu.Max, thousands(pc.Median), coreRatio)
	}
	for _, sc := range sr.Scenarios {
		row("", sc, ceilingName, sc.Name)
		row("", sc, "cardcat", sc.Name)
	}
	if sr.Redis == "" {
		if sc := sr.scenario("card"); sc != nil {
			row("redis", sc, ceilingName, sc.Name+", Redis run")
			row("redis", sc, "cardcat, Redis limiter", "")
		}
	}
	p("\n")
	p("A server using clearly less than one core (pinned runs) was not the bottleneck: another process took part of its CPU, or wrk could not keep up (see \"wrk cores\" under Every run); \"vs ceiling per core\" (requests per second of server CPU, cardcat over ceiling) is the figure that holds then. ")
	p("p50/p99: wrk's, from sending a request to its answer, queueing at saturation included (%d connections on one server core); \"in the server\": cardcat's access log durations, from the request's first middleware to its answer written. ", rep.cfg.connections)

	for _, pr := range sr.Primes {
		name := pr.Scenario
		if sc := sr.scenario(pr.Scenario); sc != nil {
			name = sc.Name
		}
		p("Primed before its warm-up (each path asked once, so that the runs measure the kept compressed variants, made on a page's first compressed request once per catalogue version, as the ceiling replays them): %s on %s, %s paths in %s (%.2f ms per path). ",
			name, pr.Target, thousands(float64(pr.Paths)), dur(pr.Took), float64(pr.Took)/float64(max(1, pr.Paths))/1e6)
	}
	p("Errors: answers other than the scenario's status (2xx, or the 401/404 it asks for) and socket errors, over all rounds. ")
	p("Each ceiling serves %d real answers of its scenario, captured from this cardcat:", rep.cfg.answers)
	for _, sc := range sr.Scenarios {
		p(" %s %s B body + %s B headers;", sc.Name, thousands(sc.ceilingBody), thousands(sc.ceilingHdr))
	}
	p("\n\n")
	rep.pacedSection(b, sr)
	rep.notes(b, sr)

	if len(sr.SeqSearch) > 0 {
		p("Search one query at a time over HTTP (no other load, %d queries, first page of 20): p50 %.3f ms, p99 %.3f ms.\n\n",
			len(sr.SeqSearch), msd(median(sr.SeqSearch)), msd(percentile(sr.SeqSearch, 99)))
	}
	rep.compareSection(b, sr)
	rep.wireSection(b, sr)
	rep.targets(b, sr)
	rep.targets26(b, sr)
	if sr.Soak != nil {
		rep.soakSection(b, sr.Soak)
	}
}

// pacedSection is card detail at set rates: the latency at a load, not at
// saturation.
func (rep *report) pacedSection(b *strings.Builder, sr *sizeReport) {
	if len(sr.Paced) == 0 {
		return
	}
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	p("Card detail at set rates: wrk sends on a schedule (whichever of %d connections is free sends the next request) instead of as fast as answers come, ceiling and cardcat at the same rate, a share of the ceiling's median requests/s above; latency is wrk's, from sending to the answer.\n\n", rep.cfg.pacedConnections)
	p("| share of the ceiling | rate req/s | ceiling p50 ms | ceiling p99 ms | cardcat p50 ms | cardcat p99 ms | cardcat p99 in the server ms | cardcat server cores | server CPU stolen |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, lv := range sr.Paced {
		ceil, cc := sr.series(lv.phase(), "card", ceilingName), sr.series(lv.phase(), "card", "cardcat")
		lat := func(s series, f func(runResult) int64) string {
			st := s.stat(func(r runResult) float64 { return ms(f(r)) })
			return fmt.Sprintf("%.2f [%.2f–%.2f]", st.Median, st.Min, st.Max)
		}
		p50 := func(r runResult) int64 { return r.Wrk.Latency.P50 }
		p99 := func(r runResult) int64 { return r.Wrk.Latency.P99 }
		in := cc.stat(func(r runResult) float64 { return msd(r.ServerP99) })
		cpu := cc.stat(func(r runResult) float64 { return r.ServerCPU })
		st := stealOf(append(slices.Clone(ceil.runs), cc.runs...))
		p("| %.0f%% | %s | %s | %s | %s | **%s** | %.2f | %.2f | %.0f%% [%.0f–%.0f%%] |\n",
			lv.Share*100, thousands(lv.Rate), lat(ceil, p50), lat(ceil, p99), lat(cc, p50), lat(cc, p99), in.Median, cpu.Median,
			st.Median*100, st.Min*100, st.Max*100)
	}
	p("\n")
}

// stealOf is the steal of the runs where it is known.
func stealOf(runs []runResult) stat {
	var xs []float64
	for _, r := range runs {
		if r.Steal >= 0 {
			xs = append(xs, r.Steal)
		}
	}
	return statOf(xs)
}

// notes says what the numbers cannot show by themselves.
func (rep *report) notes(b *strings.Builder, sr *sizeReport) {
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	var notes []string
	if !sr.Limiter {
		notes = append(notes, "**cardcat sent no `X-RateLimit-*` headers: `cardcat serve` runs without a rate limiter (and with the placeholder key check), so the keyed runs were not counted.** The card-detail target asks for keyed and counted requests; it is measured here without the limiter's cost.")
	} else {
		uncounted := map[string]bool{}
		for _, sc := range sr.Scenarios {
			uncounted[sc.Key] = sc.Uncounted
		}
		var counted, sent, counted304, sent304 int64
		for _, r := range sr.Results {
			switch {
			case r.Counted < 0:
			case uncounted[r.Scenario]:
				counted304 += r.Counted
				sent304 += r.Wrk.Requests
			default:
				counted += r.Counted
				sent += r.Wrk.Requests
			}
		}
		if sent > 0 {
			notes = append(notes, fmt.Sprintf("The limiter counted %s requests for the %s that wrk completed in the keyed cardcat runs (%.3f; requests in flight when wrk stops are counted by the server but not by wrk).",
				thousands(float64(counted)), thousands(float64(sent)), float64(counted)/float64(sent)))
		}
		if sent304 > 0 {
			notes = append(notes, fmt.Sprintf("The 304 (revalidation) runs: the limiter counted %s requests for the %s that wrk completed (a 304 is never counted: 0 expected).",
				thousands(float64(counted304)), thousands(float64(sent304))))
		}
	}
	if sr.Redis != "" {
		notes = append(notes, "Redis limiter run skipped: "+sr.Redis+".")
	}
	if st := stealOf(sr.Results); st.N > 0 && st.Max >= stealNote {
		notes = append(notes, fmt.Sprintf("The hypervisor took %.0f%% [%.0f–%.0f%%] of the server CPU's time during the runs (steal, /proc/stat): a server core was slower than a core by that much, unevenly, which widens every spread and lengthens every tail, the ceiling's too.",
			st.Median*100, st.Min*100, st.Max*100))
	}
	bad := map[string][]int{}
	for _, r := range sr.Results {
		if r.Target != ceilingName && r.SpotOK < r.SpotN {
			for _, s := range r.SpotStatuses {
				if !slices.Contains(bad[r.Scenario], s) {
					bad[r.Scenario] = append(bad[r.Scenario], s)
				}
			}
		}
	}
	for _, sc := range sr.Scenarios {
		if st := bad[sc.Key]; len(st) > 0 {
			notes = append(notes, fmt.Sprintf("Scenario %q expects %d but cardcat answered %v in spot checks after the runs; its ceiling serves the same answers, so the ratio compares equal bytes, but the scenario does not measure what it is meant to.", sc.Name, sc.Expect, st))
		}
	}
	for _, sc := range sr.Scenarios {
		if n := bytesNote(sr, sc); n != "" {
			notes = append(notes, n)
		}
	}
	for _, n := range notes {
		p("- %s\n", n)
	}
	if len(notes) > 0 {
		p("\n")
	}
}

func (rep *report) compareSection(b *strings.Builder, sr *sizeReport) {
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	if sr.CompareErr != "" {
		p("### Search comparison\n\nFailed: %s\n\n", sr.CompareErr)
		return
	}
	c := sr.Compare
	if c == nil {
		return
	}
	p("### Search comparison (one query at a time, %d queries, same names and query mix)\n\n", len(c.Queries))
	p("cardcat: its snapshot's index, called in-process (`GameSnapshot.Search`, no HTTP). The databases: one query per search through their Go drivers on loopback, answering cardcat's rules and order (up to 1,000 cards); \"same answers\" counts the queries whose whole answer equals cardcat's.\n\n")
	p("| engine | build | median | p99 | median vs cardcat | p99 vs cardcat | same answers | timed out (%s) |\n|---|---|---|---|---|---|---|---|\n", queryTimeout)
	cc := c.Engines[0]
	for _, e := range c.Engines {
		if e.Skipped != "" {
			p("| %s | skipped: %s | | | | | | |\n", e.Name, e.Skipped)
			continue
		}
		vs, vs99 := "—", "—"
		if e != cc {
			vs = fmt.Sprintf("**%.0f×** slower", float64(median(e.Lat))/float64(median(cc.Lat)))
			vs99 = fmt.Sprintf("%.0f× slower", float64(percentile(e.Lat, 99))/float64(percentile(cc.Lat, 99)))
		}
		p("| %s | %s | %s | %s | %s | %s | %d/%d | %d |\n", e.Name, dur(e.Build), fine(median(e.Lat)), fine(percentile(e.Lat, 99)), vs, vs99, e.Agree, len(c.Queries), e.TimedOut)
	}
	p("\nMedian by kind of query:\n\n| kind | queries |")
	for _, e := range c.Engines {
		if e.Skipped == "" {
			p(" %s |", e.Name)
		}
	}
	p("\n|---|---|%s\n", strings.Repeat("---|", countRun(c.Engines)))
	for _, k := range queryKinds {
		var idx []int
		for i, q := range c.Queries {
			if q.Kind == k {
				idx = append(idx, i)
			}
		}
		p("| %s | %d |", k, len(idx))
		for _, e := range c.Engines {
			if e.Skipped != "" {
				continue
			}
			var ds []time.Duration
			for _, i := range idx {
				ds = append(ds, e.Lat[i])
			}
			p(" %s |", fine(median(ds)))
		}
		p("\n")
	}
	p("\n")
}

func countRun(es []*engineResult) int {
	n := 0
	for _, e := range es {
		if e.Skipped == "" {
			n++
		}
	}
	return n
}

func (rep *report) targets(b *strings.Builder, sr *sizeReport) {
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	p("### Targets (issue 7)\n\n| target | measured | |\n|---|---|---|\n")
	verdict := func(ok bool) string {
		if ok {
			return "met"
		}
		return "**missed**"
	}
	if sc := sr.scenario("card"); sc != nil {
		rt := sr.ratios("", "card", "cardcat")
		p99 := sr.series("", "card", "cardcat").stat(func(r runResult) float64 { return ms(r.Wrk.Latency.P99) })
		note := ""
		if !sr.Limiter {
			note = " (without a limiter: serve has none yet)"
		}
		ct := sr.coreRatios("", "card", "cardcat")
		p99s := fmt.Sprintf("p99 %.2f ms at saturation", p99.Median)
		if lv, ok := sr.pacedAt(targetCardRatio); ok {
			// The target's p99 is at that load: the paced runs.
			at := sr.series(lv.phase(), "card", "cardcat").stat(func(r runResult) float64 { return ms(r.Wrk.Latency.P99) })
			ceil := sr.series(lv.phase(), "card", ceilingName).stat(func(r runResult) float64 { return ms(r.Wrk.Latency.P99) })
			p99s = fmt.Sprintf("p99 at %s req/s (%.0f%% of the ceiling) **%.2f ms** [%.2f–%.2f], the ceiling's at the same rate %.2f ms [%.2f–%.2f]; at saturation %.2f ms",
				thousands(lv.Rate), lv.Share*100, at.Median, at.Min, at.Max, ceil.Median, ceil.Min, ceil.Max, p99.Median)
			p99 = at
		}
		p("| card detail, keyed and counted: ≥ %.0f%% of the ceiling, p99 < %s at that load | %.0f%% [%.0f–%.0f%%] (per core %.0f%%); %s%s | %s |\n",
			targetCardRatio*100, targetCardP99, rt.Median*100, rt.Min*100, rt.Max*100, ct.Median*100, p99s, note,
			verdict(rt.Median >= targetCardRatio && p99.Median < msd(targetCardP99)))
	}
	if sc := sr.scenario("set"); sc != nil {
		rt := sr.ratios("", "set", "cardcat")
		extra := ""
		if card := sr.scenario("card"); card != nil {
			set := sr.series("", "set", "cardcat").stat(func(r runResult) float64 { return r.Wrk.RPS() })
			cc := sr.series("", "card", ceilingName).stat(func(r runResult) float64 { return r.Wrk.RPS() })
			if cc.Median > 0 {
				extra = fmt.Sprintf("; %.0f%% of the card-detail ceiling", set.Median/cc.Median*100)
			}
		}
		ct := sr.coreRatios("", "set", "cardcat")
		p("| set page of 50: ≥ %.0f%% of the ceiling | %.0f%% [%.0f–%.0f%%] (per core %.0f%%) of a ceiling writing the same pages%s | %s |\n",
			targetSetRatio*100, rt.Median*100, rt.Min*100, rt.Max*100, ct.Median*100, extra, verdict(rt.Median >= targetSetRatio))
	}
	if sc := sr.scenario("search"); sc != nil {
		series := sr.series("", "search", "cardcat")
		p99 := series.stat(func(r runResult) float64 { return ms(r.Wrk.Latency.P99) })
		in := series.stat(func(r runResult) float64 { return msd(r.ServerP99) })
		seq := ""
		if len(sr.SeqSearch) > 0 {
			seq = fmt.Sprintf("; one query at a time over HTTP %.2f ms", msd(percentile(sr.SeqSearch, 99)))
		}
		p("| search: p99 < %s in the server | in the server at saturation (access log) %.2f ms [%.2f–%.2f]; wrk's at saturation, queueing included, %.2f ms [%.2f–%.2f]%s | %s |\n",
			targetSearchP99, in.Median, in.Min, in.Max, p99.Median, p99.Min, p99.Max, seq, verdict(in.Median > 0 && in.Median < msd(targetSearchP99)))
	}
	if c := sr.Compare; c != nil {
		cc := c.Engines[0]
		for _, e := range c.Engines[1:] {
			if e.Skipped != "" {
				p("| search: ≥ %.0f× faster at the median than %s | not measured: %s | |\n", targetSearchFaster, e.Name, e.Skipped)
				continue
			}
			x := float64(median(e.Lat)) / float64(median(cc.Lat))
			p("| search: ≥ %.0f× faster at the median than %s | %.0f× (%s vs %s) | %s |\n", targetSearchFaster, e.Name, x, fine(median(cc.Lat)), fine(median(e.Lat)), verdict(x >= targetSearchFaster))
		}
	}
	products := sr.Cat.Total()
	perCard := float64(sr.MemLoaded.RSS) / float64(max(1, products))
	p("| memory: < %s B resident per card (at 1M cards) | %s B per product (VmRSS after load; peak %s B) | %s |\n",
		thousands(targetBytesPerCard), thousands(perCard), thousands(float64(sr.MemLoaded.HWM)/float64(max(1, products))), verdict(perCard < targetBytesPerCard))
	if sr.SnapshotOK {
		p("| snapshot build < %s (at 1M cards) | build %s (+ load from the store %s) | %s |\n", targetBuild, dur(sr.Snapshot.Build), dur(sr.Snapshot.Load), verdict(sr.Snapshot.Build < targetBuild))
	}
	if sr.Redis == "" {
		rt := sr.ratios("redis", "card", "cardcat, Redis limiter")
		ct := sr.coreRatios("redis", "card", "cardcat, Redis limiter")
		p("| Redis limiter: ≥ %.0f%% of the ceiling (card detail) | %.0f%% [%.0f–%.0f%%] (per core %.0f%%) | %s |\n",
			targetRedisRatio*100, rt.Median*100, rt.Min*100, rt.Max*100, ct.Median*100, verdict(rt.Median >= targetRedisRatio))
	} else {
		p("| Redis limiter: ≥ %.0f%% of the ceiling | not measured: %s | |\n", targetRedisRatio*100, sr.Redis)
	}
	p("\n")
}

func (rep *report) growth(b *strings.Builder) {
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	p("## How the costs grow\n\n")
	p("| cards | products | card detail req/s | vs ceiling | card p99 ms | card p99 ms, paced at 75%% | search req/s | search p50 ms | search p99 ms | in-process search p50 / p99 | VmRSS after load | per product | snapshot load + build | ingest |\n")
	p("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, sr := range rep.Sizes {
		card := sr.series("", "card", "cardcat")
		search := sr.series("", "search", "cardcat")
		rps := func(s series) string {
			if len(s.runs) == 0 {
				return "—"
			}
			return thousands(s.stat(func(r runResult) float64 { return r.Wrk.RPS() }).Median)
		}
		lat := func(s series, f func(runResult) int64) string {
			if len(s.runs) == 0 {
				return "—"
			}
			return fmt.Sprintf("%.2f", s.stat(func(r runResult) float64 { return ms(f(r)) }).Median)
		}
		ratio := "—"
		if len(card.runs) > 0 {
			ratio = fmt.Sprintf("%.2f", sr.ratios("", "card", "cardcat").Median)
		}
		inproc := "—"
		if sr.Compare != nil {
			e := sr.Compare.Engines[0]
			inproc = fine(median(e.Lat)) + " / " + fine(percentile(e.Lat, 99))
		}
		products := sr.Cat.Total()
		p("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s B | %s + %s | %s |\n",
			thousands(float64(sr.Cat.Cards)), thousands(float64(products)), rps(card), ratio,
			lat(card, func(r runResult) int64 { return r.Wrk.Latency.P99 }),
			lat(sr.series(pacedLevel{Share: targetCardRatio}.phase(), "card", "cardcat"), func(r runResult) int64 { return r.Wrk.Latency.P99 }), rps(search),
			lat(search, func(r runResult) int64 { return r.Wrk.Latency.P50 }), lat(search, func(r runResult) int64 { return r.Wrk.Latency.P99 }),
			inproc, mb(sr.MemLoaded.RSS), thousands(float64(sr.MemLoaded.RSS)/float64(max(1, products))),
			dur(sr.Snapshot.Load), dur(sr.Snapshot.Build), dur(sr.Cat.IngestTime))
	}
	p("\n")
}

func errorsCell(errs, reqs int64) string {
	if errs == 0 {
		return "0"
	}
	return fmt.Sprintf("**%s** (%.1f%%)", thousands(float64(errs)), float64(errs)/float64(max(1, reqs))*100)
}

// thousands formats a number rounded to an integer with thin separators.
func thousands(v float64) string {
	s := strconv.FormatInt(int64(math.Round(v)), 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var out []byte
	for i := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}

func mb(b int64) string { return fmt.Sprintf("%.0f MB", float64(b)/1e6) }

func msd(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// dur rounds a phase time for reading.
func dur(d time.Duration) string {
	switch {
	case d >= time.Minute:
		return d.Round(time.Second).String()
	case d >= time.Second:
		return d.Round(100 * time.Millisecond).String()
	default:
		return d.Round(time.Millisecond).String()
	}
}

// fine formats a query latency.
func fine(d time.Duration) string {
	switch {
	case d >= 100*time.Millisecond:
		return fmt.Sprintf("%.0f ms", msd(d))
	case d >= time.Millisecond:
		return fmt.Sprintf("%.2f ms", msd(d))
	default:
		return fmt.Sprintf("%.1f µs", float64(d)/float64(time.Microsecond))
	}
}

// wireSection is the wire ratio of 200-card set pages per coding, and the
// target of issue 15 on it.
func (rep *report) wireSection(b *strings.Builder, sr *sizeReport) {
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	if sr.WireErr != "" {
		p("Wire ratio of 200-card set pages: not measured: %s\n\n", sr.WireErr)
		return
	}
	if len(sr.Wire) == 0 || sr.Wire[0].Pages == 0 {
		p("Wire ratio of 200-card set pages: no set has %d cards at this size.\n\n", widePageCards)
		return
	}
	p("### Wire ratio of a set page of %d cards (issue 15)\n\n", widePageCards)
	p("The first page of %d cards of %d sets, asked once without `Accept-Encoding` (%s B a page) and once per row:\n\n",
		widePageCards, sr.Wire[0].Pages, thousands(float64(sr.Wire[0].Identity)/float64(sr.Wire[0].Pages)))
	p("| Accept-Encoding | Content-Encoding | bytes a page | share of the identity bytes | target: at most %.0f%% |\n|---|---|---|---|---|\n", targetWireRatio*100)
	for _, r := range sr.Wire {
		enc := r.Encoding
		if enc == "" {
			enc = "none"
		}
		verdict := "**missed**"
		if r.ratio() <= targetWireRatio {
			verdict = "met"
		}
		p("| `%s` | %s | %s | %.1f%% | %s |\n", r.Accept, enc, thousands(float64(r.Wire)/float64(max(1, r.Pages))), 100*r.ratio(), verdict)
	}
	p("\n")
}

// bytesNote says when a scenario's ceiling wrote, per answer, more than 5%
// more or fewer bytes than cardcat did in the main runs (headers included,
// as wrk counts them): the ratio then compares different work.
func bytesNote(sr *sizeReport, sc *scenario) string {
	var ceil, cc []float64
	for _, r := range sr.Results {
		if r.Phase != "" || r.Scenario != sc.Key || r.Wrk.Requests == 0 {
			continue
		}
		if r.Target == ceilingName {
			ceil = append(ceil, r.Wrk.BytesPerAnswer())
		} else {
			cc = append(cc, r.Wrk.BytesPerAnswer())
		}
	}
	c, m := statOf(ceil).Median, statOf(cc).Median
	if c <= 0 || m <= 0 || math.Abs(c/m-1) <= 0.05 {
		return ""
	}
	return fmt.Sprintf("Scenario %q: the ceiling wrote %s B per answer, cardcat %s B (wrk's count, headers included): its captured answers are not a fair sample of the scenario's, and its ratio compares unequal work.",
		sc.Name, thousands(c), thousands(m))
}
