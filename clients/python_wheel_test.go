package clients_test

import (
	"archive/zip"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cardcat/cardcat/clients/internal/livetest"
)

// TestPythonWheel builds the Python client's wheel as a publisher would
// (`pip wheel --no-deps ./clients/python`, offline: the build backend is in
// the tree), checks that it holds every module of src/cardcat byte for byte
// and the metadata pyproject.toml gives, and installs it alone into a new
// virtual environment, where `import cardcat` works.
func TestPythonWheel(t *testing.T) {
	python := python3(t)
	root, err := livetest.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if _, err := runPython(root, pythonEnv(), python, "-m", "pip", "wheel", "--no-deps", "--no-index", "-w", out, "./clients/python"); err != nil {
		t.Fatal(err)
	}
	wheels, _ := filepath.Glob(filepath.Join(out, "cardcat-*-py3-none-any.whl"))
	if len(wheels) != 1 {
		t.Fatalf("wheels built: %v", wheels)
	}
	zr, err := zip.OpenReader(wheels[0])
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	inWheel := map[string][]byte{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		inWheel[f.Name] = b
	}
	src := filepath.Join(root, "clients", "python", "src", "cardcat")
	modules, _ := os.ReadDir(src)
	for _, m := range modules {
		if m.IsDir() {
			continue
		}
		want, err := os.ReadFile(filepath.Join(src, m.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := inWheel["cardcat/"+m.Name()]; !ok || string(got) != string(want) {
			t.Errorf("the wheel's cardcat/%s is not src/cardcat/%s (in the wheel: %v)", m.Name(), m.Name(), ok)
		}
	}
	var metadata string
	for name, b := range inWheel {
		if strings.HasSuffix(name, ".dist-info/METADATA") {
			metadata = string(b)
		}
	}
	for _, line := range []string{"Name: cardcat", "Requires-Python: >=3.9"} {
		if !slices.Contains(strings.Split(metadata, "\n"), line) {
			t.Errorf("METADATA lacks %q:\n%.400s", line, metadata)
		}
	}

	venv := filepath.Join(t.TempDir(), "venv")
	if _, err := runPython(root, pythonEnv(), python, "-m", "venv", venv); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(venv, "bin")
	if _, err := runPython(root, pythonEnv(), filepath.Join(bin, "pip"), "install", "--no-index", wheels[0]); err != nil {
		t.Fatal(err)
	}
	got, err := runPython(t.TempDir(), pythonEnv(), filepath.Join(bin, "python"), "-c", "import cardcat; print(cardcat.Client.__name__)")
	if err != nil || strings.TrimSpace(got) != "Client" {
		t.Errorf("import cardcat from the installed wheel: %q, %v", got, err)
	}
}
