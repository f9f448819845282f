package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// runBackup runs `cardcat backup args...` and returns its exit code, stdout
// and stderr (with the error, as main prints it).
func runBackup(t *testing.T, vars map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), append([]string{"backup"}, args...), testEnv(vars), &stdout, &stderr)
	code := 0
	if err != nil {
		code = exitCode(err)
		if !errors.Is(err, flag.ErrHelp) {
			stderr.WriteString(err.Error())
		}
	}
	return code, stdout.String(), stderr.String()
}

// ingestSample writes the bundled sample into dir's SQLite store.
func ingestSample(t *testing.T, dir string) {
	t.Helper()
	var out, errb bytes.Buffer
	if err := run(context.Background(), []string{"ingest", "--from", "../../sample", "--data-dir", dir}, testEnv(nil), &out, &errb); err != nil {
		t.Fatalf("ingest: %v\n%s", err, errb.String())
	}
}

// TestBackupRestore backs up the store of a running server; a server started
// on the backup alone (copied in place of the store's file) answers the same
// card, byte for byte, to the same key.
func TestBackupRestore(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	key := newKey(t, dir)
	s := startServe(t, dir, nil)
	_, body := get(t, s.url+"/dbs/search?q=Master+Roshi", "X-API-Key", key)
	id := regexp.MustCompile(`"id":"(dbs_[0-9a-f]+)"`).FindSubmatch(body)
	if id == nil {
		t.Fatalf("no card id in %.300s", body)
	}
	cardURL := "/dbs/cards/" + string(id[1])
	resp, want := get(t, s.url+cardURL, "X-API-Key", key)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: %d %s", cardURL, resp.StatusCode, want)
	}
	wantTag := resp.Header.Get("ETag")

	out := filepath.Join(t.TempDir(), "cardcat-backup.db")
	if code, _, stderr := runBackup(t, map[string]string{"CARDCAT_DATA_DIR": dir}, "--out", out); code != 0 {
		t.Fatalf("backup while serving: exit %d\n%s", code, stderr)
	}
	if err := s.stop(); err != nil {
		t.Fatal(err)
	}

	restored := t.TempDir()
	copyFile(t, out, filepath.Join(restored, "cardcat.db"))
	s2 := startServe(t, restored, nil)
	if strings.Contains(s2.stderr.String(), "loading the bundled sample") {
		t.Error("the restored store looked empty: the sample was loaded")
	}
	resp, got := get(t, s2.url+cardURL, "X-API-Key", key)
	if resp.StatusCode != http.StatusOK || !bytes.Equal(got, want) || resp.Header.Get("ETag") != wantTag {
		t.Errorf("restored %s: %d, ETag %q (want %q)\n%s\nwant\n%s", cardURL, resp.StatusCode, resp.Header.Get("ETag"), wantTag, got, want)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	r, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(w, r); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestBackupRefusals: every mistake is a message that says what to do, with
// the exit status of the other commands (2 for the command line, 1 for the
// files), and leaves no file behind.
func TestBackupRefusals(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ingestSample(t, dir)
	outDir := t.TempDir()
	existing := filepath.Join(outDir, "existing.db")
	if err := os.WriteFile(existing, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	notDB := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(notDB, []byte(strings.Repeat("not a database ", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		vars map[string]string
		args []string
		code int
		want string
	}{
		{"no --out", nil, []string{"--data-dir", dir}, 2, "--out FILE is required"},
		{"extra argument", nil, []string{"--data-dir", dir, "--out", filepath.Join(outDir, "x.db"), "more"}, 2, "unexpected argument"},
		{"PostgreSQL", map[string]string{"CARDCAT_DATABASE_URL": "postgres://u:secret@db.internal/cardcat"}, []string{"--out", filepath.Join(outDir, "x.db")}, 2, "pg_dump"},
		{"unknown store", nil, []string{"--database-url", "mysql://u:secret@h/db", "--out", filepath.Join(outDir, "x.db")}, 2, "want postgres://"},
		{"the store itself", nil, []string{"--data-dir", dir, "--out", filepath.Join(dir, "cardcat.db")}, 2, "is the store itself"},
		{"no store", nil, []string{"--data-dir", filepath.Join(dir, "nowhere"), "--out", filepath.Join(outDir, "x.db")}, 1, "no SQLite store at"},
		{"not a database", nil, []string{"--database-url", "sqlite:" + notDB, "--out", filepath.Join(outDir, "x.db")}, 1, "backup: copying"},
		{"existing file", nil, []string{"--data-dir", dir, "--out", existing}, 1, "exists; pass --force"},
		{"a directory", nil, []string{"--data-dir", dir, "--out", outDir, "--force"}, 1, "is a directory"},
		{"no such directory", nil, []string{"--data-dir", dir, "--out", filepath.Join(outDir, "sub", "x.db")}, 1, "no directory"},
	} {
		code, _, stderr := runBackup(t, tc.vars, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, %q; want exit %d and %q", tc.name, code, stderr, tc.code, tc.want)
		}
		if strings.Contains(stderr, "secret") {
			t.Errorf("%s: the message shows the password: %q", tc.name, stderr)
		}
	}
	if b, _ := os.ReadFile(existing); string(b) != "keep me" {
		t.Errorf("the existing file was changed: %q", b)
	}
	if entries, _ := os.ReadDir(outDir); len(entries) != 1 {
		t.Errorf("refusals left files: %v", entries)
	}
	if _, err := os.Stat(filepath.Join(dir, "nowhere")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a backup of a missing store created it: %v", err)
	}

	// --force replaces the file with a whole backup.
	code, stdout, stderr := runBackup(t, nil, "--data-dir", dir, "--out", existing, "--force")
	if code != 0 || !strings.Contains(stdout, "catalogue version 1,") {
		t.Fatalf("--force: exit %d, %q %q", code, stdout, stderr)
	}
	if b, _ := os.ReadFile(existing); !bytes.HasPrefix(b, []byte("SQLite format 3\x00")) {
		t.Errorf("--force did not write a database: %.20q", b)
	}

	code, stdout, _ = runBackup(t, nil, "--help")
	if code != 0 || !strings.Contains(stdout, "-out string") || !strings.Contains(stdout, "-force") {
		t.Errorf("--help: exit %d, %q", code, stdout)
	}
}
