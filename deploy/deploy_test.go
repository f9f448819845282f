// Package deploy_test checks the deployment files (the Dockerfile, deploy/compose.yaml, deploy/kubernetes) against
// cardcat itself: no container daemon, registry or cluster runs here, so what can be checked without them is
// checked: the manifests decode strictly into the official Kubernetes types, the compose file loads in the compose
// spec's own loader, and every command, flag, variable, port and probe they name is one the binary has, the binary
// being built with the Dockerfile's own build command.
package deploy_test

import (
	"bytes"
	"context"
	"debug/buildinfo"
	"debug/elf"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/config"
	"github.com/cardcat/cardcat/internal/testkit"
)

// root is the repository's root, from this package's directory.
const root = ".."

// goRuntimeEnv are read by the Go runtime of every Go program, cardcat included.
var goRuntimeEnv = map[string]bool{"GOMEMLIMIT": true, "GOMAXPROCS": true, "GOGC": true, "GODEBUG": true}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// built is the binary of the Dockerfile's build command, made once per test run.
var built struct {
	once    sync.Once
	dir     string
	path    string
	version string
	err     error
}

// cardcatBinary returns cmd/cardcat built as the Dockerfile builds it (buildLikeDockerfile).
func cardcatBinary(t *testing.T) string {
	t.Helper()
	built.once.Do(func() { built.path, built.err = buildLikeDockerfile() })
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.path
}

