package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/store/sqlite"
)

// TestChangeFeedEndToEnd: a synthetic mirror ingested, then the same mirror
// a day later; the server's change feed after the first version lists the
// cards the second changed, counted as the ingest summary says, and its
// until sent back as since lists nothing.
func TestChangeFeedEndToEnd(t *testing.T) {
	dir, mirror := t.TempDir(), t.TempDir()
	ingestDay := func(day string) string {
		t.Helper()
		if code, _, stderr := runSynth(t, nil, "--out", mirror, "--cards", "300", "--seed", "5", "--day", day); code != 0 {
			t.Fatalf("synth day %s: exit %d: %s", day, code, stderr)
		}
		var out, errb bytes.Buffer
		if err := run(context.Background(), []string{"ingest", "--from", mirror, "--data-dir", dir, "--change-days", "30"},
			testEnv(nil), &out, &errb); err != nil {
			t.Fatalf("ingest day %s: %v\n%s", day, err, errb.String())
		}
		return out.String()
	}
	ingestDay("0")
	st, err := sqlite.Open(context.Background(), filepath.Join(dir, "cardcat.db"))
	if err != nil {
		t.Fatal(err)
	}
	first, err := st.LatestVersion(context.Background())
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	summary := ingestDay("1")
	m := regexp.MustCompile(`dbs: change feed: (\d+) cards changed, 0 removed`).FindStringSubmatch(summary)
	if m == nil || m[1] == "0" {
		t.Fatalf("the summary does not count the changed dbs cards:\n%s", summary)
	}

	key := newKey(t, dir)
	s := startServe(t, dir, nil)
	changes := func(since string) (status int, body struct {
		Until   string
		Changed []struct{ ID string }
	}) {
		t.Helper()
		resp, b := get(t, s.url+"/dbs/changes?since="+url.QueryEscape(since), "X-API-Key", key)
		json.Unmarshal(b, &body)
		return resp.StatusCode, body
	}
	status, body := changes(first.CreatedAt.Format(time.RFC3339Nano))
	if status != http.StatusOK || itoa(int64(len(body.Changed))) != m[1] {
		t.Fatalf("changes after the first version: %d, %d cards; the summary says %s", status, len(body.Changed), m[1])
	}
	if status, next := changes(body.Until); status != http.StatusOK || len(next.Changed) != 0 {
		t.Errorf("changes after until %s: %d, %d cards", body.Until, status, len(next.Changed))
	}
	if status, _ := changes(first.CreatedAt.Add(-time.Second).Format(time.RFC3339)); status != http.StatusBadRequest {
		t.Errorf("since before the history: %d, want 400", status)
	}
	if err := s.stop(); err != nil {
		t.Fatal(err)
	}
}

func TestIngestChangeDaysFlag(t *testing.T) {
	for _, args := range [][]string{{"--change-days", "-1"}, {"--change-days", "x"}} {
		var out, errb bytes.Buffer
		err := run(context.Background(), append([]string{"ingest", "--from", "../../sample", "--data-dir", t.TempDir()}, args...), testEnv(nil), &out, &errb)
		if err == nil || !strings.Contains(err.Error()+errb.String(), "change-days") {
			t.Errorf("%v: %v %s", args, err, errb.String())
		}
	}
	var out, errb bytes.Buffer
	err := run(context.Background(), []string{"ingest", "--from", "../../sample", "--data-dir", t.TempDir()},
		testEnv(map[string]string{"CARDCAT_CHANGE_DAYS": "soon"}), &out, &errb)
	if err == nil || !strings.Contains(err.Error(), "CARDCAT_CHANGE_DAYS") {
		t.Errorf("CARDCAT_CHANGE_DAYS=soon: %v", err)
	}
}
