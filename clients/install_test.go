// The clients' installs, run as their READMEs write them: each `sh` block of
// a README's "Install" section runs in bash in a new directory, without the
// network (the Go blocks' modules downloaded first), then a small program
// that imports the installed client is built and run in the project the
// block ends in. (The Python client's install,
// `pip install ./clients/python`, is run by TestPythonClient.)
package clients_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cardcat/cardcat/clients/internal/livetest"
)

// The placeholders of the READMEs' install blocks, which the test replaces.
const (
	// installCheckout is the reader's checkout of this repository.
	installCheckout = "/path/to/cardcat"
	// installProject is the reader's project, made by the block when new.
	installProject = "/path/to/your-project"
)

// TestClientInstall runs the install blocks of the Go client's README (each
// a way: a replace line, a workspace) and of the TypeScript client's (npm
// pack, then npm install of the tarball; when CARDCAT_TEST_CLIENTS_TS is
// set), then builds a program against the installed client.
func TestClientInstall(t *testing.T) {
	t.Run("go", func(t *testing.T) {
		needTools(t, "the Go client's install (go/cardcat/README.md) is not tested", "bash", "go")
		root, err := livetest.ModuleRoot()
		if err != nil {
			t.Fatal(err)
		}
		blocks := installBlocks(t, filepath.Join("go", "cardcat", "README.md"))
		prefetchGoClientModules(t, root)
		for i, block := range blocks {
			t.Run(fmt.Sprint("block", i+1), func(t *testing.T) {
				t.Parallel()
				// Offline: GOPROXY=off, prefetchGoClientModules put every
				// module the client needs in the module cache. go get writes
				// the go.sum lines of the client's dependencies, which it
				// would check against the checksum database online; offline
				// it has the module cache's hashes alone (checked against the
				// repository's go.sum when they were downloaded):
				// GOSUMDB=off. No -mod=mod: the block must leave a go.mod
				// that builds as it is.
				env := append(goInstallEnv(), "GOPROXY=off", "GOSUMDB=off", "GOFLAGS=", "GOTOOLCHAIN=local")
				project := runInstallBlock(t, block, root, env)
				writeFiles(t, project, map[string]string{"main.go": goInstallProgram})
				runIn(t, project, env, "go", "build", "-o", "hello", ".")
				if out := runIn(t, project, env, filepath.Join(project, "hello")); out != "*cardcat.ClientWithResponses 7\n" {
					t.Errorf("the program printed %q", out)
				}
			})
		}
	})
	t.Run("ts", func(t *testing.T) {
		installed := tsInstalled(t)
		needTools(t, "the TypeScript client's install (ts/README.md) is not tested", "bash", "node", "npm")
		// The block writes into the checkout (node_modules, dist, the
		// tarball): it runs on a copy of ts/ at clients/ts of a new
		// directory.
		checkout := t.TempDir()
		ts := filepath.Join(checkout, "clients", "ts")
		for _, name := range []string{"src", "test"} {
			if err := os.CopyFS(filepath.Join(ts, name), os.DirFS(filepath.Join("ts", name))); err != nil {
				t.Fatal(err)
			}
		}
		for _, name := range []string{"package.json", "package-lock.json", "tsconfig.json"} {
			writeFiles(t, ts, map[string]string{name: readFile(t, filepath.Join("ts", name))})
		}
		// npm ci takes the packages of ts/package-lock.json from npm's cache,
		// where the npm ci that filled CARDCAT_TEST_CLIENTS_TS put them (the
		// registry only for what is missing there); the project's install
		// needs nothing more: the tarball carries openapi-fetch.
		var env []string
		for _, kv := range livetest.Environ() {
			if !strings.HasPrefix(strings.ToLower(kv), "npm_config_") && !strings.HasPrefix(kv, "NODE_ENV=") {
				env = append(env, kv)
			}
		}
		env = append(env, "npm_config_prefer_offline=true", "npm_config_audit=false", "npm_config_fund=false",
			"npm_config_update_notifier=false", "NO_COLOR=1")
		blocks := installBlocks(t, filepath.Join("ts", "README.md"))
		if len(blocks) != 1 {
			t.Fatalf("ts/README.md: want one sh block in its Install section, got %d", len(blocks))
		}
		project := runInstallBlock(t, blocks[0], checkout, env)
		writeFiles(t, project, map[string]string{"hello.ts": tsInstallProgram, "tsconfig.json": tsInstallConfig})
		// The project has no TypeScript of its own: the pinned one compiles
		// the program against the installed package's declarations.
		runIn(t, project, env, "node", filepath.Join(installed, "node_modules", "typescript", "bin", "tsc"), "-p", ".")
		if out := runIn(t, project, env, "node", "hello.js"); out != "function function 7\n" {
			t.Errorf("the program printed %q", out)
		}
	})
}

// goInstallProgram uses the client without a server: it makes a client and
// reads the rate-limit headers.
const goInstallProgram = `package main

import (
	"fmt"
	"log"
	"net/http"

	"github.com/cardcat/cardcat/clients/go/cardcat"
)

func main() {
	client, err := cardcat.NewClientWithResponses("http://localhost:8080", cardcat.WithAPIKey("key"))
	if err != nil {
		log.Fatal(err)
	}
	h := http.Header{}
	h.Set("X-RateLimit-Limit-Hour", "100")
	h.Set("X-RateLimit-Remaining-Hour", "7")
	h.Set("X-RateLimit-Limit-Day", "1000")
	h.Set("X-RateLimit-Remaining-Day", "70")
	rl, err := cardcat.RateLimitOf(h)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%T %d\n", client, rl.RemainingHour)
}
`

