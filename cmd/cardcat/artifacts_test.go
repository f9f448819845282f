package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeFromArtifact: ingest writes the version's snapshot artifact;
// serve then reads it instead of building the version (its log says so),
// and every answer, free and paid, is byte for byte the answer of a serve
// that built the version from the store (--snapshot-artifacts=false).
func TestServeFromArtifact(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	if err := run(context.Background(), []string{"ingest", "--from", "../../sample", "--data-dir", dir}, testEnv(nil), &out, &errb); err != nil {
		t.Fatalf("ingest: %v\n%s", err, errb.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "snapshots", "1.snap")); err != nil || !strings.Contains(errb.String(), "snapshot artifact written") {
		t.Fatalf("ingest wrote no artifact: %v\n%s", err, errb.String())
	}
	key := newKey(t, dir, "--plan", "business")

	answers := func(s *server) map[string]string {
		got := map[string]string{}
		fetch := func(path string) []byte {
			resp, body := get(t, s.url+path, "X-API-Key", key, "Accept-Encoding", "identity")
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("GET %s: %d %s", path, resp.StatusCode, body)
			}
			got[path] = resp.Header.Get("ETag") + " " + string(body)
			return body
		}
		for _, g := range []string{"dbs", "mtg"} {
			var sets struct {
				Data []struct {
					SetID string `json:"set_id"`
				}
			}
			json.Unmarshal(fetch("/"+g+"/sets"), &sets)
			if len(sets.Data) == 0 {
				t.Fatalf("%s: no sets", g)
			}
			for _, set := range sets.Data[:min(3, len(sets.Data))] {
				id := url.PathEscape(set.SetID)
				var page struct{ Data []struct{ ID, Name string } }
				json.Unmarshal(fetch("/"+g+"/sets/"+id+"?limit=100"), &page)
				for _, c := range page.Data[:min(10, len(page.Data))] {
					fetch("/" + g + "/cards/" + c.ID)
					fetch("/" + g + "/search?q=" + url.QueryEscape(strings.Fields(c.Name)[0]))
				}
				fetch("/" + g + "/prices/" + id)
				fetch("/" + g + "/sets/" + id + "/statistics")
				fetch("/" + g + "/sets/" + id + "/completion-value")
			}
			fetch("/" + g + "/sets/trending")
			fetch("/" + g + "/analytics/top-cards")
			fetch("/" + g + "/analytics/top-cards?metric=growth&limit=100")
		}
		return got
	}

	fromArtifact := startServe(t, dir, nil)
	a := answers(fromArtifact)
	fromArtifact.stop()
	if log := fromArtifact.stderr.String(); !strings.Contains(log, "source=artifact where=disk") {
		t.Errorf("serve did not read the artifact:\n%s", log)
	}

	built := startServe(t, dir, map[string]string{"CARDCAT_SNAPSHOT_ARTIFACTS": "false"})
	b := answers(built)
	built.stop()
	if log := built.stderr.String(); !strings.Contains(log, "source=store") || strings.Contains(log, "snapshot artifact") {
		t.Errorf("serve with artifacts off:\n%s", log)
	}
	if len(a) < 20 {
		t.Fatalf("only %d answers compared", len(a))
	}
	for path, body := range a {
		if b[path] != body {
			t.Errorf("GET %s differs:\nfrom the artifact %.300s\nbuilt %.300s", path, body, b[path])
		}
	}
}
