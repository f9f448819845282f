package main

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"
)

// The replica phase (issue 17): how soon a new `cardcat serve` answers, and
// how soon a running one serves a newly published version, with the
// version's snapshot artifact (ingest writes it) and without it (today's
// path before artifacts: every replica loads the store and builds).
//
//   - start: a fresh serve on the ingested store, from the harness starting
//     the process until its first 200 to a keyed card detail; VmRSS then.
//     With artifacts (the default), then with CARDCAT_SNAPSHOT_ARTIFACTS=false.
//   - swap: a serve polling every second; the same catalogue a day later
//     (`synth --day`) is ingested; from ingest's start, and from its exit
//     (the version and, with artifacts, its artifact written: published),
//     until serve's log says it serves the new version. Without artifacts on
//     both sides (the serve builds as soon as ingest commits), then with.

// replicaReport is the replica phase's figures at one size.
type replicaReport struct {
	Start      [2]replicaStart   // with the artifact, without: the median start by FirstOK
	Starts     [2][]replicaStart // every start, in order (-replica-starts)
	Swap       [2]replicaSwap
	ArtifactMB float64 // size of the served version's artifact
	Err        string  // why the phase stopped early
}

type replicaStart struct {
	FirstOK time.Duration // process started until the first 200
	Snap    snapshotTimes
	SnapOK  bool
	Mem     memStatus
}

type replicaSwap struct {
	Ingest time.Duration // synth excluded
	Served time.Duration // ingest's start until the new version is served
	Swap   time.Duration // ingest's exit until then; negative: served before ingest ended
}

var replicaModes = [2]struct {
	name string
	env  []string
}{
	{"with the artifact", nil},
	{"without (built from the store)", []string{"CARDCAT_SNAPSHOT_ARTIFACTS=false"}},
}

// runReplica measures the replica phase; the catalogue ends two versions on.
func runReplica(ctx context.Context, cfg *config, cardcat string, cat *catalogue, dir string, logf func(string, ...any)) *replicaReport {
	rr := &replicaReport{}
	fail := func(err error) *replicaReport {
		rr.Err = err.Error()
		logf("replica phase: %v", err)
		return rr
	}
	logs := filepath.Join(dir, "logs")
	for i, m := range replicaModes {
		for attempt := 0; len(rr.Starts[i]) < max(1, cfg.replicaStarts); attempt++ {
			st, err := replicaFirstOK(ctx, cfg, cardcat, cat, filepath.Join(logs, fmt.Sprintf("replica-start-%d-%d.log", i, attempt)), m.env)
			if err != nil {
				return fail(err)
			}
			// A catalogue ingested before artifacts existed has none: the
			// first start with artifacts writes it, the second reads it.
			if i == 0 && st.SnapOK && !st.Snap.Artifact && attempt == 0 {
				logf("replica phase: no artifact yet; the start wrote it, starting again")
				continue
			}
			rr.Starts[i] = append(rr.Starts[i], st)
			logf("replica start %s: first 200 after %s", m.name, dur(st.FirstOK))
		}
		sorted := slices.SortedFunc(slices.Values(rr.Starts[i]), func(a, b replicaStart) int { return cmp.Compare(a.FirstOK, b.FirstOK) })
		rr.Start[i] = sorted[len(sorted)/2]
	}
	if entries, err := filepath.Glob(filepath.Join(cat.DataDir, "snapshots", "*.snap")); err == nil && len(entries) > 0 {
		rr.ArtifactMB = float64(fileSize(entries[len(entries)-1])) / 1e6
	}

	mirror := filepath.Join(dir, "replica-mirror")
	defer os.RemoveAll(mirror)
	// Without first, so that the version the load runs serve has its artifact.
	for _, i := range []int{1, 0} {
		m := replicaModes[i]
		sw, err := replicaSwapTime(ctx, cfg, cardcat, cat, mirror, 100+i, filepath.Join(logs, fmt.Sprintf("replica-swap-%d.log", i)), m.env)
		if err != nil {
			return fail(err)
		}
		rr.Swap[i] = sw
		logf("replica swap %s: ingest %s, served %s after its start, %s after its end", m.name, dur(sw.Ingest), dur(sw.Served), dur(sw.Swap))
	}
	return rr
}

