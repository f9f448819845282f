package deploy_test

import (
	"bufio"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// dockerfile is the little of a Dockerfile this test reads: its stages and their instructions, continuation
// lines joined, comments dropped.
type dockerfile struct {
	stages []*dockerStage
}

type dockerStage struct {
	from, name   string
	instructions []dockerInstruction
	env          map[string]string // the stage's ENV, in order of appearance (later wins)
}

type dockerInstruction struct {
	cmd  string // upper case: FROM, RUN, COPY...
	args string
}

func parseDockerfile(file string) (*dockerfile, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	df := &dockerfile{}
	var line strings.Builder
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		text := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(text, "#") || (text == "" && line.Len() == 0) {
			continue
		}
		if rest, ok := strings.CutSuffix(text, "\\"); ok {
			line.WriteString(rest + " ")
			continue
		}
		line.WriteString(text)
		full := strings.TrimSpace(line.String())
		line.Reset()
		if full == "" {
			continue
		}
		cmd, args, _ := strings.Cut(full, " ")
		in := dockerInstruction{cmd: strings.ToUpper(cmd), args: strings.TrimSpace(args)}
		if in.cmd == "FROM" {
			fields := strings.Fields(in.args)
			st := &dockerStage{from: fields[0], env: map[string]string{}}
			if len(fields) == 3 && strings.EqualFold(fields[1], "AS") {
				st.name = fields[2]
			}
			df.stages = append(df.stages, st)
			continue
		}
		if len(df.stages) == 0 {
			return nil, fmt.Errorf("%s: %s before FROM", file, in.cmd)
		}
		st := df.stages[len(df.stages)-1]
		st.instructions = append(st.instructions, in)
		if in.cmd == "ENV" {
			for _, kv := range strings.Fields(in.args) {
				k, v, ok := strings.Cut(kv, "=")
				if !ok {
					return nil, fmt.Errorf("%s: ENV %s: write ENV NAME=value", file, in.args)
				}
				st.env[k] = strings.Trim(v, `"`)
			}
		}
	}
	return df, sc.Err()
}

func (df *dockerfile) stage(name string) *dockerStage {
	for _, st := range df.stages {
		if st.name == name {
			return st
		}
	}
	return nil
}

func (st *dockerStage) all(cmd string) []string {
	var out []string
	for _, in := range st.instructions {
		if in.cmd == cmd {
			out = append(out, in.args)
		}
	}
	return out
}

// makeBuildRun is the stage's RUN that runs the Makefile's build target.
func (st *dockerStage) makeBuildRun() string {
	for _, run := range st.all("RUN") {
		if regexp.MustCompile(`(^|&&|;)\s*make build(\s|$)`).MatchString(run) {
			return run
		}
	}
	return ""
}

// jsonArgs reads an exec-form argument list: ["a", "b"].
func jsonArgs(t *testing.T, s string) []string {
	t.Helper()
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "[") || !strings.HasSuffix(s, "]") {
		t.Fatalf("%q: want the exec form [\"...\"] (no shell in the final image)", s)
	}
	var out []string
	for _, part := range strings.Split(strings.Trim(s, "[]"), ",") {
		out = append(out, strings.Trim(strings.TrimSpace(part), `"`))
	}
	return out
}

