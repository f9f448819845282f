package blob_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/blob"
)

func readDir(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	for _, content := range []string{"first", "second, longer"} {
		err := blob.WriteFile(path, 0o640, func(f *os.File) error {
			_, err := f.WriteString(content)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != content {
			t.Fatalf("file = %q, %v; want %q", got, err, content)
		}
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0640", fi.Mode().Perm())
	}
	if names := readDir(t, dir); strings.Join(names, ",") != "state.json" {
		t.Errorf("directory holds %v, want the file only", names)
	}
}

// A failed write leaves the old file as it was, and no temporary file.
func TestWriteFileFails(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := blob.WriteFile(path, 0o644, func(f *os.File) error {
		f.WriteString("half of the new")
		return boom
	})
	if err != boom {
		t.Fatalf("WriteFile = %v, want write's own error", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "old" {
		t.Errorf("file = %q after a failed write, want the old one", got)
	}
	if names := readDir(t, dir); strings.Join(names, ",") != "state.json" {
		t.Errorf("directory holds %v, want the file only", names)
	}
	if err := blob.WriteFile(filepath.Join(dir, "no", "dir"), 0o644, func(*os.File) error { return nil }); err == nil {
		t.Error("WriteFile into a missing directory succeeded")
	}
}

// The temporary file is in the same directory, named so that IsTemporary
// and RemoveTemporary know it.
func TestRemoveTemporary(t *testing.T) {
	dir := t.TempDir()
	var tmp string
	blob.WriteFile(filepath.Join(dir, "42.snap"), 0o644, func(f *os.File) error {
		tmp = f.Name()
		return errors.New("killed")
	})
	if filepath.Dir(tmp) != dir || !blob.IsTemporary(filepath.Base(tmp)) || !strings.HasPrefix(filepath.Base(tmp), ".42.snap.tmp-") {
		t.Fatalf("temporary file %s", tmp)
	}
	for _, name := range []string{".42.snap.tmp-1", ".cards.jsonl.gz.tmp2", "42.snap", ".hidden", "a.tmp-1"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	blob.RemoveTemporary(dir, time.Hour) // all of them are new
	if got := len(readDir(t, dir)); got != 5 {
		t.Errorf("%d files left after removing the old temporary ones, want all 5", got)
	}
	old := time.Now().Add(-2 * time.Hour)
	os.Chtimes(filepath.Join(dir, ".42.snap.tmp-1"), old, old)
	blob.RemoveTemporary(dir, time.Hour)
	if got := strings.Join(readDir(t, dir), ","); got != ".cards.jsonl.gz.tmp2,.hidden,42.snap,a.tmp-1" {
		t.Errorf("left %s after removing the old temporary ones", got)
	}
	blob.RemoveTemporary(dir, 0)
	if got := strings.Join(readDir(t, dir), ","); got != ".hidden,42.snap,a.tmp-1" {
		t.Errorf("left %s after removing every temporary one", got)
	}
}
