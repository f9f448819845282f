package main

import (
	"os"
	"path/filepath"
	"testing"
)

func TestEnvSecret(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "secret")
	if err := os.WriteFile(file, []byte("  from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

	if v, err := envSecret(env(map[string]string{"X": " direct "}), "X"); err != nil || v != "direct" {
		t.Errorf("value: got %q, %v", v, err)
	}
	if v, err := envSecret(env(map[string]string{"X_FILE": file}), "X"); err != nil || v != "from-file" {
		t.Errorf("file: got %q, %v", v, err)
	}
	if v, err := envSecret(env(nil), "X"); err != nil || v != "" {
		t.Errorf("unset: got %q, %v", v, err)
	}
	if _, err := envSecret(env(map[string]string{"X": "a", "X_FILE": file}), "X"); err == nil {
		t.Error("both set: want an error")
	} else if exitCode(err) != 2 {
		t.Errorf("both set: exit code %d, want 2 (a configuration mistake)", exitCode(err))
	}
	if _, err := envSecret(env(map[string]string{"X_FILE": filepath.Join(dir, "missing")}), "X"); err == nil {
		t.Error("missing file: want an error")
	}
}
