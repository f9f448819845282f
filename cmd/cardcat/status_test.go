package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/testkit"
)

// fetch sends a GET and reads its answer, without the OpenAPI document's
// check (the status page is not an API route); get adds the check.
func fetch(t *testing.T, url string, header ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

// incidentsCmd runs `cardcat incidents args...` on dataDir: its output, and
// its error's exit code (0 without one).
func incidentsCmd(dataDir string, args ...string) (stdout, stderr string, code int) {
	var out, errb bytes.Buffer
	err := run(context.Background(), append(append([]string{"incidents"}, args...), "--data-dir", dataDir), testEnv(nil), &out, &errb)
	if err != nil {
		code = exitCode(err)
		errb.WriteString(err.Error())
	}
	return out.String(), errb.String(), code
}

// TestStatusEndToEnd: an incident opened, updated and closed with the
// CLI, then a server on the sample whose status page, JSON and feeds show
// it, its own check of the API, the catalogue and the uptime; the page is
// never counted.
func TestStatusEndToEnd(t *testing.T) {
	dir := t.TempDir()
	key := newKey(t, dir)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"open", "--title", "Slow searches", "--impact", "major", "--message", "Searches take seconds."}, "incident 1 opened (major, investigating): Slow searches"},
		{[]string{"update", "1", "--status", "identified", "--message", "An index rebuild."}, "incident 1 updated (major, identified, 2 updates)"},
		{[]string{"close", "1", "--message", "Back to normal."}, "incident 1 closed (major, resolved, 3 updates)"},
		{[]string{"open", "--title", "Images slow", "--status", "monitoring"}, "incident 2 opened (minor, monitoring): Images slow"},
		{[]string{"list"}, "2   monitoring  minor"},
	} {
		out, errOut, code := incidentsCmd(dir, c.args...)
		if code != 0 || !strings.Contains(out, c.want) {
			t.Fatalf("incidents %s: exit %d, %q %q; want %q", strings.Join(c.args, " "), code, out, errOut, c.want)
		}
	}

	s := startServe(t, dir, nil)
	// The server checks its API as it starts: up, once the check is
	// recorded (the page is read at most every 10 s).
	var j struct {
		Status    string
		Indicator string
		LastCheck *struct {
			OK         bool
			HTTPStatus int `json:"http_status"`
		} `json:"last_check"`
		Catalogue []struct {
			Game  string
			Cards int
		}
		LastIngest struct{ Outcome, Data string } `json:"last_ingest"`
		Uptime     struct{ Daily []json.RawMessage }
		Incidents  []struct {
			ID      int64
			State   string
			Updates []struct{ State, Message string }
		}
	}
	deadline := time.Now().Add(25 * time.Second)
	for {
		resp, body := fetch(t, s.url+"/status.json")
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("/status.json: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		if err := json.Unmarshal(body, &j); err != nil {
			t.Fatal(err)
		}
		if j.Status == "up" || time.Now().After(deadline) {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	if j.Status != "up" || j.LastCheck == nil || j.LastCheck.HTTPStatus != 200 || j.Indicator != "minor" ||
		len(j.Catalogue) != 4 || j.Catalogue[0].Cards == 0 || j.LastIngest.Outcome != "ok" || j.LastIngest.Data != "sample" ||
		len(j.Uptime.Daily) != 90 || len(j.Incidents) != 2 {
		t.Fatalf("/status.json: %+v", j)
	}
	if in := j.Incidents[1]; in.ID != 1 || in.State != "resolved" || len(in.Updates) != 3 || in.Updates[1].Message != "An index rebuild." {
		t.Errorf("incident 1: %+v", in)
	}

	resp, body := fetch(t, s.url+"/status")
	page := string(body)
	if resp.StatusCode != 200 || resp.Header.Get("X-Request-Id") == "" {
		t.Fatalf("/status: %d, X-Request-Id %q", resp.StatusCode, resp.Header.Get("X-Request-Id"))
	}
	for _, want := range []string{"The API is up.", "Slow searches", "Searches take seconds.", "An index rebuild.", "Back to normal.",
		"Images slow", `href="/status/incidents.atom"`, `href="/docs/changelog.atom"`, "Dragon Ball Super Card Game"} {
		if !strings.Contains(page, want) {
			t.Errorf("/status lacks %q", want)
		}
	}
	if n := strings.Count(page, `<li class="uptime-`); n != 90 {
		t.Errorf("/status: %d days in the bar, want 90", n)
	}

	// Both feeds are Atom.
	for path, want := range map[string]string{"/status/incidents.atom": s.url + "/status#incident-1", "/docs/changelog.atom": s.url + "/docs/changelog#2026-11-28"} {
		resp, body := fetch(t, s.url+path)
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/atom+xml; charset=utf-8" {
			t.Errorf("%s: %d %q", path, resp.StatusCode, resp.Header.Get("Content-Type"))
			continue
		}
		ids := testkit.CheckAtom(t, body)
		found := false
		for _, id := range ids {
			found = found || id == want
		}
		if !found {
			t.Errorf("%s: no entry %s among %v", path, want, ids)
		}
	}
	// The docs link the status page and the changelog's feed.
	if _, body := fetch(t, s.url+"/docs/changelog"); !strings.Contains(string(body), `<a href="/status"`) ||
		!strings.Contains(string(body), `<link rel="alternate" type="application/atom+xml" title="cardcat API changelog" href="/docs/changelog.atom">`) {
		t.Error("/docs/changelog links neither /status nor its feed")
	}

	// Only /status, /status.json and below are the page's: a path that
	// merely starts alike is the API's 404.
	if resp, body := fetch(t, s.url+"/statuses"); resp.StatusCode != 404 || !strings.Contains(string(body), "Endpoint not found") {
		t.Errorf("/statuses: %d %s; want the API's 404", resp.StatusCode, body)
	}
	if resp, _ := fetch(t, s.url+"/status/nope"); resp.StatusCode != 404 || resp.Header.Get("X-Request-Id") == "" {
		t.Errorf("/status/nope: %d", resp.StatusCode)
	}

	// Never counted: a keyed request to the status page leaves the key's
	// remaining requests as they were.
	before, _ := get(t, s.url+"/dbs/sets", "X-API-Key", key)
	for _, path := range []string{"/status", "/status.json", "/status/incidents.atom"} {
		resp, _ := fetch(t, s.url+path, "X-API-Key", key)
		if resp.StatusCode != 200 || resp.Header.Get("X-RateLimit-Remaining-Hour") != "" {
			t.Errorf("%s with a key: %d, X-RateLimit-Remaining-Hour %q", path, resp.StatusCode, resp.Header.Get("X-RateLimit-Remaining-Hour"))
		}
	}
	after, _ := get(t, s.url+"/dbs/sets", "X-API-Key", key)
	if b, a := limitsOf(t, before), limitsOf(t, after); a[1] != b[1]-1 || a[3] != b[3]-1 {
		t.Errorf("remaining %v then %v: the status page was counted", b, a)
	}
}

