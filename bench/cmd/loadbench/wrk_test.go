package main

import (
	"os"
	"strings"
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
}
