package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// bulkListing polls GET /{game}/bulk until it lists every file.
func bulkListing(t *testing.T, s *server, key, game string) []struct{ Name, SHA256, URL string } {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, body := get(t, s.url+"/"+game+"/bulk", "X-API-Key", key)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("/%s/bulk: %d %s", game, resp.StatusCode, body)
		}
		var listing struct {
			Files []struct{ Name, SHA256, URL string }
		}
		if err := json.Unmarshal(body, &listing); err != nil {
			t.Fatal(err)
		}
		if len(listing.Files) == 2 {
			return listing.Files
		}
		if time.Now().After(deadline) {
			t.Fatalf("/%s/bulk still lists %s\n%s", game, body, s.stderr)
		}
		time.Sleep(20 * time.Millisecond) // polling the build, which has no event to wait on from here
	}
}

// TestServeBulk: serve builds the bulk files of the version it serves in
// its data directory, serves them, and reuses them after a restart.
func TestServeBulk(t *testing.T) {
	dir := t.TempDir()
	key := newKey(t, dir)
	s := startServe(t, dir, nil)
	files := bulkListing(t, s, key, "dbs")
	for _, f := range files {
		path, ok := strings.CutPrefix(f.URL, s.url)
		if !ok {
			t.Errorf("bulk file URL %s is not on the address serve listens on, %s", f.URL, s.url)
		}
		resp, body := get(t, s.url+path, "X-API-Key", key)
		sum := sha256.Sum256(body)
		if resp.StatusCode != http.StatusOK || hex.EncodeToString(sum[:]) != f.SHA256 || resp.Header.Get("Content-Type") != "application/gzip" {
			t.Errorf("GET %s: %d, %s, sha256 %x, listed %s", path, resp.StatusCode, resp.Header.Get("Content-Type"), sum, f.SHA256)
		}
		if _, err := os.Stat(filepath.Join(dir, "bulk", "1", "dbs", f.Name)); err != nil {
			t.Errorf("not in the data directory: %v", err)
		}
	}
	if err := s.stop(); err != nil {
		t.Fatal(err)
	}

	s2 := startServe(t, dir, nil)
	if again := bulkListing(t, s2, key, "dbs"); len(again) != len(files) || again[0].SHA256 != files[0].SHA256 {
		t.Errorf("after a restart: %v, before %v", again, files)
	}
	if logs := s2.stderr.String(); strings.Contains(logs, `msg="bulk file built"`) {
		t.Errorf("the files were built again after a restart on the same version:\n%s", logs)
	}
}

// TestServeBulkSharedS3: two replicas on one store and one S3 bucket, each
// with its own data directory: the first builds the bulk files and shares
// them, the second fetches them and serves the same bytes without building.
func TestServeBulkSharedS3(t *testing.T) {
	endpoint := os.Getenv("CARDCAT_TEST_S3_ENDPOINT")
	if endpoint == "" {
		t.Skip("CARDCAT_TEST_S3_ENDPOINT is not set (start one with .ci/s3-server); skipping the shared bulk files test")
	}
	or := func(name, def string) string {
		if v := os.Getenv(name); v != "" {
			return v
		}
		return def
	}
	vars := map[string]string{
		"CARDCAT_S3_ENDPOINT":   endpoint,
		"CARDCAT_S3_BUCKET":     or("CARDCAT_TEST_S3_BUCKET", "cardcat-test"),
		"CARDCAT_S3_REGION":     or("CARDCAT_TEST_S3_REGION", "us-east-1"),
		"CARDCAT_S3_ACCESS_KEY": or("CARDCAT_TEST_S3_ACCESS_KEY", "cardcat-test"),
		"CARDCAT_S3_SECRET_KEY": or("CARDCAT_TEST_S3_SECRET_KEY", "cardcat-test-secret"),
		"CARDCAT_S3_PREFIX":     "e2e-" + t.Name() + "-" + randomHex(t),
		// One public URL for both, as for replicas behind one address: the
		// listings are then equal.
		"CARDCAT_PUBLIC_URL": "http://cardcat.test",
	}
	dirA, dirB := t.TempDir(), t.TempDir()
	key := newKey(t, dirA)
	a := startServe(t, dirA, vars)
	files := bulkListing(t, a, key, "dbs")
	waitLog(t, a, `msg="bulk files shared" version=1 game=dbs`)

	// B reads A's store (one catalogue, as replicas on one PostgreSQL do).
	b := startServe(t, dirB, vars, "--database-url", "sqlite:"+filepath.Join(dirA, "cardcat.db"))
	if diff := cmp.Diff(files, bulkListing(t, b, key, "dbs")); diff != "" {
		t.Errorf("listing (-A +B):\n%s", diff)
	}
	for _, f := range files {
		path := strings.TrimPrefix(f.URL, "http://cardcat.test")
		_, fromA := get(t, a.url+path, "X-API-Key", key)
		resp, fromB := get(t, b.url+path, "X-API-Key", key)
		if resp.StatusCode != http.StatusOK || !bytes.Equal(fromA, fromB) {
			t.Errorf("GET %s from B: %d, %d bytes, from A %d bytes", path, resp.StatusCode, len(fromB), len(fromA))
		}
	}
	// The log reaches stderr up to 100 ms after the line (the log buffer's
	// flush): wait for it.
	waitLog(t, b, `msg="bulk file fetched" version=1 game=dbs`)
	if logs := b.stderr.String(); strings.Contains(logs, `msg="bulk file built"`) {
		t.Errorf("B built files rather than fetch them:\n%s", logs)
	}
}

// waitLog waits until s has logged line.
func waitLog(t *testing.T, s *server, line string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(s.stderr.String(), line) {
		if time.Now().After(deadline) {
			t.Fatalf("no %s in the log:\n%s", line, s.stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
