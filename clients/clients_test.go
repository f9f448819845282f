// Tests of the generated clients' sources: every generated file is what its
// generator makes of the route table now (make clients rewrites them all),
// and the TypeScript client against a live server. The Go client's live
// tests are in go/cardcat.
package clients_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cardcat/cardcat/clients/internal/livetest"
	"github.com/cardcat/cardcat/clients/openapidoc"
	"github.com/google/go-cmp/cmp"
)

const regenerate = "regenerate with `make clients` and review the diff"

// tsInstalledVar names the directory where `npm ci` installed clients/ts's
// package.json and package-lock.json (.ci/run sets it).
const tsInstalledVar = "CARDCAT_TEST_CLIENTS_TS"

// TestDocumentFresh: openapi.json is the document the route table renders
// now, and openapi-3.0.json its 3.0 copy.
func TestDocumentFresh(t *testing.T) {
	doc, err := openapidoc.Render()
	if err != nil {
		t.Fatal(err)
	}
	doc30, err := openapidoc.Downgrade(doc)
	if err != nil {
		t.Fatal(err)
	}
	compareFile(t, openapidoc.File, doc)
	compareFile(t, openapidoc.File30, doc30)
}

// TestGoClientFresh: go/cardcat/cardcat.gen.go is what the pinned
// oapi-codegen (the go:generate line of go/cardcat/generate.go, run with
// go run) generates from openapi-3.0.json.
func TestGoClientFresh(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("go", "cardcat", "generate.go"))
	if err != nil {
		t.Fatal(err)
	}
	var args []string
	for line := range strings.Lines(string(src)) {
		if rest, ok := strings.CutPrefix(line, "//go:generate go run "); ok {
			args = strings.Fields(rest)
		}
	}
	// generator@version -config oapi-codegen.yaml ../../openapi-3.0.json
	if len(args) != 4 || !strings.Contains(args[0], "/oapi-codegen@v") || args[1] != "-config" {
		t.Fatalf("go/cardcat/generate.go: want one `//go:generate go run .../oapi-codegen@vX -config FILE DOC`, got %q", args)
	}
	dir := t.TempDir()
	config, err := os.ReadFile(filepath.Join("go", "cardcat", args[2]))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, args[2]), config, 0o644); err != nil {
		t.Fatal(err)
	}
	doc, err := filepath.Abs(filepath.Join("go", "cardcat", args[3]))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "run", args[0], "-config", args[2], doc)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run %s: %v\n%s", args[0], err, out)
	}
	got, err := os.ReadFile(filepath.Join(dir, "cardcat.gen.go"))
	if err != nil {
		t.Fatal(err)
	}
	compareFile(t, filepath.Join("go", "cardcat", "cardcat.gen.go"), got)
}

// TestTypeScriptTypesFresh: ts/src/schema.ts is what the pinned
// openapi-typescript generates from openapi.json.
func TestTypeScriptTypesFresh(t *testing.T) {
	installed := tsInstalled(t)
	out := filepath.Join(t.TempDir(), "schema.ts")
	doc, err := filepath.Abs(openapidoc.File)
	if err != nil {
		t.Fatal(err)
	}
	node(t, "", filepath.Join(installed, "node_modules", "openapi-typescript", "bin", "cli.js"), doc, "-o", out)
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	compareFile(t, filepath.Join("ts", "src", "schema.ts"), got)
}

// TestTypeScriptClient compiles the TypeScript client and its tests with
// the pinned TypeScript (type errors fail), and runs the tests
// (ts/test/client.test.ts, node:test) against a real `cardcat serve`, and
// the webhook verifier's (ts/test/webhooks.test.ts) on the signature vectors.
func TestTypeScriptClient(t *testing.T) {
	dir := tsCopy(t, tsInstalled(t))
	node(t, dir, filepath.Join("node_modules", "typescript", "bin", "tsc"), "-p", ".")

	srv := livetest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	vectors, err := filepath.Abs(webhookVectorsFile)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, "node", "--test", "--test-reporter=spec",
		filepath.Join("dist", "test", "client.test.js"), filepath.Join("dist", "test", "webhooks.test.js"))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"CARDCAT_BASE_URL="+srv.URL, "CARDCAT_KEY="+srv.Key, "CARDCAT_LIMITED_KEY="+srv.LimitedKey, "NO_COLOR=1",
		"CARDCAT_WEBHOOK_VECTORS="+vectors)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node --test: %v\n%s", err, out)
	}
	t.Logf("node --test:\n%s", out)
}

// tsCopy copies the TypeScript client (src, test, package.json,
// tsconfig.json) into a new directory beside the node_modules installed
// in installed, so that imports resolve whichever directory npm ci ran in,
// and nothing is written to ts/. It returns the directory.
func tsCopy(t *testing.T, installed string) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{"src", "test"} {
		if err := os.CopyFS(filepath.Join(dir, name), os.DirFS(filepath.Join("ts", name))); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"package.json", "tsconfig.json"} {
		b, err := os.ReadFile(filepath.Join("ts", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(installed, "node_modules"), filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// tsInstalled returns the directory CARDCAT_TEST_CLIENTS_TS names, after
// checking that npm ci installed there the versions ts/package.json pins;
// the test skips without it.
func tsInstalled(t *testing.T) string {
	t.Helper()
	installed := os.Getenv(tsInstalledVar)
	if installed == "" {
		t.Skip(tsInstalledVar + " is not set: it names the directory where npm ci installed clients/ts " +
			"(cd clients/ts && npm ci, then " + tsInstalledVar + "=$PWD); .ci/run sets it")
	}
	installed, err := filepath.Abs(installed)
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct {
		Dependencies, DevDependencies map[string]string
	}
	readJSON(t, filepath.Join("ts", "package.json"), &pkg)
	for name, version := range pkg.Dependencies {
		pkg.DevDependencies[name] = version
	}
	for name, version := range pkg.DevDependencies {
		var got struct{ Version string }
		readJSON(t, filepath.Join(installed, "node_modules", name, "package.json"), &got)
		if got.Version != version {
			t.Fatalf("%s=%s has %s %s, ts/package.json pins %s: run npm ci there again", tsInstalledVar, installed, name, got.Version, version)
		}
	}
	return installed
}

func readJSON(t *testing.T, file string, v any) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}

// node runs a node script in dir and fails the test when it fails.
func node(t *testing.T, dir string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("node %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// compareFile fails when the committed file differs from what was generated.
func compareFile(t *testing.T, file string, generated []byte) {
	t.Helper()
	committed, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s is missing: %s", file, regenerate)
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(committed, generated) {
		diff := cmp.Diff(strings.Split(string(committed), "\n"), strings.Split(string(generated), "\n"))
		if len(diff) > 4000 {
			diff = diff[:4000] + "\n..."
		}
		t.Errorf("%s is stale: %s (-committed +generated):\n%s", file, regenerate, diff)
	}
}
