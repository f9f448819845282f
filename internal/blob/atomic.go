package blob

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// WriteFile replaces the file at path with what write writes to it, so
// that a reader, and the file system after a crash, finds the old file or
// the new one, whole, never a part of one. It is cardcat's one rule for
// writing a file, followed by every file it replaces:
//
//  1. create a temporary file in path's own directory (a rename is atomic
//     only within one file system), named "." + base + ".tmp-*";
//  2. write calls write with it;
//  3. fsync the file: without it the rename can reach the disk before the
//     data does, and a crash leaves an empty or partial file under path;
//  4. set perm, close, rename it over path;
//  5. fsync the directory, so that the rename itself outlives a crash.
//     This one step is best effort: some file systems cannot sync a
//     directory, and by then the new file is complete and in place.
//
// When anything fails before the rename, the temporary file is removed
// and path is left as it was; write's own error is returned as it is. The
// directory must exist. A process killed mid-write leaves its temporary
// file: RemoveTemporary removes those.
func WriteFile(path string, perm fs.FileMode, write func(f *os.File) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+tempInfix+"*")
	if err != nil {
		return fmt.Errorf("blob: writing %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err := write(f); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("blob: writing %s: %w", path, err)
	}
	if err := f.Chmod(perm); err != nil {
		return fmt.Errorf("blob: writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("blob: writing %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("blob: writing %s: %w", path, err)
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

const tempInfix = ".tmp-"

// IsTemporary reports whether a file's base name is that of a temporary
// file of WriteFile, or of the writers it replaced (".tmp-*",
// ".NAME.tmp*").
func IsTemporary(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, ".tmp")
}

// RemoveTemporary removes the temporary files of WriteFile in dir (not
// below it) older than age: writes that a killed process left. With age 0
// it removes them all, for a directory that only one writer uses.
func RemoveTemporary(dir string, age time.Duration) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.IsDir() || !IsTemporary(e.Name()) {
			continue
		}
		if age > 0 {
			fi, err := e.Info()
			if err != nil || time.Since(fi.ModTime()) <= age {
				continue
			}
		}
		os.Remove(filepath.Join(dir, e.Name()))
	}
}