// buildLikeDockerfile runs the build stage's command: the go command that its `make build` runs (asked of make
// with -n, so that it is the Makefile's, which CI uses, not a copy), with the stage's ENV but -trimpath, writing
// the binary to a temporary directory instead of bin/.
func buildLikeDockerfile() (string, error) {
	df, err := parseDockerfile(filepath.Join(root, "Dockerfile"))
	if err != nil {
		return "", err
	}
	stage := df.stage("build")
	if stage == nil {
		return "", errors.New("Dockerfile: no stage named build")
	}
	run := stage.makeBuildRun()
	if run == "" {
		return "", errors.New("Dockerfile: the build stage has no RUN make build")
	}
	built.version = "deploy-test"
	makeCmd := exec.Command("make", "-s", "--no-print-directory", "-n", "build", "VERSION="+built.version)
	makeCmd.Dir = root
	out, err := makeCmd.Output()
	if err != nil {
		return "", fmt.Errorf("make -n build: %w", err)
	}
	goCmd := strings.TrimSpace(string(out))
	if strings.Contains(goCmd, "\n") {
		return "", fmt.Errorf("make build runs more than one command; the test runs one:\n%s", goCmd)
	}
	args, err := shellWords(goCmd)
	if err != nil {
		return "", err
	}
	if len(args) < 2 || filepath.Base(args[0]) != "go" || args[1] != "build" {
		return "", fmt.Errorf("make build runs %q, not a go build", goCmd)
	}
	o := slices.Index(args, "-o")
	if o < 0 || o+1 >= len(args) || args[o+1] != "bin/cardcat" {
		return "", fmt.Errorf("make build runs %q: want -o bin/cardcat (the Dockerfile copies /src/bin/cardcat)", goCmd)
	}
	built.dir, err = os.MkdirTemp("", "cardcat-deploy-test-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(built.dir, "cardcat")
	args[o+1] = bin
	cmd := exec.Command("go", args[1:]...)
	cmd.Dir = root
	cmd.Env = os.Environ()
	for k, v := range stage.env {
		if k == "GOFLAGS" {
			// -trimpath changes every package's compilation, so it would rebuild all of them, the standard
			// library included, instead of reusing what the other tests compiled: minutes on a cold cache
			// (TestDockerfile checks that the image asks for it). No .git in the image's build context, so
			// nothing to stamp: the same as -buildvcs=false here.
			v = strings.Join(slices.DeleteFunc(strings.Fields(v), func(f string) bool { return f == "-trimpath" }), " ") + " -buildvcs=false"
		}
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("%s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return bin, nil
}

// TestDockerfileBuildsAStaticBinary: the binary of the Dockerfile's build has no dynamic loader or library (so it
// runs on distroless static), and the version it was given.
func TestDockerfileBuildsAStaticBinary(t *testing.T) {
	t.Parallel()
	bin := cardcatBinary(t)
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Error("the binary asks for a dynamic loader (PT_INTERP): not static")
		}
	}
	if libs, err := f.ImportedLibraries(); err != nil || len(libs) > 0 {
		t.Errorf("the binary needs shared libraries %v (%v)", libs, err)
	}
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	if settings["CGO_ENABLED"] != "0" {
		t.Errorf("CGO_ENABLED = %q, want 0", settings["CGO_ENABLED"])
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.TrimSpace(string(out)), "cardcat "+built.version; got != want {
		t.Errorf("cardcat version = %q, want %q (the Makefile's -ldflags)", got, want)
	}
}

// cardcatEnv is every variable cardcat reads: internal/config's table (NAME_FILE of each secret included), plus
// the Go runtime's own.
var cardcatEnv = sync.OnceValues(func() (map[string]bool, error) {
	names := map[string]bool{}
	for _, name := range config.Variables() {
		names[name] = true
	}
	for name := range goRuntimeEnv {
		names[name] = true
	}
	// A test that passes on an empty set is no test.
	for _, want := range []string{"CARDCAT_DATA_DIR", "CARDCAT_DATABASE_URL_FILE", "CARDCAT_S3_SECRET_KEY_FILE", "CARDCAT_ADMIN_ADDR"} {
		if !names[want] {
			return nil, fmt.Errorf("internal/config's table has no %s", want)
		}
	}
	return names, nil
})

// cli is what the built binary says of itself: its commands, and each command's flags and documented variables.
type cli struct {
	commands map[string]bool
	flags    map[string]map[string]bool // command -> flag names without dashes
	helpEnv  map[string]map[string]bool // command -> the CARDCAT_* its --help names
	allHelp  map[string]bool            // every CARDCAT_* some command's --help names
}

var cliOnce struct {
	once sync.Once
	cli  *cli
	err  error
}

func cardcatCLI(t *testing.T) *cli {
	t.Helper()
	bin := cardcatBinary(t)
	cliOnce.once.Do(func() { cliOnce.cli, cliOnce.err = readCLI(bin) })
	if cliOnce.err != nil {
		t.Fatal(cliOnce.err)
	}
	return cliOnce.cli
}

func readCLI(bin string) (*cli, error) {
	out, err := exec.Command(bin, "help").Output()
	if err != nil {
		return nil, fmt.Errorf("cardcat help: %w", err)
	}
	c := &cli{commands: map[string]bool{}, flags: map[string]map[string]bool{}, helpEnv: map[string]map[string]bool{}, allHelp: map[string]bool{}}
	inCommands := false
	for line := range strings.Lines(string(out)) {
		switch {
		case strings.HasPrefix(line, "Commands:"):
			inCommands = true
		case inCommands && strings.HasPrefix(line, "  "):
			c.commands[strings.Fields(line)[0]] = true
		case inCommands:
			inCommands = false
		}
	}
	flagLine := regexp.MustCompile(`(?m)^\s+-([a-z][a-z0-9-]*)`)
	envWord := regexp.MustCompile(`CARDCAT_[A-Z0-9_]+`)
	for name := range c.commands {
		if name == "version" {
			continue
		}
		help, err := runHelp(bin, name)
		if err != nil {
			return nil, err
		}
		c.flags[name] = map[string]bool{}
		for _, m := range flagLine.FindAllStringSubmatch(help, -1) {
			c.flags[name][m[1]] = true
		}
		c.helpEnv[name] = map[string]bool{}
		for _, v := range envWord.FindAllString(help, -1) {
			c.helpEnv[name][v] = true
			c.allHelp[v] = true
		}
	}
	if !c.commands["serve"] || !c.flags["serve"]["admin-addr"] || !c.helpEnv["serve"]["CARDCAT_ADMIN_ADDR"] {
		return nil, fmt.Errorf("cardcat's help lists no serve --admin-addr (CARDCAT_ADMIN_ADDR): the parse is broken; commands %v", c.commands)
	}
	return c, nil
}

// runHelp runs `cardcat NAME --help` (and, for a command with subcommands such as keys, what it prints).
func runHelp(bin string, name string) (string, error) {
	cmd := exec.Command(bin, name, "--help")
	cmd.Env = []string{}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return "", fmt.Errorf("cardcat %s --help: %w", name, err)
	}
	return out.String(), nil
}

// checkCommand checks one run of cardcat that a deployment file asks for: args (the command and its flags) and
// the variables set for it. where names the file and the container or service.
func checkCommand(t *testing.T, where string, args []string, env map[string]string) {
	t.Helper()
	c := cardcatCLI(t)
	if len(args) == 0 {
		t.Errorf("%s: no command (the image's CMD would be serve; say it)", where)
		return
	}
	cmdName := args[0]
	if !c.commands[cmdName] {
		t.Errorf("%s: %q is not a cardcat command", where, cmdName)
		return
	}
	for _, a := range args[1:] {
		if !strings.HasPrefix(a, "-") {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !c.flags[cmdName][name] {
			t.Errorf("%s: cardcat %s has no flag %s", where, cmdName, a)
		}
	}
	// The whole command line parses: its flags and their values, then --help stops before anything runs.
	run := exec.Command(cardcatBinary(t), append(slices.Clone(args), "--help")...)
	run.Env = []string{}
	if out, err := run.CombinedOutput(); err != nil {
		t.Errorf("%s: cardcat %s --help: %v\n%s", where, strings.Join(args, " "), err, out)
	}
	checkEnv(t, where, cmdName, env)
}

// checkEnv checks that cardcat reads each variable, and that a variable documented by some command's --help is
// one of this command's.
func checkEnv(t *testing.T, where, cmdName string, env map[string]string) {
	t.Helper()
	known, err := cardcatEnv()
	if err != nil {
		t.Fatal(err)
	}
	c := cardcatCLI(t)
	for _, name := range slices.Sorted(mapsKeys(env)) {
		if !known[name] {
			t.Errorf("%s: cardcat reads no variable %s", where, name)
			continue
		}
		if c.allHelp[name] && !c.helpEnv[cmdName][name] {
			t.Errorf("%s: %s is not one of cardcat %s's variables (its --help does not name it)", where, name, cmdName)
		}
	}
}

func mapsKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// servedProbes starts the built binary's serve (SQLite in a temporary directory, the bundled sample, the admin
// server on loopback) and returns the status of GET path on the admin server and on the API for each path.
func servedProbes(t *testing.T, adminPaths, apiPaths []string) (admin, api map[string]int) {
	t.Helper()
	bin := cardcatBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "serve")
	cmd.Env = []string{
		"CARDCAT_DATA_DIR=" + t.TempDir(),
		"CARDCAT_ADDR=127.0.0.1:0",
		"CARDCAT_ADMIN_ADDR=127.0.0.1:0",
	}
	var stdout, stderr testkit.SyncBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	}()
	apiRe := regexp.MustCompile(`cardcat listening on http://(\S+)`)
	adminRe := regexp.MustCompile(`msg="admin \(pprof, probes\) listening" addr=(\S+)`)
	var apiAddr, adminAddr string
	for apiAddr == "" || adminAddr == "" {
		if ctx.Err() != nil {
			t.Fatalf("serve did not start within 2 minutes; stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
		}
		if m := apiRe.FindStringSubmatch(stdout.String()); m != nil {
			apiAddr = m[1]
		}
		if m := adminRe.FindStringSubmatch(stderr.String()); m != nil {
			adminAddr = m[1]
		}
		time.Sleep(50 * time.Millisecond)
	}
	client := &http.Client{Timeout: 10 * time.Second}
	get := func(addr, path string) int {
		resp, err := client.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	admin, api = map[string]int{}, map[string]int{}
	for _, p := range adminPaths {
		admin[p] = get(adminAddr, p)
	}
	for _, p := range apiPaths {
		api[p] = get(apiAddr, p)
	}
	return admin, api
}

// portOf is the port of a listen address such as ":8080" or "0.0.0.0:6060".
func portOf(t *testing.T, where, addr string) int {
	t.Helper()
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatalf("%s: listen address %q: %v", where, addr, err)
	}
	n, err := strconv.Atoi(p)
	if err != nil {
		t.Fatalf("%s: listen address %q: %v", where, addr, err)
	}
	return n
}

// shellWords splits a command line the way sh would for what make prints: words, double and single quotes.
func shellWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '"' || r == '\'':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case r == '\\' || r == '$' || r == '`':
			return nil, fmt.Errorf("%q: this test splits plain words and quotes only", s)
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("%q: unterminated quote", s)
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}
