package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/config"
	"github.com/cardcat/cardcat/internal/httpapi"
	"github.com/cardcat/cardcat/internal/ratelimit"
	"github.com/cardcat/cardcat/internal/ratelimit/memory"
	"github.com/cardcat/cardcat/internal/ratelimit/redis"
	"github.com/cardcat/cardcat/internal/web/accesslog"
)

// BenchmarkChainWrk measures what keys and limits cost a card-detail
// request the way clients send it: over HTTP, from a real load generator
// (wrk, with the load harness's Lua script), to real servers set up as serve
// sets them up (http.Server, the access log formatted and written as serve
// writes it, to a discarding sink). This benchmark process is pinned to CPU 1
// with GOMAXPROCS 1 and wrk to CPU 0, so each server's requests per second
// is the inverse of its CPU cost per request. Off, InProcess and Redis (with
// $CARDCAT_TEST_REDIS_URL) run in turns, round after round, so that all see
// the same machine; Ceiling is a bare handler writing the same card bytes,
// Headers is Off plus the four X-RateLimit-* headers with constant values
// (what sending the headers the spec requires costs at all).
//
// It reports each server's requests/s and
//
//	chain-%        (Off rps / InProcess rps − 1) × 100: the CPU that keys and
//	               the in-process limiter add to a request, as a share of
//	               the request without them
//	headers-%      the same for Headers: the part of chain-% that is the
//	               mandated headers themselves
//	redis-chain-%  the same with the Redis limiter
//
//	go test ./cmd/cardcat -run XXX -bench ChainWrk -benchtime 1x
//
// It needs wrk and taskset (skipped without them). Each round is 2 s per server.
func BenchmarkChainWrk(b *testing.B) {
	for _, tool := range []string{"wrk", "taskset"} {
		if _, err := exec.LookPath(tool); err != nil {
			b.Skipf("%s is not installed (apt-get install -y wrk util-linux)", tool)
		}
	}
	f := newChainFixture(b)

	// The servers, each on its own loopback port.
	type server struct {
		name string
		url  string
		rps  []float64
		p99  []int64
	}
	var servers []*server
	// start serves h on a port of its own; cc, when set, is the server's
	// ConnContext (the API's, as serve sets it).
	start := func(name string, h http.Handler, cc func(context.Context, net.Conn) context.Context) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second, IdleTimeout: 2 * time.Minute, ConnContext: cc}
		go srv.Serve(ln)
		b.Cleanup(func() { srv.Close() })
		servers = append(servers, &server{name: name, url: "http://" + ln.Addr().String()})
	}
	// serve's logger and access log, to nowhere
	logs := accesslog.NewBuffer(io.Discard)
	log := newLogger(config.Log{}, logs)
	access := accesslog.New(config.Log{}, logs)
	api := func(auth httpapi.Authenticator, lim ratelimit.Limiter) *httpapi.Server {
		return f.api(b, log, access, auth, lim)
	}
	start("Ceiling", f.ceiling(), nil)
	offAPI := api(nil, nil)
	start("Off", offAPI.Handler(), offAPI.ConnContext)
	mem := memory.New(memory.Options{})
	b.Cleanup(func() { mem.Close() })
	in := api(account.NewAuthenticator(f.dir, time.Now), mem)
	start("InProcess", in.Handler(), in.ConnContext)
	headers := api(nil, nil)
	start("Headers", withConstantLimitHeaders(headers.Handler()), headers.ConnContext)
	if u := os.Getenv(redisURLVar); u != "" {
		rl, err := redis.Open(context.Background(), u, memory.New(memory.Options{}), redis.Options{Prefix: "cardcat-bench:" + strconv.FormatInt(time.Now().UnixNano(), 36) + ":"})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { rl.Close() })
		rs := api(account.NewAuthenticator(f.dir, time.Now), rl)
		start("Redis", rs.Handler(), rs.ConnContext)
	}

	paths := filepath.Join(b.TempDir(), "paths.txt")
	if err := os.WriteFile(paths, []byte(strings.Join(f.targets, "\n")+"\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	script, err := filepath.Abs("../../bench/lua/paths.lua")
	if err != nil {
		b.Fatal(err)
	}

	// Pin: this process (every thread) to CPU 1, wrk to CPU 0.
	if out, err := exec.Command("taskset", "-a", "-p", "-c", "1", strconv.Itoa(os.Getpid())).CombinedOutput(); err != nil {
		b.Fatalf("taskset: %v: %s", err, out)
	}
	defer exec.Command("taskset", "-a", "-p", "-c", "0-"+strconv.Itoa(runtime.NumCPU()-1), strconv.Itoa(os.Getpid())).Run()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))

	wrk := func(s *server, d time.Duration) (rps float64, p99 int64) {
		cmd := exec.Command("taskset", "-c", "0", "wrk", "-t", "1", "-c", "32", "-d", d.String(), "--latency",
			"-s", script, s.url, "--", paths, "X-API-Key", f.key)
		out, err := cmd.CombinedOutput()
		if err != nil {
			b.Fatalf("wrk: %v: %s", err, out)
		}
		i := bytes.Index(out, []byte("loadbench {"))
		if i < 0 {
			b.Fatalf("wrk printed no result: %s", out)
		}
		line, _, _ := bytes.Cut(out[i+len("loadbench "):], []byte("\n"))
		var res struct {
			DurationUS   int64 `json:"duration_us"`
			Requests     int64 `json:"requests"`
			StatusErrors int64 `json:"status_errors"`
			Latency      struct {
				P99 int64 `json:"p99"`
			} `json:"latency_us"`
		}
		if err := json.Unmarshal(line, &res); err != nil {
			b.Fatalf("wrk result %s: %v", line, err)
		}
		if res.StatusErrors > 0 {
			b.Fatalf("%s: %d answers were not 200", s.name, res.StatusErrors)
		}
		return float64(res.Requests) / (float64(res.DurationUS) / 1e6), res.Latency.P99
	}
	for _, s := range servers {
		wrk(s, time.Second) // warm up: connections, caches, the limiter's pool
	}
	const rounds = 5
	for r := range rounds {
		for i := range servers {
			s := servers[(i+r)%len(servers)] // the order turns each round
			rps, p99 := wrk(s, 2*time.Second)
			s.rps = append(s.rps, rps)
			s.p99 = append(s.p99, p99)
		}
	}
	logs.Flush()

	// Per round ratios, then their median: a round's servers saw the same
	// machine, so the ratio holds where the absolute figures drift.
	byName := map[string]*server{}
	for _, s := range servers {
		byName[s.name] = s
		b.ReportMetric(median(s.rps), strings.ToLower(s.name)+"-rps")
	}
	ratio := func(num, den *server) float64 {
		var rs []float64
		for r := range num.rps {
			rs = append(rs, num.rps[r]/den.rps[r])
		}
		return median(rs)
	}
	off := byName["Off"]
	b.ReportMetric(100*(ratio(off, byName["InProcess"])-1), "chain-%")
	b.ReportMetric(100*(ratio(off, byName["Headers"])-1), "headers-%")
	b.ReportMetric(100*ratio(byName["InProcess"], byName["Ceiling"]), "inprocess-of-ceiling-%")
	if s := byName["Redis"]; s != nil {
		b.ReportMetric(100*(ratio(off, s)-1), "redis-chain-%")
	}
	for _, s := range servers {
		b.Logf("%-9s rps %v p99 µs %v", s.name, fmtFloats(s.rps), s.p99)
	}
}

func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func fmtFloats(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprintf("%.0f", x)
	}
	return "[" + strings.Join(parts, " ") + "]"
}
