// Command testsummary runs `go test -json` with its arguments, prints what a
// plain `go test` prints (each package's result line, and the whole output of
// the tests that failed), then a summary: how many tests passed, skipped and
// failed, and every skipped test grouped by what it needs: the variable its
// skip message names (CARDCAT_TEST_POSTGRES_URL, CARDCAT_TEST_CHROMIUM, ...)
// or, when it names none, its message (a missing program, the real data
// beside the repository). So `make test` says which suites did not run and
// why, instead of skipping them silently. It exits with go test's status.
//
//	go run ./tools/testsummary [-go go] [--] [go test flags and packages]
package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"time"
)

func main() {
	goCmd := flag.String("go", "go", "the go command")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: testsummary [-go go] [--] [go test flags and packages]")
	}
	flag.Parse()
	os.Exit(run(*goCmd, flag.Args(), os.Stdout, os.Stderr))
}

// run runs go test -json args and returns the exit status to leave with.
func run(goCmd string, args []string, stdout, stderr io.Writer) int {
	start := time.Now()
	cmd := exec.Command(goCmd, append([]string{"test", "-json"}, args...)...)
	cmd.Stderr = stderr // what go test says outside the JSON (a bad flag, a package that does not exist)
	events, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(stderr, "testsummary:", err)
		return 2
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(stderr, "testsummary:", err)
		return 2
	}
	s := newSummary(stdout)
	readErr := s.read(events)
	io.Copy(io.Discard, events)
	waitErr := cmd.Wait()
	s.write(stdout, time.Since(start), os.Getenv)
	if readErr != nil {
		fmt.Fprintln(stderr, "testsummary: reading go test -json:", readErr)
	}
	var exit *exec.ExitError
	switch {
	case errors.As(waitErr, &exit):
		return exit.ExitCode()
	case waitErr != nil:
		fmt.Fprintln(stderr, "testsummary:", waitErr)
		return 2
	case readErr != nil || s.failed > 0:
		return 1
	}
	return 0
}

// event is one line of go test -json (cmd/test2json).
type event struct {
	Action     string
	Package    string
	Test       string
	Output     string
	ImportPath string // build-output
}

type testKey struct{ pkg, test string }

// skip is one skipped test and why.
type skip struct {
	pkg, test, why string
	started        int // the test's place in the order the tests started
}

type summary struct {
	out                     io.Writer
	output                  map[testKey][]string // each running test's output, until it ends
	started                 map[testKey]int      // each test's place in the order the tests started
	passed, failed, skipped int                  // tests, subtests included
	skips                   []skip
	packages, failedPkgs    int
}

func newSummary(out io.Writer) *summary {
	return &summary{out: out, output: map[testKey][]string{}, started: map[testKey]int{}}
}

// read prints what plain go test would as the events come, and keeps what
// the summary needs.
func (s *summary) read(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if err := json.Unmarshal(line, &e); err != nil || e.Action == "" {
			fmt.Fprintf(s.out, "%s\n", line) // not an event: shown as it is
			continue
		}
		s.handle(e)
	}
	return sc.Err()
}

func (s *summary) handle(e event) {
	k := testKey{e.Package, e.Test}
	switch {
	case e.Action == "build-output":
		io.WriteString(s.out, e.Output)
	case e.Test == "" && e.Action == "output":
		if e.Output != "PASS\n" && e.Output != "testing: warning: no tests to run\n" {
			io.WriteString(s.out, e.Output)
		}
	case e.Test == "" && (e.Action == "pass" || e.Action == "fail" || e.Action == "skip"):
		s.packages++
		if e.Action == "fail" {
			s.failedPkgs++
			// Tests still running when the package failed (a panic, a
			// timeout): their output says why.
			for tk, lines := range s.output {
				if tk.pkg == e.Package {
					s.print(lines)
					delete(s.output, tk)
				}
			}
		}
	case e.Test == "":
	case e.Action == "run":
		s.started[k] = len(s.started)
	case e.Action == "output":
		s.output[k] = append(s.output[k], e.Output)
	case e.Action == "pass" || e.Action == "fail" || e.Action == "skip":
		lines := s.output[k]
		delete(s.output, k)
		switch e.Action {
		case "pass":
			s.passed++
		case "fail":
			s.failed++
			s.print(lines)
		case "skip":
			s.skipped++
			s.skips = append(s.skips, skip{pkg: e.Package, test: e.Test, why: skipMessage(lines), started: s.started[k]})
		}
	}
}

// print writes a finished test's output as plain go test shows a failed
// one: without the === lines of the verbose form.
func (s *summary) print(lines []string) {
	for _, l := range lines {
		if !strings.HasPrefix(l, "=== ") {
			io.WriteString(s.out, l)
		}
	}
}

// logLine is a line of t.Log, t.Skip, ...: "    file_test.go:12: message".
var logLine = regexp.MustCompile(`^\s+[\w.-]+\.go:\d+: (.*)$`)

