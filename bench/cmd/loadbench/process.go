package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// server is a process the harness started (cardcat serve or a ceiling),
// listening on a loopback address, its stderr in a log file.
type server struct {
	name string
	url  string
	cmd  *exec.Cmd
	log  string
	done chan error
}

// freeAddr returns a loopback address that was free a moment ago.
func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// startServer starts argv (pinned to cpus when set) with env added to the
// harness's environment, stdout and stderr appended to logPath, and waits up
// to ready for GET url+"/health" to answer (any status).
func startServer(ctx context.Context, name, cpus string, argv, env []string, addr, logPath string, ready time.Duration) (*server, error) {
	if cpus != "" {
		argv = append([]string{"taskset", "-c", cpus}, argv...)
	}
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	cmd := exec.Command(argv[0], argv[1:]...) // not CommandContext: stop() ends it gently
	cmd.Env = cleanEnv(env...)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	s := &server{name: name, url: "http://" + addr, cmd: cmd, log: logPath, done: make(chan error, 1)}
	go func() { s.done <- cmd.Wait() }()
	if err := s.waitReady(ctx, ready); err != nil {
		s.stop()
		return nil, err
	}
	return s, nil
}

func (s *server) pid() int { return s.cmd.Process.Pid }

func (s *server) waitReady(ctx context.Context, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	client := &http.Client{Timeout: 2 * time.Second}
	for {
		select {
		case err := <-s.done:
			s.done <- err
			return fmt.Errorf("%s exited before it answered (%v); its log %s ends:\n%s", s.name, err, s.log, logTail(s.log, 2000))
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		resp, err := client.Get(s.url + "/health")
		if err == nil {
			resp.Body.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s did not answer within %s; its log %s ends:\n%s", s.name, limit, s.log, logTail(s.log, 2000))
		}
	}
}

// stop ends the process with SIGTERM (SIGKILL after 30 s) and waits for it.
func (s *server) stop() error {
	if s == nil || s.cmd.Process == nil {
		return nil
	}
	select {
	case err := <-s.done:
		s.done <- err
		return nil // already ended
	default:
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
	}
	s.done <- nil
	return nil
}

func logTail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	return tail(b, n)
}

// memStatus is a process's resident memory from /proc/PID/status.
type memStatus struct {
	RSS, HWM int64 // bytes: VmRSS now, VmHWM the peak
}

func readMem(pid int) (memStatus, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return memStatus{}, err
	}
	defer f.Close()
	var m memStatus
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		var dst *int64
		switch k {
		case "VmRSS":
			dst = &m.RSS
		case "VmHWM":
			dst = &m.HWM
		default:
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		if err != nil {
			return memStatus{}, fmt.Errorf("/proc/%d/status %s: %w", pid, k, err)
		}
		*dst = kb << 10
	}
	return m, sc.Err()
}

// cpuTime returns the user+system CPU time a process has used so far.
func cpuTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	return parseStatCPU(string(b))
}

// clockTicks is USER_HZ, 100 on every Linux this runs on.
const clockTicks = 100

func parseStatCPU(stat string) (time.Duration, error) {
	// The command name (field 2) is in parentheses and may hold spaces.
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, errors.New("/proc stat: no command name")
	}
	f := strings.Fields(stat[i+1:])
	// f[0] is field 3 (state); utime and stime are fields 14 and 15.
	if len(f) < 13 {
		return 0, errors.New("/proc stat: too few fields")
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, fmt.Errorf("/proc stat: %w", err)
	}
	return time.Duration(ut+st) * time.Second / clockTicks, nil
}

// loadAvg returns the 1-minute load average.
func loadAvg() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return -1
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return -1
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}

// cpuTicks are the clock ticks of some CPUs from /proc/stat: all of them,
// and those the hypervisor gave to other machines while these CPUs had work
// (steal).
type cpuTicks struct{ total, steal uint64 }

// readCPUTicks sums the /proc/stat lines of the CPUs in cpus (a taskset list
// such as "1" or "0,2-3"; "" for the machine's "cpu" line).
func readCPUTicks(cpus string) (cpuTicks, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return cpuTicks{}, err
	}
	return parseCPUTicks(string(b), cpus)
}