// tsInstallProgram is type-checked against the installed package (a path,
// its parameters and its answer) and run without a server: it reads
// rate-limit headers, and sets is never called.
const tsInstallProgram = `import { createCardcatClient, rateLimit, type SetList } from "cardcat-client";

const cardcat = createCardcatClient({ baseUrl: "http://localhost:8080", apiKey: "key" });

async function sets(): Promise<SetList | undefined> {
  const { data } = await cardcat.GET("/{game}/sets", { params: { path: { game: "dbs" } } });
  return data;
}

const headers = {
  "X-RateLimit-Limit-Hour": "100",
  "X-RateLimit-Remaining-Hour": "7",
  "X-RateLimit-Limit-Day": "1000",
  "X-RateLimit-Remaining-Day": "70",
};
console.log(typeof cardcat.GET, typeof sets, rateLimit(new Response(null, { headers }))?.remainingHour);
`

// tsInstallConfig compiles hello.ts as the ES module the project's
// package.json ("type": "module") makes it, checking the package's
// declarations too.
const tsInstallConfig = `{
  "compilerOptions": {
    "target": "ES2022",
    "module": "NodeNext",
    "moduleResolution": "NodeNext",
    "lib": ["ES2022", "DOM"],
    "types": [],
    "strict": true,
    "skipLibCheck": false
  },
  "files": ["hello.ts"]
}
`

// installBlocks are the sh blocks of the "## Install" section of file, each
// of which must name the placeholders of the checkout and the project.
func installBlocks(t *testing.T, file string) []string {
	t.Helper()
	text := readFile(t, file)
	start := strings.Index(text, "\n## Install\n")
	if start < 0 {
		t.Fatalf("%s has no \"## Install\" section", file)
	}
	section := text[start+1:]
	if end := strings.Index(section[1:], "\n## "); end >= 0 {
		section = section[:end+1]
	}
	var blocks []string
	for _, m := range regexp.MustCompile("(?ms)^```sh\n(.*?)^```$").FindAllStringSubmatch(section, -1) {
		for _, placeholder := range []string{installCheckout, installProject} {
			if !strings.Contains(m[1], placeholder) {
				t.Fatalf("%s: an install block does not name %s, which the test replaces:\n%s", file, placeholder, m[1])
			}
		}
		blocks = append(blocks, m[1])
	}
	if len(blocks) == 0 {
		t.Fatalf("%s: its Install section has no sh block", file)
	}
	return blocks
}

// runInstallBlock runs block in bash (stopping at the first command that
// fails) in a new directory, with checkout in the place of installCheckout
// and a new directory's path in the place of installProject, and returns
// the directory the block ends in, which must be the project.
func runInstallBlock(t *testing.T, block, checkout string, env []string) string {
	t.Helper()
	tmp := t.TempDir()
	project := filepath.Join(tmp, "project", "hello")
	where := filepath.Join(tmp, "pwd")
	script := "set -e\n" + strings.NewReplacer(installCheckout, checkout, installProject, project).Replace(block) +
		"pwd -P >" + where + "\n"
	work := filepath.Join(tmp, "work")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", script)
	cmd.Dir = work
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the README's install block failed: %v\n%s\nthe block as run:\n%s", err, out, script)
	}
	t.Logf("the install block printed:\n%s", out)
	ended := strings.TrimSpace(readFile(t, where))
	if want, err := filepath.EvalSymlinks(project); err != nil || ended != want {
		t.Fatalf("the install block ends in %s, want the project %s (%v)", ended, project, err)
	}
	return project
}

// prefetchGoClientModules downloads into the module cache, with the
// environment's GOPROXY and GOSUMDB, the modules the Go client's install
// blocks need, so that they can run offline on a machine whose module cache
// holds only what the repository's own build needed. go get, and a build in
// a workspace with the checkout, load the client's module graph, which
// needs the go.mod file of each module in it (go list -m all: the go.mod
// files alone, checked against the repository's go.sum), and the source of
// the modules the client's packages import (go list -deps).
func prefetchGoClientModules(t *testing.T, root string) {
	t.Helper()
	env := append(goInstallEnv(), "GOFLAGS=", "GOTOOLCHAIN=local")
	runIn(t, root, env, "go", "list", "-m", "all")
	runIn(t, root, env, "go", "list", "-deps", "./clients/go/cardcat")
}

// goInstallEnv is the environment without CARDCAT_* variables and without
// GOWORK (so that go work init's go.work counts) or GOFLAGS.
func goInstallEnv() []string {
	var env []string
	for _, kv := range livetest.Environ() {
		if !strings.HasPrefix(kv, "GOWORK=") && !strings.HasPrefix(kv, "GOFLAGS=") {
			env = append(env, kv)
		}
	}
	return env
}

// needTools skips the test, saying what is not tested, when a program is not
// on PATH.
func needTools(t *testing.T, what string, names ...string) {
	t.Helper()
	for _, name := range names {
		if _, err := exec.LookPath(name); err != nil {
			t.Skipf("%s is not on PATH: %s", name, what)
		}
	}
}

// runIn runs a program in dir with env and returns its output, failing the
// test when it fails.
func runIn(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