// skipMessage is the skip's message: the test's last logged line (t.Skip
// logs it just before the test ends), with its continuation lines.
func skipMessage(lines []string) string {
	var msg []string
	for _, l := range lines {
		l = strings.TrimRight(l, "\n")
		if m := logLine.FindStringSubmatch(l); m != nil {
			msg = []string{m[1]}
		} else if len(msg) > 0 && strings.HasPrefix(l, "        ") {
			msg = append(msg, strings.TrimSpace(l))
		} else if strings.HasPrefix(l, "--- SKIP") {
			break
		}
	}
	if len(msg) == 0 {
		return "no message"
	}
	return strings.Join(msg, " ")
}

// variable is the first environment variable a skip message names.
var variable = regexp.MustCompile(`\bCARDCAT_[A-Z0-9_]+\b`)

// group is the skipped tests that need one thing.
type group struct {
	need  string              // a variable, or the message
	why   string              // the first test's message, in package then start order
	tests map[string][]string // package → tests, in start order
	count int
}

// write prints the summary.
func (s *summary) write(w io.Writer, took time.Duration, getenv func(string) string) {
	fmt.Fprintf(w, "\ntest summary: %d tests passed, %d skipped, %d failed (subtests included), in %d packages (%d failed), %s\n",
		s.passed, s.skipped, s.failed, s.packages, s.failedPkgs, took.Round(time.Second))
	// Packages run at once and a package's tests may end in any order: the
	// skips in package then start order (each package's source order), so
	// that the message a group shows, and its list, are the same whatever
	// ended first.
	skips := slices.Clone(s.skips)
	slices.SortStableFunc(skips, func(a, b skip) int {
		return cmp.Or(cmp.Compare(a.pkg, b.pkg), cmp.Compare(a.started, b.started))
	})
	groups := map[string]*group{}
	for _, sk := range skips {
		need := variable.FindString(sk.why)
		if need == "" {
			need = sk.why
		}
		g := groups[need]
		if g == nil {
			g = &group{need: need, why: sk.why, tests: map[string][]string{}}
			groups[need] = g
		}
		g.tests[sk.pkg] = append(g.tests[sk.pkg], sk.test)
		g.count++
	}
	var vars, others []*group
	for _, g := range groups {
		if strings.HasPrefix(g.need, "CARDCAT_") {
			vars = append(vars, g)
		} else {
			others = append(others, g)
		}
	}
	byNeed := func(a, b *group) int { return cmp.Compare(a.need, b.need) }
	slices.SortFunc(vars, byNeed)
	slices.SortFunc(others, byNeed)

	set := setSuiteVars(getenv)
	if len(set) == 0 {
		set = []string{"none of " + strings.Join(suiteVars, ", ")}
	}
	fmt.Fprintf(w, "suite variables set: %s\n", strings.Join(set, ", "))
	if len(groups) == 0 {
		fmt.Fprintln(w, "no test skipped")
		return
	}
	fmt.Fprintln(w, "skipped, by what they need:")
	for _, g := range vars {
		state := "not set"
		if getenv(g.need) != "" {
			state = "set, yet they skipped"
		}
		fmt.Fprintf(w, "  %s (%s): %s\n", g.need, state, g.describe())
		fmt.Fprintf(w, "      %s\n", g.why) // the first test's: the others say much the same of theirs
	}
	for _, g := range others {
		fmt.Fprintf(w, "  %s: %s\n", g.need, g.describe())
	}
	if len(vars) > 0 {
		fmt.Fprintln(w, "(.ci/run sets every variable, starting or installing what each suite needs)")
	}
}

// describe lists a group's tests by package, a package's subtests of one
// test as one.
func (g *group) describe() string {
	pkgs := make([]string, 0, len(g.tests))
	for p := range g.tests {
		pkgs = append(pkgs, p)
	}
	slices.Sort(pkgs)
	var parts []string
	for _, p := range pkgs {
		var names []string
		for _, t := range g.tests[p] {
			if i := strings.IndexByte(t, '/'); i > 0 {
				t = t[:i] + "/..."
			}
			if !slices.Contains(names, t) {
				names = append(names, t)
			}
		}
		parts = append(parts, strings.TrimPrefix(p, "github.com/cardcat/cardcat/")+" "+strings.Join(names, ", "))
	}
	n := "tests"
	if g.count == 1 {
		n = "test"
	}
	return fmt.Sprintf("%d %s (%s)", g.count, n, strings.Join(parts, "; "))
}

// suiteVars are the variables that turn suites on (.ci/run sets them), for
// the summary's list of those set; a variable that a skip names is listed
// with its skips whether it is here or not.
var suiteVars = []string{
	"CARDCAT_TEST_POSTGRES_URL", "CARDCAT_TEST_REDIS_URL", "CARDCAT_TEST_S3_ENDPOINT", "CARDCAT_TEST_CHROMIUM",
	"CARDCAT_TEST_OPENAPI_LINT", "CARDCAT_TEST_CLIENTS_TS", "CARDCAT_TEST_MCP_TS", "CARDCAT_SHARED_DATA",
}

// setSuiteVars are the suite variables that are set.
func setSuiteVars(getenv func(string) string) []string {
	var set []string
	for _, v := range suiteVars {
		if getenv(v) != "" {
			set = append(set, v)
		}
	}
	return set
}
