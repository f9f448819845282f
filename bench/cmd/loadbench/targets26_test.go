package main

import (
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"testing"
	"time"
)

// TestTargets26: issue 26's table from made-up runs: a scenario at its
// target is met, one under it is missed with the top entries of its real
// CPU profile (made here, read with go tool pprof), one without a profile
// says so; the Redis run, the paced p99 against the ceiling's and memory per
// product are judged.
func TestTargets26(t *testing.T) {
	run := func(phase, scenario, target string, round int, rps, p99ms float64) runResult {
		r := runResult{Phase: phase, Scenario: scenario, Target: target, Round: round, ServerCPU: 1, Counted: -1, RedisCommands: -1}
		r.Wrk.DurationUS = 10_000_000
		r.Wrk.Requests = int64(rps * 10)
		r.Wrk.Latency.P50 = 500
		r.Wrk.Latency.P99 = int64(p99ms * 1000)
		return r
	}
	paced := pacedLevel{Share: 0.75, Rate: 30_000}
	sr := &sizeReport{
		Cat: &catalogue{Cards: 1000, Products: map[string]int{"dbs": 1000}},
		Scenarios: []*scenario{{Key: "card", Name: "card detail", Expect: 200}, {Key: "cardhot", Name: "card detail, the ceiling's cards", Expect: 200},
			{Key: "search", Name: "search (query mix)", Expect: 200}, {Key: "404", Name: "404 (unknown card)", Expect: 404}},
		Paced:     []pacedLevel{paced},
		Limiter:   true,
		MemLoaded: memStatus{RSS: 2_100_000},
	}
	for round := 1; round <= 3; round++ {
		sr.Results = append(sr.Results,
			run("", "card", ceilingName, round, 40_000, 2), run("", "card", "cardcat", round, 38_400, 3), // 0.96
			run("", "cardhot", ceilingName, round, 40_000, 2), run("", "cardhot", "cardcat", round, 39_200, 3), // 0.98
			run("", "search", ceilingName, round, 40_000, 2), run("", "search", "cardcat", round, 20_000, 5), // 0.50
			run("", "404", ceilingName, round, 40_000, 2), run("", "404", "cardcat", round, 30_000, 3), // 0.75
			run("redis", "card", ceilingName, round, 40_000, 2), run("redis", "card", "cardcat, Redis limiter", round, 36_000, 3), // 0.90
			run(paced.phase(), "card", ceilingName, round, 30_000, 3), run(paced.phase(), "card", "cardcat", round, 30_000, 3.3)) // 1.1x
	}
	dir := t.TempDir()
	writeProfile(t, filepath.Join(dir, "1000-cardcat-search.pprof"))
	rep := &report{cfg: &config{profileDir: dir}}
	var b strings.Builder
	rep.targets26(&b, sr)
	out := b.String()
	for _, want := range []string{
		"| card detail: ≥ 0.95 of the ceiling | 0.96 [0.96–0.96] (per core 0.96) | met |  |\n" +
			"| (no target) card detail, the ceiling's cards: what cardcat's code reaches when the catalogue's memory is not in the way | 0.98 [0.98–0.98] (per core 0.98) | | |\n",
		"| search (query mix): ≥ 0.60 of the ceiling | 0.50 [0.50–0.50] (per core 0.50) | **missed** | ",
		"spinForProfile ",
		"| 404 (unknown card): ≥ 0.95 of the ceiling | 0.75 [0.75–0.75] (per core 0.75) | **missed** | (no profile of this scenario) |",
		"| card detail, Redis limiter: ≥ 0.85 | 0.90 [0.90–0.90] | met |",
		"| card detail paced at 75%: p99 within 1.2× the ceiling's | 3.30 ms against 3.00 ms (1.10×) | met |  |",
		"| under 2,048 B resident per product after the load runs, compression cache included | 2,100 B | **missed** |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("issue 26's targets lack %q:\n%s", want, out)
		}
	}
	rep.cfg.profileDir = ""
	b.Reset()
	rep.targets26(&b, sr)
	if !strings.Contains(b.String(), "(no profile: run with -profile DIR)") {
		t.Errorf("without -profile:\n%s", b.String())
	}

	// Card detail at 0.73 of the ceiling: the paced rate (0.75) is past
	// what cardcat answers at saturation, and the row says so.
	for i, r := range sr.Results {
		if r.Phase == "" && r.Scenario == "card" && r.Target == "cardcat" {
			sr.Results[i].Wrk.Requests = 40_000 * 10 * 73 / 100
		}
	}
	b.Reset()
	rep.targets26(&b, sr)
	if want := "this rate is 103% of what cardcat answered at saturation (card detail at 0.73 of the ceiling)"; !strings.Contains(b.String(), want) {
		t.Errorf("paced past saturation: no %q in\n%s", want, b.String())
	}
}

// writeProfile writes a CPU profile of spinForProfile to file.
func writeProfile(t *testing.T, file string) {
	t.Helper()
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := pprof.StartCPUProfile(f); err != nil {
		t.Skipf("a CPU profile cannot be taken here: %v", err)
	}
	sink = spinForProfile(300 * time.Millisecond)
	pprof.StopCPUProfile()
}

var sink uint64

//go:noinline
func spinForProfile(d time.Duration) uint64 {
	x := uint64(1)
	for end := time.Now().Add(d); time.Now().Before(end); {
		for i := range 100_000 {
			x = x*6364136223846793005 + uint64(i)
		}
	}
	return x
}

func TestTopEntries(t *testing.T) {
	out := `File: cardcat
Type: cpu
Showing nodes accounting for 3.09s, 81.10% of 3.81s total
      flat  flat%   sum%        cum   cum%
     1.73s 45.41% 45.41%      1.73s 45.41%  internal/runtime/syscall/linux.Syscall6
     0.11s  2.89% 48.29%      0.11s  2.89%  time.runtimeNow
     0.07s  1.84% 50.13%      0.07s  1.84%  github.com/cardcat/cardcat/internal/catalog.(*idTable).get (inline)
`
	if got, want := topEntries(out, 2), "linux.Syscall6 45.41%; time.runtimeNow 2.89%"; got != want {
		t.Errorf("topEntries(2) = %q, want %q", got, want)
	}
	if got := topEntries(out, 10); !strings.HasSuffix(got, "catalog.(*idTable).get (inline) 1.84%") {
		t.Errorf("topEntries(10) = %q", got)
	}
	if got := topEntries("no table", 3); got != "" {
		t.Errorf("no table: %q", got)
	}
}