func parseCPUTicks(stat, cpus string) (cpuTicks, error) {
	want := map[string]bool{}
	if cpus == "" {
		want["cpu"] = true
	}
	for _, part := range strings.Split(cpus, ",") {
		if part == "" {
			continue
		}
		lo, hi, ok := strings.Cut(part, "-")
		if !ok {
			hi = lo
		}
		a, err1 := strconv.Atoi(lo)
		z, err2 := strconv.Atoi(hi)
		if err1 != nil || err2 != nil || a > z {
			return cpuTicks{}, fmt.Errorf("CPU list %q", cpus)
		}
		for i := a; i <= z; i++ {
			want["cpu"+strconv.Itoa(i)] = true
		}
	}
	var t cpuTicks
	found := 0
	for _, line := range strings.Split(stat, "\n") {
		f := strings.Fields(line)
		if len(f) < 9 || !want[f[0]] {
			continue
		}
		found++
		// user nice system idle iowait irq softirq steal [guest guest_nice,
		// which user and nice already include]
		for i, v := range f[1:9] {
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				return cpuTicks{}, fmt.Errorf("/proc/stat %s: %w", f[0], err)
			}
			t.total += n
			if i == 7 {
				t.steal += n
			}
		}
	}
	if found != len(want) {
		return cpuTicks{}, fmt.Errorf("/proc/stat has %d of the %d lines of CPUs %q", found, len(want), cpus)
	}
	return t, nil
}

// stealShare is the share of the CPUs' time stolen between two readings.
func stealShare(a, b cpuTicks) float64 {
	if b.total <= a.total {
		return -1
	}
	return float64(b.steal-a.steal) / float64(b.total-a.total)
}

// snapshotTimes are the figures of cardcat's log line
// `msg="catalogue snapshot ready" version=1 source=store load=12.3s build=4.5s`,
// or, for a version read from its artifact,
// `msg="catalogue snapshot ready" version=1 source=artifact where=disk read=1.2s`.
type snapshotTimes struct {
	Load, Build time.Duration
	Read        time.Duration // the artifact's; 0 when built from the store
	Artifact    bool
}

var (
	snapshotLine         = regexp.MustCompile(`catalogue snapshot ready.*?\bload=(\S+).*?\bbuild=(\S+)`)
	snapshotArtifactLine = regexp.MustCompile(`catalogue snapshot ready.*?\bsource=artifact\b.*?\bread=(\S+)`)
	// bulkReady: the bulk files of the version served are built (or were found on disk).
	bulkReady = regexp.MustCompile(`msg="bulk files ready"`)
	hugeLine  = regexp.MustCompile(`msg="snapshot artifact pages".*?\bhuge_before=(\d+) huge_after=(\d+) whole=(\d+) reread=(\w+) took=(\S+)`)
)

// hugePages is cardcat's log line `msg="snapshot artifact pages" version=1
// huge_before=508 huge_after=1694 whole=1694 reread=true took=2.2s`: how
// much of the artifact (MB) was mapped with 2 MB pages when it was read and
// after its small pages were re-read, of how much could be.
type hugePages struct {
	Before, After, Whole int
	Reread               bool
	Took                 time.Duration
}

// parseHugeLog finds the first such line of a cardcat log.
func parseHugeLog(log string) (hugePages, bool) {
	m := hugeLine.FindStringSubmatch(log)
	if m == nil {
		return hugePages{}, false
	}
	var h hugePages
	var err [4]error
	h.Before, err[0] = strconv.Atoi(m[1])
	h.After, err[1] = strconv.Atoi(m[2])
	h.Whole, err[2] = strconv.Atoi(m[3])
	h.Reread = m[4] == "true"
	h.Took, err[3] = time.ParseDuration(m[5])
	return h, errors.Join(err[:]...) == nil
}

// parseSnapshotLog finds the first snapshot line of a cardcat log.
func parseSnapshotLog(log string) (snapshotTimes, bool) {
	a := snapshotArtifactLine.FindStringSubmatchIndex(log)
	m := snapshotLine.FindStringSubmatchIndex(log)
	if a != nil && (m == nil || a[0] < m[0]) {
		read, err := time.ParseDuration(strings.Trim(log[a[2]:a[3]], `"`))
		return snapshotTimes{Read: read, Artifact: true}, err == nil
	}
	if m == nil {
		return snapshotTimes{}, false
	}
	return parseBuildTimes(log[m[2]:m[3]], log[m[4]:m[5]])
}

func parseBuildTimes(loadS, buildS string) (snapshotTimes, bool) {
	m := []string{"", loadS, buildS}
	load, err1 := time.ParseDuration(strings.Trim(m[1], `"`))
	build, err2 := time.ParseDuration(strings.Trim(m[2], `"`))
	if err1 != nil || err2 != nil {
		return snapshotTimes{}, false
	}
	return snapshotTimes{Load: load, Build: build}, true
}

// fileSize returns a file's size, 0 when it cannot be read.
func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}