func mustDockerfile(t *testing.T) *dockerfile {
	t.Helper()
	df, err := parseDockerfile(filepath.Join(root, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	if len(df.stages) < 2 || df.stage("build") == nil {
		t.Fatalf("Dockerfile: want a stage named build and a final stage, got %d stages", len(df.stages))
	}
	return df
}

func (df *dockerfile) final() *dockerStage { return df.stages[len(df.stages)-1] }

// TestDockerfile checks the image's recipe against the Makefile, go.mod and the binary: the builder's Go is the
// module's, the build is `make build` with CGO off and -trimpath, the final image is distroless and non-root,
// runs the binary that was built, and declares the data directory and the API's port.
func TestDockerfile(t *testing.T) {
	t.Parallel()
	df := mustDockerfile(t)
	build, final := df.stage("build"), df.final()

	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	goLine := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindSubmatch(gomod)
	if goLine == nil {
		t.Fatal("go.mod has no go line")
	}
	if want := "golang:" + string(goLine[1]); build.from != want && !strings.HasPrefix(build.from, want+"-") && !strings.HasPrefix(build.from, want+".") {
		t.Errorf("build stage FROM %s, want %s (go.mod's go %s)", build.from, want, goLine[1])
	}
	if build.env["CGO_ENABLED"] != "0" {
		t.Errorf("build stage ENV CGO_ENABLED = %q, want 0 (a static binary for distroless static)", build.env["CGO_ENABLED"])
	}
	if !slices.Contains(strings.Fields(build.env["GOFLAGS"]), "-trimpath") {
		t.Errorf("build stage ENV GOFLAGS = %q, want -trimpath", build.env["GOFLAGS"])
	}
	if build.makeBuildRun() == "" {
		t.Error("the build stage does not RUN make build: its build would not be the one the Makefile (and CI) makes")
	}
	workdirs := build.all("WORKDIR")
	if len(workdirs) == 0 {
		t.Fatal("build stage has no WORKDIR")
	}
	binary := path.Join(workdirs[len(workdirs)-1], "bin/cardcat") // make build's -o, checked by buildLikeDockerfile

	if !strings.HasPrefix(final.from, "gcr.io/distroless/static") || !strings.HasSuffix(final.from, ":nonroot") {
		t.Errorf("final stage FROM %s, want gcr.io/distroless/static...:nonroot", final.from)
	}
	users := final.all("USER")
	if len(users) == 0 || !strings.HasPrefix(users[len(users)-1], "65532") {
		t.Errorf("final stage USER %v, want 65532 (distroless's nonroot)", users)
	}
	var installed string
	for _, c := range final.all("COPY") {
		f := strings.Fields(c)
		if slices.Contains(f, "--from=build") && f[len(f)-2] == binary {
			installed = f[len(f)-1]
		}
	}
	if installed == "" {
		t.Fatalf("final stage copies no %s from the build stage", binary)
	}
	entry := final.all("ENTRYPOINT")
	if len(entry) != 1 || jsonArgs(t, entry[0])[0] != installed {
		t.Errorf("ENTRYPOINT %v, want [%q]", entry, installed)
	}
	if hc := final.all("HEALTHCHECK"); len(hc) > 0 {
		t.Errorf("HEALTHCHECK %v: distroless has no shell or HTTP client to run it", hc)
	}
	cmds := final.all("CMD")
	if len(cmds) != 1 {
		t.Fatalf("final stage CMD %v, want one", cmds)
	}
	env := final.env
	checkCommand(t, "Dockerfile CMD", jsonArgs(t, cmds[0]), env)

	dataDir := env["CARDCAT_DATA_DIR"]
	if dataDir == "" {
		t.Fatal("final stage sets no CARDCAT_DATA_DIR")
	}
	if vols := final.all("VOLUME"); len(vols) != 1 || !slices.Contains(jsonArgs(t, vols[0]), dataDir) {
		t.Errorf("VOLUME %v, want the data directory %s", vols, dataDir)
	}
	ownedData := false
	for _, c := range final.all("COPY") {
		f := strings.Fields(c)
		if slices.Contains(f, "--chown=65532:65532") && f[len(f)-1] == dataDir {
			ownedData = true
		}
	}
	if !ownedData {
		t.Errorf("the final stage does not create %s owned by 65532: a volume mounted there would be root's", dataDir)
	}
	apiPort := fmt.Sprint(portOf(t, "Dockerfile ENV CARDCAT_ADDR", env["CARDCAT_ADDR"]))
	if exp := final.all("EXPOSE"); len(exp) != 1 || !slices.Contains(strings.Fields(exp[0]), apiPort) {
		t.Errorf("EXPOSE %v, want the API's port %s", exp, apiPort)
	}
}

// TestDockerignoreKeepsTheBuildInputs: every file the build reads (the module, the sources, the Makefile and
// everything //go:embed takes in) is in the build context.
func TestDockerignoreKeepsTheBuildInputs(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join(root, ".dockerignore"))
	if err != nil {
		t.Fatal(err)
	}
	var patterns []string
	for line := range strings.Lines(string(data)) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "!") {
			t.Fatalf(".dockerignore: %q: this test reads no exceptions; teach it", line)
		}
		patterns = append(patterns, strings.TrimPrefix(strings.TrimSuffix(line, "/"), "/"))
	}
	needed := []string{"go.mod", "go.sum", "Makefile", "sample.go", "cmd/cardcat/main.go", "internal/httpapi/routes.go"}
	embed := regexp.MustCompile(`(?m)^//go:embed (.+)$`)
	err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		for _, m := range embed.FindAllSubmatch(src, -1) {
			for _, pat := range strings.Fields(string(m[1])) {
				needed = append(needed, filepath.ToSlash(filepath.Join(rel, strings.TrimSuffix(pat, "/*.sql"))))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range needed {
		if strings.HasPrefix(p, "bench/") {
			continue // the load harness is not in the binary
		}
		// A path is left out when it or one of its parents matches a pattern.
		for q := p; q != "." && q != "/"; q = path.Dir(q) {
			for _, pat := range patterns {
				name := q
				if rest, ok := strings.CutPrefix(pat, "**/"); ok {
					pat, name = rest, path.Base(q)
				}
				if ok, _ := path.Match(pat, name); ok {
					t.Errorf(".dockerignore's %q leaves %s out of the build context", pat, p)
				}
			}
		}
	}
}
