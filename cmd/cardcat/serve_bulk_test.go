package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
		path := strings.TrimPrefix(f.URL, "http://localhost:8080")
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
