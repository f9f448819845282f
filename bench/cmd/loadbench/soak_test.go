package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseSoak(t *testing.T) {
	cfg, err := parseConfig(nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.soak != 0 || cfg.soakRefresh != 3*time.Minute || cfg.soakSlice != 30*time.Second {
		t.Errorf("default: soak %v, refresh %v, slice %v; want off, 3m, 30s", cfg.soak, cfg.soakRefresh, cfg.soakSlice)
	}
	cfg, err = parseConfig([]string{"-soak", "30m", "-soak-refresh", "1m", "-soak-slice", "10s"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.soak != 30*time.Minute || cfg.soakRefresh != time.Minute || cfg.soakSlice != 10*time.Second {
		t.Errorf("soak %v, refresh %v, slice %v; want 30m, 1m, 10s", cfg.soak, cfg.soakRefresh, cfg.soakSlice)
	}
	if cfg, err := parseConfig([]string{"-soak", "4m", "-soak-refresh", "0"}); err != nil || cfg.soakRefresh != 0 {
		t.Errorf("-soak-refresh 0: %v; want no refresh", err)
	}
	for _, bad := range [][]string{{"-soak", "-1m"}, {"-soak", "5m", "-soak-slice", "500ms"}, {"-soak-refresh", "-3m"}} {
		if _, err := parseConfig(bad); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}

func TestParseGoroutineTotal(t *testing.T) {
	if n, err := parseGoroutineTotal("goroutine profile: total 42\n"); err != nil || n != 42 {
		t.Errorf("got %d, %v; want 42", n, err)
	}
	if _, err := parseGoroutineTotal("404 page not found\n"); err == nil {
		t.Error("a page that is no goroutine profile: no error")
	}
}

func TestLastSnapshotVersion(t *testing.T) {
	log := `time=2026-11-25T18:00:00.000Z level=INFO msg="catalogue snapshot ready" version=1 load=1.2s history=0s build=2.1s
time=2026-11-25T18:00:01.000Z level=INFO msg=request method=GET path=/dbs/cards/x status=200 duration=0.1ms
time=2026-11-25T18:03:00.000Z level=INFO msg="catalogue snapshot ready" version=3 load=1.1s history=0s build=2.0s
time=2026-11-25T18:03:01.000Z level=INFO msg=request method=GET path=/dbs/cards/y status=200 duration=0.1ms
`
	path := filepath.Join(t.TempDir(), "cardcat.log")
	if err := os.WriteFile(path, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	if v, ok := lastSnapshotVersion(path, 0); !ok || v != 3 {
		t.Errorf("whole log: %d, %v; want 3", v, ok)
	}
	if _, ok := lastSnapshotVersion(path, int64(strings.LastIndex(log, "time="))); ok {
		t.Error("after the last snapshot line: found one")
	}
}

func TestSoakMix(t *testing.T) {
	w := &workload{cardPaths: []string{"c1", "c2", "c3"}, setPages: []string{"s1"}, queryPaths: []string{"q1", "q2"}, paidPaths: nil}
	got := strings.Join(soakMix(w, 3), " ")
	if want := "c1 s1 q1 c2 s1 q2 c3 s1 q1"; got != want {
		t.Errorf("soakMix = %q, want %q", got, want)
	}
}

// TestReportSoak: the soak table has a row per slice and the verdict
// compares the medians of the last quarter with the first: memory and
// goroutines that grow are called so, a p99 that moves little is flat.
func TestReportSoak(t *testing.T) {
	sample := func(i int, rssMB int64, gor int, p99ms float64) soakSample {
		return soakSample{At: time.Duration(i+1) * 30 * time.Second, RPS: 10_000, P50: 2 * time.Millisecond,
			P99: time.Duration(p99ms * float64(time.Millisecond)), RSS: rssMB * 1_000_000, Goroutines: gor, Version: 1 + i/4, Requests: 300_000, Load: 1.5}
	}
	var growing, flat []soakSample
	for i := range 8 {
		growing = append(growing, sample(i, 100+int64(i)*10, 20+i*5, 8+float64(i)*0.1))
		flat = append(flat, sample(i, 100+int64(i%2), 20, 8))
	}
	growing[3].Errors, growing[3].Goroutines, growing[3].Version = 30, -1, 0
	rep := &report{cfg: &config{threads: 1, connections: 32}}
	s := &soakReport{Duration: 4 * time.Minute, Slice: 30 * time.Second, Refresh: time.Minute, Samples: growing,
		Ingests: []soakIngest{{At: 70 * time.Second, Day: 1, Took: 9 * time.Second}, {At: 130 * time.Second, Day: 2, Err: "ingest: disk full"}}}
	var b strings.Builder
	rep.soakSection(&b, s)
	out := b.String()
	for _, want := range []string{
		"| 30s | 10,000 | 2.00 | 8.00 | 100 MB | 20 | 1 | 0 | 1.50 |",
		"| 2m0s | 10,000 | 2.00 | 8.30 | 130 MB | — | — | **30** (0.0%) | 1.50 |",
		"every 1m0s the same catalogue a day later",
		"Refreshes finished at (synth + ingest): 1m10s (9s). **Failed**: day 2 at 2m10s: ingest: disk full.",
		// Quarters of 2 slices: 100, 110 MB → 160, 170 MB; 20, 25 → 50, 55
		// goroutines; p99 8.0, 8.1 → 8.6, 8.7 ms.
		"resident memory 105 MB → 165 MB (+57.1%, **grows**), goroutines 22 → 52 (**grows**), p99 8.05 → 8.65 ms (+7%, flat)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("soak report lacks %q:\n%s", want, out)
		}
	}

	b.Reset()
	s.Samples, s.Ingests = flat, nil
	rep.soakSection(&b, s)
	if want := "resident memory 100 MB → 100 MB (+0.0%, flat), goroutines 20 → 20 (flat), p99 8.00 → 8.00 ms (+0%, flat)"; !strings.Contains(b.String(), want) {
		t.Errorf("flat soak: report lacks %q:\n%s", want, b.String())
	}

	b.Reset()
	s.Samples = flat[:3]
	rep.soakSection(&b, s)
	if !strings.Contains(b.String(), "Too few slices (3)") {
		t.Errorf("3 slices: want no verdict:\n%s", b.String())
	}
}

// TestSoakTrendBesideIngests: the p99 of slices with a refresh running
// beside the load is not read as the server's drift: each quarter's p99 and
// requests/s are taken on its slices without one; when a quarter has none,
// on each half's, and when a half has none, on all of them, which the
// verdict says.
func TestSoakTrendBesideIngests(t *testing.T) {
	var ss []soakSample
	for i := range 12 {
		ss = append(ss, soakSample{At: time.Duration(i+1) * 30 * time.Second, RPS: 20_000, P99: 4 * time.Millisecond,
			RSS: 2_000_000_000, Goroutines: 30, Requests: 600_000})
	}
	// The last quarter (slices 9-11): an ingest from slice 10 on.
	for i := 10; i < 12; i++ {
		ss[i].Refreshing, ss[i].P99, ss[i].RPS = true, 10*time.Millisecond, 10_000
	}
	tr, ok := trendOf(ss)
	if !ok {
		t.Fatal("no trend of 12 slices")
	}
	if tr.QuietFirst != 3 || tr.QuietLast != 1 || tr.P99Last != 4 || tr.RPSLast != 20_000 {
		t.Errorf("trend %+v: want p99 and requests/s of the 3 and 1 slices without a refresh (4 ms, 20,000)", tr)
	}
	v := tr.verdict()
	for _, want := range []string{"slices without a refresh running, 3 and 1 of them)", "p99 4.00 → 4.00 ms (+0%, flat)"} {
		if !strings.Contains(v, want) {
			t.Errorf("verdict lacks %q: %s", want, v)
		}
	}

	ss[9].Refreshing, ss[9].P99 = true, 10*time.Millisecond // the whole last quarter
	tr, _ = trendOf(ss)
	if !tr.Halves || tr.Busy || tr.QuietFirst != 6 || tr.QuietLast != 3 || tr.P99First != 4 || tr.P99Last != 4 {
		t.Errorf("a quarter all beside an ingest: %+v; want the halves' 6 and 3 slices without one (4 ms each)", tr)
	}
	if v := tr.verdict(); !strings.Contains(v, "without a refresh running in each half, 6 and 3 of them") || !strings.Contains(v, "(+0%, flat)") {
		t.Errorf("a quarter all beside an ingest: %s", v)
	}

	for i := 6; i < 9; i++ { // the whole last half
		ss[i].Refreshing, ss[i].P99 = true, 10*time.Millisecond
	}
	tr, _ = trendOf(ss)
	if v := tr.verdict(); !tr.Busy || !strings.Contains(v, "a half had a refresh running in each of its slices") || !strings.Contains(v, "**drifts up**") {
		t.Errorf("a half all beside an ingest: %+v, %s", tr, v)
	}

	rep := &report{cfg: &config{threads: 1, connections: 32}}
	var b strings.Builder
	rep.soakSection(&b, &soakReport{Duration: 6 * time.Minute, Slice: 30 * time.Second, Samples: ss})
	if want := "| 6m0s | 10,000 | 0.00 | 10.00 | 2000 MB | 30 | — | 0 | 0.00 | yes |"; !strings.Contains(b.String(), want) {
		t.Errorf("soak table lacks %q:\n%s", want, b.String())
	}
}
