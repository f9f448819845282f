package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestParseWrk(t *testing.T) {
	out, err := os.ReadFile("testdata/wrk-card.txt") // a real run of paths.lua against cardcat
	if err != nil {
		t.Fatal(err)
	}
	res, err := parseWrk(out)
	if err != nil {
		t.Fatal(err)
	}
	if res.Requests != 137979 || res.DurationUS != 3000721 || res.Bytes != 236213383 {
		t.Errorf("counts: %+v", res)
	}
	if res.Latency.P50 != 611 || res.Latency.P99 != 5391 || res.Latency.Max != 13350 || res.Latency.Mean != 944.6 {
		t.Errorf("latency: %+v", res.Latency)
	}
	if rps := res.RPS(); rps < 45981 || rps > 45983 {
		t.Errorf("RPS = %f, want wrk's 45981.95", rps)
	}
	if res.Errors(200) != 0 {
		t.Errorf("Errors(200) = %d", res.Errors(200))
	}
	// The same answers in a scenario that expects 401 are all wrong.
	if res.Errors(401) != res.Requests {
		t.Errorf("Errors(401) = %d, want %d", res.Errors(401), res.Requests)
	}
}

func TestParseWrkErrors(t *testing.T) {
	line := `loadbench {"duration_us":2000000,"requests":1000,"bytes":5000,"connect_errors":1,"read_errors":2,"write_errors":0,"status_errors":990,"timeouts":3,"latency_us":{"min":1,"mean":2.5,"max":9,"p50":2,"p90":3,"p99":4,"p999":5}}`
	res, err := parseWrk([]byte("Running 2s test\n" + line + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	if res.RPS() != 500 || res.SocketErrors() != 6 {
		t.Errorf("RPS %f, socket errors %d", res.RPS(), res.SocketErrors())
	}
	if got := res.Errors(200); got != 996 {
		t.Errorf("Errors(200) = %d, want 990 status + 6 socket", got)
	}
	if got := res.Errors(404); got != 16 {
		t.Errorf("Errors(404) = %d, want 10 below 400 + 6 socket", got)
	}

	for name, out := range map[string]string{
		"no summary line": "Running 10s test @ http://127.0.0.1:1\nRequests/sec: 10\n",
		"bad json":        "loadbench {\"requests\":\n",
		"disagrees":       line + "\nRequests/sec:  900.00\n",
	} {
		if _, err := parseWrk([]byte(out)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestWrkArgv(t *testing.T) {
	w := wrkRun{Threads: 1, Connections: 32, Duration: 10 * time.Second, CPUs: "0", Script: "s.lua",
		URL: "http://127.0.0.1:1", Paths: "p.txt", Header: "X-API-Key", Value: "k"}
	got := strings.Join(w.argv(), " ")
	want := "taskset -c 0 wrk -t 1 -c 32 -d 10s --timeout 2s --latency -s s.lua http://127.0.0.1:1 -- p.txt X-API-Key k"
	if got != want {
		t.Errorf("argv\n got %s\nwant %s", got, want)
	}
	w.CPUs, w.Header = "", ""
	if got := strings.Join(w.argv(), " "); strings.HasPrefix(got, "taskset") || strings.HasSuffix(got, " k") {
		t.Errorf("unpinned, no header: %s", got)
	}
	// Paced: the rate per thread after the header, an empty header when there
	// is none.
	w.Threads, w.Rate = 2, 3000
	if got := w.argv(); strings.Join(got[len(got)-4:], "|") != "p.txt||k|1500.0" {
		t.Errorf("paced, no header: %q", got)
	}
}

// TestPacedWrk runs paths.lua in wrk against a local server: paced, the
// requests follow the rate (not the server's speed), carry the header, and
// wrk measures each from its sending.
func TestPacedWrk(t *testing.T) {
	if _, err := exec.LookPath("wrk"); err != nil {
		t.Skip("wrk is not installed (Debian package wrk; make bench installs it): paths.lua's pacing is not tested")
	}
	var n, keyed atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		if r.Header.Get("X-API-Key") == "k" {
			keyed.Add(1)
		}
		w.Write([]byte(`{"ok":true}`))
	}))
	defer srv.Close()
	paths := filepath.Join(t.TempDir(), "paths.txt")
	if err := os.WriteFile(paths, []byte("/a\n/b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const rate, secs = 400, 2
	w := wrkRun{Threads: 1, Connections: 8, Duration: secs * time.Second, Script: "../../lua/paths.lua",
		URL: srv.URL, Paths: paths, Header: "X-API-Key", Value: "k", Rate: rate}
	res, _, err := w.run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// The schedule starts with the first answers (each connection's first
	// request goes unpaced), and wrk runs past -d when the machine is busy
	// (CI saw 842 requests in a run of ~2.1 s): the count follows the rate
	// over the run wrk measured, a few slots either side.
	ran := float64(res.DurationUS) / 1e6
	if want := rate * ran; float64(res.Requests) < 0.85*want || float64(res.Requests) > 1.05*want+float64(w.Connections) {
		t.Errorf("paced at %d/s, ran %.2fs of %ds: %d requests (server saw %d)", rate, ran, secs, res.Requests, n.Load())
	}
	if keyed.Load() != n.Load() || n.Load() < res.Requests {
		t.Errorf("server saw %d requests, %d with the key; wrk completed %d", n.Load(), keyed.Load(), res.Requests)
	}
	// Each connection waits ~20 ms between requests; a latency that large
	// would mean the wait was measured.
	if res.Latency.P50 > 10_000 {
		t.Errorf("p50 %d µs: the pacing wait is in the latency", res.Latency.P50)
	}
}
