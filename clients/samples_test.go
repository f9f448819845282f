// Tests of the code samples of every operation (samples/, written by
// samples/samplegen): they are what the generator writes now, and each one,
// in each language, runs against a real `cardcat serve` on the bundled
// sample and prints what samples/output keeps.
package clients_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cardcat/cardcat/clients/internal/livetest"
	"github.com/cardcat/cardcat/clients/openapidoc"
	"github.com/cardcat/cardcat/samples"
	"github.com/cardcat/cardcat/samples/samplegen"
)

var update = flag.Bool("update", false, "TestSamples: rewrite samples/output with what the samples print")

// samplesDir is samples/, from clients/.
const samplesDir = "../samples"

// TestSamplesFresh: every file of samples/ in a language's directory is
// what samplegen writes from the document the route table renders now, and
// there is no other; docs/api.md's "Code samples" is what it writes of them
// and of what they print (samples/output).
func TestSamplesFresh(t *testing.T) {
	doc, err := openapidoc.Render()
	if err != nil {
		t.Fatal(err)
	}
	files, err := samplegen.Files(doc)
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		compareFile(t, filepath.Join(samplesDir, filepath.FromSlash(name)), content)
	}
	// docs/api.md's section of the samples, with what they print.
	section, err := samplegen.Markdown(doc, files, func(opID string) string {
		b, _ := os.ReadFile(filepath.Join(samplesDir, filepath.FromSlash(samples.OutputFile(opID))))
		return strings.TrimRight(string(b), "\n")
	})
	if err != nil {
		t.Fatal(err)
	}
	const apiDoc = "../docs/api.md"
	api := readFile(t, apiDoc)
	want, err := samplegen.SpliceDocs(api, section)
	if err != nil {
		t.Fatal(err)
	}
	compareFile(t, apiDoc, []byte(want))
	for _, dir := range []string{"curl", "python", "ts", "go"} {
		err := filepath.WalkDir(filepath.Join(samplesDir, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			name, _ := filepath.Rel(samplesDir, path)
			if _, ok := files[filepath.ToSlash(name)]; !ok {
				t.Errorf("samples/%s is the sample of no operation: remove it (%s)", filepath.ToSlash(name), regenerate)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestSamples runs every sample of every operation, in every language,
// against a real `cardcat serve` on the bundled sample, with an Ultra key
// in CARDCAT_API_KEY and the server in CARDCAT_URL, each in a directory of
// its own (some write a file). Each must exit 0; the Python, TypeScript and
// Go samples of an operation must print what samples/output/{op}.txt keeps
// (-update rewrites it from the Go sample), and curl's JSON must be JSON.
// Images come from a fake upstream (the sample has none and the test no
// network). The Go samples are built as one program, each sample a package
// of it (its main renamed), as a module of its own that requires this one
// through a replace directive; the TypeScript samples are compiled once with
// the client, when CARDCAT_TEST_CLIENTS_TS is set; the Python samples run
// with the client installed as its README says.
func TestSamples(t *testing.T) {
	doc, err := os.ReadFile(openapidoc.File)
	if err != nil {
		t.Fatal(err)
	}
	ops, err := samplegen.Operations(doc)
	if err != nil {
		t.Fatal(err)
	}
	root, err := livetest.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}

	// The Go program and the Python environment are made while the server
	// is built and started.
	var prep sync.WaitGroup
	var goProgram, venv string
	var goErr, pyErr error
	python, pyMissing := exec.LookPath("python3")
	prep.Go(func() { goProgram, goErr = buildGoSamples(t, root, ops) })
	if pyMissing == nil {
		venv = filepath.Join(t.TempDir(), "venv")
		prep.Go(func() {
			_, pyErr = runPython(root, pythonEnv(), python, "-m", "venv", venv)
			if pyErr == nil {
				_, pyErr = runPython(root, pythonEnv(), filepath.Join(venv, "bin", "pip"), "install", "./clients/python")
			}
		})
	}
	// The TypeScript samples, compiled with the client.
	var tsDir string
	var tsErr error
	if os.Getenv(tsInstalledVar) != "" {
		tsDir = tsCopy(t, tsInstalled(t))
		tsSamples := filepath.Join(tsDir, "test", "samples")
		if err := os.MkdirAll(tsSamples, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, op := range ops {
			src := readFile(t, filepath.Join(root, "samples", "ts", op.ID+".ts"))
			// The client from its sources rather than the installed package.
			src = strings.ReplaceAll(src, `from "cardcat-client"`, `from "../../src/index.js"`)
			if err := os.WriteFile(filepath.Join(tsSamples, op.ID+".ts"), []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(tsDir, "run.mjs"), []byte(tsRunner), 0o644); err != nil {
			t.Fatal(err)
		}
		prep.Go(func() {
			tsc := exec.Command("node", filepath.Join("node_modules", "typescript", "bin", "tsc"), "-p", ".")
			tsc.Dir = tsDir
			if out, err := tsc.CombinedOutput(); err != nil {
				tsErr = fmt.Errorf("tsc -p . of the TypeScript samples: %v\n%s", err, out)
				return
			}
			tsErr = os.Rename(filepath.Join(tsDir, "run.mjs"), filepath.Join(tsDir, "dist", "test", "samples", "run.mjs"))
		})
	}
	t.Cleanup(prep.Wait) // before the temporary directories are removed

	start := time.Now()
	images := fakeImages(t)
	srv := livetest.Start(t,
		"CARDCAT_TCGPLAYER_IMAGE_URL="+images+"/product/{productId}.jpg",
		"CARDCAT_SET_IMAGE_URL="+images+"/{language}/{serie}/{set}/logo.png")
	serving := time.Since(start)
	env := append(livetest.Environ(), "CARDCAT_URL="+srv.URL, "CARDCAT_API_KEY="+srv.PaidKey,
		"PYTHONDONTWRITEBYTECODE=1", "NO_COLOR=1")

	var mu sync.Mutex
	printed := map[string]map[string]string{} // language → operationId → output
	record := func(lang, op, out string) {
		mu.Lock()
		defer mu.Unlock()
		if printed[lang] == nil {
			printed[lang] = map[string]string{}
		}
		printed[lang][op] = out
	}

	t.Run("curl", func(t *testing.T) {
		runEach(t, ops, func(t *testing.T, op samplegen.Operation, dir string) {
			out := runSample(t, dir, env, "sh", filepath.Join(root, "samples", "curl", op.ID+".sh"))
			if strings.HasPrefix(out, "{") && !json.Valid([]byte(out)) {
				t.Errorf("curl of %s printed JSON that is not valid:\n%.500s", op.ID, out)
			}
		})
	})
	t.Run("go", func(t *testing.T) {
		prep.Wait()
		if goErr != nil {
			t.Fatal(goErr)
		}
		runEach(t, ops, func(t *testing.T, op samplegen.Operation, dir string) {
			record("go", op.ID, runSample(t, dir, env, goProgram, op.ID))
		})
	})
	t.Run("python", func(t *testing.T) {
		if pyMissing != nil {
			python3(t) // skips, saying why
		}
		prep.Wait()
		if pyErr != nil {
			t.Fatal(pyErr)
		}
		runEach(t, ops, func(t *testing.T, op samplegen.Operation, dir string) {
			record("python", op.ID, runSample(t, dir, env, filepath.Join(venv, "bin", "python"),
				filepath.Join(root, "samples", "python", op.ID+".py")))
		})
	})
	t.Run("typescript", func(t *testing.T) {
		if tsDir == "" {
			tsInstalled(t) // skips, saying why
		}
		prep.Wait()
		if tsErr != nil {
			t.Fatal(tsErr)
		}
		// One node process imports the samples in turn (a node start per
		// sample costs more than all of them run), each in a directory of
		// its own, and says what each printed.
		args := []string{filepath.Join(tsDir, "dist", "test", "samples", "run.mjs"), t.TempDir()}
		for _, op := range ops {
			args = append(args, op.ID)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "node", args...)
		cmd.Env = env
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("node run.mjs: %v\n%s", err, &stderr)
		}
		var results map[string]struct{ Out, Error string }
		if err := json.Unmarshal(out, &results); err != nil {
			t.Fatalf("node run.mjs: %v\n%s\n%s", err, out, &stderr)
		}
		for _, op := range ops {
			t.Run(op.ID, func(t *testing.T) {
				r, ok := results[op.ID]
				switch {
				case !ok:
					t.Fatalf("node run.mjs did not run %s", op.ID)
				case r.Error != "":
					t.Fatalf("samples/ts/%s.ts: %s\nprinted:\n%s", op.ID, r.Error, r.Out)
				}
				checkPrinted(t, "samples/ts/"+op.ID+".ts", r.Out)
				record("typescript", op.ID, r.Out)
			})
		}
	})

	t.Logf("the server answered after %s, every sample had run after %s", serving.Round(time.Second), time.Since(start).Round(time.Second))
	for _, op := range ops {
		file := filepath.Join(samplesDir, filepath.FromSlash(samples.OutputFile(op.ID)))
		if *update && printed["go"][op.ID] != "" {
			if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, []byte(printed["go"][op.ID]), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(file)
		if err != nil {
			t.Errorf("%s: %v (go test ./clients -run TestSamples -update writes it)", op.ID, err)
			continue
		}
		for _, lang := range []string{"go", "python", "typescript"} {
			got, ok := printed[lang][op.ID]
			if ok && got != string(want) {
				t.Errorf("the %s sample of %s printed:\n%s\nsamples/output/%s.txt keeps:\n%s", lang, op.ID, got, op.ID, want)
			}
		}
	}
}

// unshown are what a sample prints when it prints a missing value or a
// pointer rather than the answer's.
var unshown = regexp.MustCompile(`undefined|\[object Object\]|<nil>|\bNone\b|\bnull\b|0x[0-9a-f]{6,}`)

// runSample runs a sample in dir and returns what it printed, failing the
// test unless it exits 0 and prints values.
func runSample(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s%s", name, strings.Join(args, " "), err, out, &stderr)
	}
	if name == "sh" { // curl prints the answer as it is
		if strings.TrimSpace(string(out)) == "" {
			t.Fatalf("%s %s printed nothing\n%s", name, strings.Join(args, " "), &stderr)
		}
	} else {
		checkPrinted(t, name+" "+strings.Join(args, " "), string(out))
	}
	return string(out)
}

// checkPrinted fails the test unless a sample printed values.
func checkPrinted(t *testing.T, sample, out string) {
	t.Helper()
	if strings.TrimSpace(out) == "" {
		t.Fatalf("%s printed nothing", sample)
	}
	if m := unshown.FindString(out); m != "" {
		t.Errorf("%s printed %q:\n%s", sample, m, out)
	}
}

// tsRunner runs the compiled TypeScript samples named in its arguments
// after a directory, each imported in turn (its top-level awaits done)
// with a directory of its own as the current one, and prints a JSON object:
// operationId → {Out: what it printed (console.log, formatted as node
// does), Error: what it threw}.
const tsRunner = `import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { format } from "node:util";

const [base, ...ops] = process.argv.slice(2);
const results = {};
const log = console.log;
for (const op of ops) {
  const dir = join(base, op);
  mkdirSync(dir, { recursive: true });
  process.chdir(dir);
  let out = "";
  console.log = (...args) => { out += format(...args) + "\n"; };
  try {
    await import("./" + op + ".js");
    results[op] = { Out: out };
  } catch (e) {
    results[op] = { Out: out, Error: String(e && e.stack ? e.stack : e) };
  }
}
console.log = log;
process.stdout.write(JSON.stringify(results));
`

// runEach runs sample for every operation, a few at a time, each in a new
// directory.
func runEach(t *testing.T, ops []samplegen.Operation, sample func(t *testing.T, op samplegen.Operation, dir string)) {
	t.Helper()
	for _, op := range ops {
		t.Run(op.ID, func(t *testing.T) {
			t.Parallel()
			sample(t, op, t.TempDir())
		})
	}
}

// buildGoSamples builds the Go samples as one program, for one link rather
// than one per sample: each sample's file, unchanged but for `package main`
// and `func main()`, is a package of it, and the program runs the one its
// first argument names. The program is a module of its own requiring this
// one through a replace directive (the way to use the client from a
// checkout), built without the network. It returns the program's path.
func buildGoSamples(t *testing.T, root string, ops []samplegen.Operation) (string, error) {
	read := func(name string) (string, error) {
		b, err := os.ReadFile(filepath.Join(root, name))
		return string(b), err
	}
	goMod, err := read("go.mod")
	if err != nil {
		return "", err
	}
	goSum, err := read("go.sum")
	if err != nil {
		return "", err
	}
	callerMod, err := callerGoMod("samples", root, goMod)
	if err != nil {
		return "", err
	}
	dir := t.TempDir()
	files := map[string]string{"go.mod": callerMod, "go.sum": goSum}
	var imports, cases strings.Builder
	for i, op := range ops {
		src, err := read(filepath.Join("samples", "go", op.ID, "main.go"))
		if err != nil {
			return "", err
		}
		pkg := fmt.Sprintf("s%d", i)
		renamed := strings.Replace(strings.Replace(src, "\npackage main\n", "\npackage "+pkg+"\n", 1), "\nfunc main() {\n", "\nfunc Main() {\n", 1)
		if renamed == src || strings.Count(renamed, "func Main()") != 1 {
			return "", fmt.Errorf("samples/go/%s/main.go: no `package main` and `func main() {` to rename", op.ID)
		}
		files[filepath.Join(pkg, "main.go")] = renamed
		fmt.Fprintf(&imports, "\t%s \"samples/%s\"\n", pkg, pkg)
		fmt.Fprintf(&cases, "\tcase %q:\n\t\t%s.Main()\n", op.ID, pkg)
	}
	files["main.go"] = "package main\n\nimport (\n\t\"log\"\n\t\"os\"\n\n" + imports.String() + ")\n\n" +
		"func main() {\n\tswitch os.Args[1] {\n" + cases.String() + "\tdefault:\n\t\tlog.Fatalf(\"no sample %s\", os.Args[1])\n\t}\n}\n"
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			return "", err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	build := exec.CommandContext(ctx, "go", "build", "-mod=mod", "-o", "samples", ".")
	build.Dir = dir
	build.Env = append(livetest.Environ(), "GOPROXY=off", "GOWORK=off", "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build of the Go samples: %v\n%s", err, out)
	}
	return filepath.Join(dir, "samples"), nil
}

// fakeImages serves a 1×1 JPEG at every .jpg path and a PNG at every .png
// path, in the place of the image sources (TCGplayer's CDN, TCGdex), and
// returns its URL.
func fakeImages(t *testing.T) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 1, 1))
	img.Set(0, 0, color.RGBA{R: 200, A: 255})
	var jpg, pngb bytes.Buffer
	if err := jpeg.Encode(&jpg, img, nil); err != nil {
		t.Fatal(err)
	}
	if err := png.Encode(&pngb, img); err != nil {
		t.Fatal(err)
	}
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, ".jpg"):
			w.Header().Set("Content-Type", "image/jpeg")
			w.Write(jpg.Bytes())
		case strings.HasSuffix(r.URL.Path, ".png"):
			w.Header().Set("Content-Type", "image/png")
			w.Write(pngb.Bytes())
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.Close)
	return s.URL
}
