// Tests of the Python client (clients/python): its generated modules are what
// generate.py writes now, and its own test suite (unittest) passes against a
// real `cardcat serve`, run by the package as `pip install ./clients/python`
// installs it into a new virtual environment. Both skip only when there is no
// python3.
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

// pythonGenerated are the files generate.py writes into python/src/cardcat.
var pythonGenerated = []string{"schemas.py", "_operations.py", "_async_operations.py"}

// python3 returns the path of python3, and skips the test without it.
func python3(t *testing.T) string {
	t.Helper()
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not on PATH: the Python client (clients/python) is not tested; install Python 3.9 or later")
	}
	return python
}

// runPython runs a command with a deadline of 2 minutes and returns its
// output, or an error with the output.
func runPython(dir string, env []string, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// pythonEnv is the environment without CARDCAT_* variables (the client reads
// CARDCAT_API_KEY and CARDCAT_BASE_URL, the server its settings), without
// writing .pyc files into the sources, plus extra.
func pythonEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CARDCAT_") && !strings.HasPrefix(kv, "PYTHON") && !strings.HasPrefix(kv, "VIRTUAL_ENV=") {
			env = append(env, kv)
		}
	}
	env = append(env, "PYTHONDONTWRITEBYTECODE=1", "PIP_DISABLE_PIP_VERSION_CHECK=1", "PIP_NO_INPUT=1")
	return append(env, extra...)
}

// TestPythonClientFresh: python/src/cardcat/schemas.py, _operations.py and _async_operations.py are
// what python/generate.py writes from openapi.json now.
func TestPythonClientFresh(t *testing.T) {
	python := python3(t)
	out := t.TempDir()
	if _, err := runPython(".", pythonEnv(), python, filepath.Join("python", "generate.py"), "--out", out); err != nil {
		t.Fatal(err)
	}
	for _, name := range pythonGenerated {
		got, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		compareFile(t, filepath.Join("python", "src", "cardcat", name), got)
	}
}

// TestPythonClient installs the Python client as its README says (`pip install
// ./clients/python`, from the repository's top directory, into a new virtual
// environment) and runs its test suite (python/tests, unittest) with that
// installation against a real `cardcat serve` on the bundled sample. Every test
// must run: a skipped one fails this test.
func TestPythonClient(t *testing.T) {
	python := python3(t)
	root, err := livetest.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	// The virtual environment is made while the server is built and started.
	venv := filepath.Join(t.TempDir(), "venv")
	bin := filepath.Join(venv, "bin")
	installed := make(chan error, 1)
	go func() {
		_, err := runPython(root, pythonEnv(), python, "-m", "venv", venv)
		if err == nil {
			_, err = runPython(root, pythonEnv(), filepath.Join(bin, "pip"), "install", "./clients/python")
		}
		installed <- err
	}()
	waited := false
	t.Cleanup(func() { // before the temporary directory is removed
		if !waited {
			<-installed
		}
	})
	srv := livetest.Start(t)
	err = <-installed
	waited = true
	if err != nil {
		t.Fatal(err)
	}

	tests := filepath.Join(root, "clients", "python", "tests")
	out, err := runPython(t.TempDir(), pythonEnv(
		"CARDCAT_TEST_BASE_URL="+srv.URL,
		"CARDCAT_TEST_KEY="+srv.Key,
		"CARDCAT_TEST_PAID_KEY="+srv.PaidKey,
		"CARDCAT_TEST_LIMITED_KEY="+srv.LimitedKey,
		"CARDCAT_TEST_INSTALLED="+venv,
	), filepath.Join(bin, "python"), "-m", "unittest", "discover", "-v", "-s", tests, "-t", tests)
	if err != nil {
		t.Fatal(err)
	}
	if m := regexp.MustCompile(`(?m)^OK \(skipped=(\d+)\)$`).FindStringSubmatch(out); m != nil {
		t.Fatalf("%s of the Python client's tests skipped: every one must run here\n%s", m[1], out)
	}
	t.Logf("python -m unittest:\n%s", out)
}