// TestIncidentsBadInput: mistakes get a message that says what to do, and
// exit code 2.
func TestIncidentsBadInput(t *testing.T) {
	dir := t.TempDir()
	if _, _, code := incidentsCmd(dir, "open", "--title", "A"); code != 0 {
		t.Fatalf("open: exit %d", code)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"update", "7", "--status", "identified", "--message", "x"}, "no incident 7 (see incidents list)"},
		{[]string{"update", "1", "--status", "fixed", "--message", "x"}, `"fixed" is not a state: want investigating, identified or monitoring`},
		{[]string{"update", "1", "--status", "resolved", "--message", "x"}, `"resolved" is not a state`},
		{[]string{"update", "1", "--status", "identified"}, "--message is empty"},
		{[]string{"update", "abc", "--status", "identified", "--message", "x"}, `"abc" is not an incident id`},
		{[]string{"close", "--message", "x"}, "give the incident's id"},
		{[]string{"close", "1", "2", "--message", "x"}, `unexpected argument "2"`},
		{[]string{"open", "--title", ""}, "--title is empty"},
		{[]string{"open", "--title", "B", "--impact", "huge"}, `"huge" is not an impact`},
		{[]string{"open", "--title", "B", "--status", "resolved"}, `"resolved" is not a state`},
		{[]string{"frobnicate"}, `unknown subcommand "frobnicate"`},
	} {
		_, errOut, code := incidentsCmd(dir, c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("incidents %s: exit %d, %q; want 2 and %q", strings.Join(c.args, " "), code, errOut, c.want)
		}
	}
	if _, _, code := incidentsCmd(dir, "close", "1", "--message", "Done."); code != 0 {
		t.Fatalf("close: exit %d", code)
	}
	if _, errOut, code := incidentsCmd(dir, "update", "1", "--status", "monitoring", "--message", "x"); code != 2 || !strings.Contains(errOut, "incident 1 is resolved already") {
		t.Errorf("updating a resolved incident: exit %d, %q", code, errOut)
	}
}