// replicaFirstOK starts serve with env and times its first 200.
func replicaFirstOK(ctx context.Context, cfg *config, cardcat string, cat *catalogue, logPath string, env []string) (replicaStart, error) {
	var st replicaStart
	os.Remove(logPath) // parsed whole below: no line of an earlier run
	addr, err := freeAddr()
	if err != nil {
		return st, err
	}
	t0 := time.Now()
	srv, err := startServer(ctx, "cardcat (replica start)", cfg.serverCPUs,
		[]string{cardcat, "serve", "--addr", addr, "--data-dir", cat.DataDir, "--public-url", "http://" + addr},
		append(env, cfg.serveEnv...), addr, logPath, 20*time.Minute)
	if err != nil {
		return st, err
	}
	defer srv.stop()
	client := &http.Client{Timeout: 5 * time.Second}
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.url+cfg.probePath, nil)
		req.Header.Set("X-API-Key", cat.Key)
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if ctx.Err() != nil || time.Since(t0) > 20*time.Minute {
			return st, fmt.Errorf("no 200 from %s: %v", cfg.probePath, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	st.FirstOK = time.Since(t0)
	if st.Mem, err = readMem(srv.pid()); err != nil {
		return st, err
	}
	waitLog(ctx, logPath, 5*time.Second, 50*time.Millisecond, func(log string) bool {
		st.Snap, st.SnapOK = parseSnapshotLog(log)
		return st.SnapOK
	})
	return st, nil
}

// replicaSwapTime starts serve polling every second, ingests the catalogue
// of day, and times how long after ingest's exit serve serves it.
func replicaSwapTime(ctx context.Context, cfg *config, cardcat string, cat *catalogue, mirror string, day int, logPath string, env []string) (replicaSwap, error) {
	var sw replicaSwap
	if _, err := command(ctx, nil, cardcat, "synth", "--cards", strconv.Itoa(cat.Cards), "--seed", strconv.FormatUint(cfg.seed, 10),
		"--day", strconv.Itoa(day), "--out", mirror); err != nil {
		return sw, err
	}
	os.Remove(logPath)
	addr, err := freeAddr()
	if err != nil {
		return sw, err
	}
	srv, err := startServer(ctx, "cardcat (replica swap)", cfg.serverCPUs,
		[]string{cardcat, "serve", "--addr", addr, "--data-dir", cat.DataDir, "--public-url", "http://" + addr, "--refresh-interval", "1s"},
		append(env, cfg.serveEnv...), addr, logPath, 20*time.Minute)
	if err != nil {
		return sw, err
	}
	defer srv.stop()
	before, _ := lastSnapshotVersion(logPath, 0)
	// The serve is watched while ingest runs: without the artifact it sees
	// the version as soon as ingest commits it, before ingest ends.
	t0 := time.Now()
	done := make(chan error, 1)
	go func() {
		_, err := command(ctx, env, cardcat, "ingest", "--from", mirror, "--data-dir", cat.DataDir)
		done <- err
	}()
	var ended, served time.Time
	for ended.IsZero() || served.IsZero() {
		select {
		case err := <-done:
			if err != nil {
				return sw, err
			}
			ended = time.Now()
		default:
		}
		if v, ok := lastSnapshotVersion(logPath, 0); ok && v > before && served.IsZero() {
			served = time.Now()
		}
		if ctx.Err() != nil || time.Since(t0) > 30*time.Minute {
			if ended.IsZero() {
				<-done
			}
			return sw, fmt.Errorf("serve did not swap in the version of day %d", day)
		}
		time.Sleep(20 * time.Millisecond)
	}
	sw.Ingest, sw.Served, sw.Swap = ended.Sub(t0), served.Sub(t0), served.Sub(ended)
	return sw, os.RemoveAll(mirror)
}

// replicaSection writes the replica phase's table.
func (rep *report) replicaSection(p func(string, ...any), rr *replicaReport, products int) {
	p("Replica start and version swap (issue 17: with the version's snapshot artifact, %.0f MB, and without it; start: the process started until its first 200 to a keyed card detail; swap: a serve polling every second while `ingest` writes the same catalogue a day later, until it serves it, from ingest's start and from its end; with the artifact the serve waits for it, without it builds as soon as the version is committed):\n\n", rr.ArtifactMB)
	p("| | start to first 200 | snapshot | VmRSS after start | per product | ingest (artifact included) | new version served, from ingest's start | from ingest's end |\n|---|---|---|---|---|---|---|---|\n")
	for i, m := range replicaModes {
		st, sw := rr.Start[i], rr.Swap[i]
		snap := "?"
		if st.SnapOK && st.Snap.Artifact {
			snap = "read " + dur(st.Snap.Read)
		} else if st.SnapOK {
			snap = fmt.Sprintf("load %s, build %s", dur(st.Snap.Load), dur(st.Snap.Build))
		}
		after := dur(sw.Swap)
		if sw.Swap < 0 {
			after = dur(-sw.Swap) + " before it (built from the store as soon as the version was committed)"
		}
		first := dur(st.FirstOK)
		if n := len(rr.Starts[i]); n > 1 {
			lo := slices.MinFunc(rr.Starts[i], func(a, b replicaStart) int { return cmp.Compare(a.FirstOK, b.FirstOK) })
			hi := slices.MaxFunc(rr.Starts[i], func(a, b replicaStart) int { return cmp.Compare(a.FirstOK, b.FirstOK) })
			first = fmt.Sprintf("%s [%s–%s] (median of %d)", first, dur(lo.FirstOK), dur(hi.FirstOK), n)
		}
		p("| %s | %s | %s | %s | %s B | %s | %s | %s |\n", m.name, first, snap, mb(st.Mem.RSS),
			thousands(float64(st.Mem.RSS)/float64(max(1, products))), dur(sw.Ingest), dur(sw.Served), after)
	}
	if rr.Err != "" {
		p("\nThe phase stopped early: %s\n", rr.Err)
	}
	p("\n")
}
