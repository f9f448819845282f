package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// wrkResult is what one wrk run measured, as paths.lua's done() prints it
// on the line "loadbench {json}".
type wrkResult struct {
	DurationUS    int64 `json:"duration_us"`
	Requests      int64 `json:"requests"`
	Bytes         int64 `json:"bytes"`
	ConnectErrors int64 `json:"connect_errors"`
	ReadErrors    int64 `json:"read_errors"`
	WriteErrors   int64 `json:"write_errors"`
	// StatusErrors counts answers with a status of 400 or more (wrk's
	// "Non-2xx or 3xx responses").
	StatusErrors int64 `json:"status_errors"`
	Timeouts     int64 `json:"timeouts"`
	Latency      struct {
		Min  int64   `json:"min"`
		Mean float64 `json:"mean"`
		Max  int64   `json:"max"`
		P50  int64   `json:"p50"`
		P90  int64   `json:"p90"`
		P99  int64   `json:"p99"`
		P999 int64   `json:"p999"`
	} `json:"latency_us"`
}

// RPS returns the completed requests per second.
func (r wrkResult) RPS() float64 {
	if r.DurationUS <= 0 {
		return 0
	}
	return float64(r.Requests) / (float64(r.DurationUS) / 1e6)
}

// BytesPerAnswer returns the bytes read per completed request (status
// line, headers and body).
func (r wrkResult) BytesPerAnswer() float64 {
	if r.Requests <= 0 {
		return 0
	}
	return float64(r.Bytes) / float64(r.Requests)
}

// SocketErrors counts connect, read and write errors and timeouts.
func (r wrkResult) SocketErrors() int64 {
	return r.ConnectErrors + r.ReadErrors + r.WriteErrors + r.Timeouts
}

// Errors counts the answers that were not what the scenario expects: for a
// 2xx scenario every status error, for a 4xx scenario every answer below 400
// (wrk does not tell 401 from 429 or 500: the harness's spot checks do),
// plus socket errors in both cases.
func (r wrkResult) Errors(expect int) int64 {
	if expect < 400 {
		return r.StatusErrors + r.SocketErrors()
	}
	return r.Requests - r.StatusErrors + r.SocketErrors()
}

const wrkMarker = "loadbench "

// parseWrk reads wrk's standard output: the "loadbench {json}" line of
// paths.lua's done(), and, as a cross-check, wrk's own "Requests/sec:" line.
func parseWrk(out []byte) (wrkResult, error) {
	var res wrkResult
	found := false
	var reported float64
	for _, line := range strings.Split(string(out), "\n") {
		line = strings.TrimSpace(line)
		if js, ok := strings.CutPrefix(line, wrkMarker); ok {
			if err := json.Unmarshal([]byte(js), &res); err != nil {
				return wrkResult{}, fmt.Errorf("wrk summary line %q: %w", line, err)
			}
			found = true
		}
		if v, ok := strings.CutPrefix(line, "Requests/sec:"); ok {
			reported, _ = strconv.ParseFloat(strings.TrimSpace(v), 64)
		}
	}
	if !found {
		return wrkResult{}, fmt.Errorf("wrk printed no %q line (was the script paths.lua?); output:\n%s", strings.TrimSpace(wrkMarker), tail(out, 2000))
	}
	if res.Requests > 0 && res.DurationUS <= 0 {
		return wrkResult{}, errors.New("wrk summary: requests without a duration")
	}
	if reported > 0 && res.RPS() > 0 {
		if d := reported/res.RPS() - 1; d > 0.01 || d < -0.01 {
			return wrkResult{}, fmt.Errorf("wrk summary disagrees with wrk's Requests/sec: %.0f vs %.0f", res.RPS(), reported)
		}
	}
	return res, nil
}

// wrkRun is one invocation of wrk.
type wrkRun struct {
	Threads, Connections int
	Duration             time.Duration
	CPUs                 string // taskset list, "" = unpinned
	Script               string // paths.lua
	URL                  string // base URL
	Paths                string // paths file
	Header, Value        string // optional request header
	// Rate paces the run at this many requests per second in all (argv
	// gives each wrk thread's paths.lua its share); 0 sends as fast as the
	// server answers.
	Rate float64
}

func (w wrkRun) argv() []string {
	var argv []string
	if w.CPUs != "" {
		argv = append(argv, "taskset", "-c", w.CPUs)
	}
	argv = append(argv, "wrk",
		"-t", strconv.Itoa(w.Threads),
		"-c", strconv.Itoa(w.Connections),
		"-d", strconv.Itoa(max(1, int(w.Duration.Round(time.Second)/time.Second)))+"s",
		"--timeout", "2s", "--latency",
		"-s", w.Script, w.URL, "--", w.Paths)
	if w.Header != "" || w.Rate > 0 {
		argv = append(argv, w.Header, w.Value)
	}
	if w.Rate > 0 {
		argv = append(argv, strconv.FormatFloat(w.Rate/float64(max(1, w.Threads)), 'f', 1, 64))
	}
	return argv
}

// run starts wrk, waits for it and returns what it measured and the CPU time
// wrk itself used.
func (w wrkRun) run(ctx context.Context) (wrkResult, time.Duration, error) {
	argv := w.argv()
	ctx, cancel := context.WithTimeout(ctx, w.Duration+2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return wrkResult{}, 0, fmt.Errorf("%s: %w\n%s%s", strings.Join(argv, " "), err, tail(stdout.Bytes(), 1000), tail(stderr.Bytes(), 1000))
	}
	res, err := parseWrk(stdout.Bytes())
	if err != nil {
		return wrkResult{}, 0, err
	}
	return res, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), nil
}

// tail returns the last n bytes of b as text.
func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}
