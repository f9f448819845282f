package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cardcat/cardcat/internal/account"
)

// Tests of `cardcat accounts list|verify|usage` and of the keys' names and
// last use, run through run on a temporary data directory.

// row returns the fields of the first line of out whose first field is
// first, or nil.
func row(out, first string) []string {
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == first {
			return f
		}
	}
	return nil
}

func TestAccountsListAndVerify(t *testing.T) {
	dir := t.TempDir()
	_, keyID := createKey(t, dir, "--email", "ann@example.com", "--name", "laptop\tone", "--plan", "pro")
	createKey(t, dir, "--email", "ann@example.com") // a second key, no name
	createKey(t, dir, "--email", "bob@example.com", "--trial-start", "2020-01-01T00:00:00Z")
	createKey(t, dir, "--email", "cy@example.com")
	start := time.Now().UTC().Add(-time.Hour).Truncate(time.Second)
	cardcatCmd(t, dir, "accounts", "start-trial", "--email", "cy@example.com", "--at", start.Format(time.RFC3339))

	list := cardcatCmd(t, dir, "accounts", "list")
	want := map[string][]string{
		"1": {"1", "ann@example.com", "pro", "no", "not", "started", "never", "2"},
		"2": {"2", "bob@example.com", "free", "no", "ended", "2020-01-08T00:00:00Z", "never", "1"},
		"3": {"3", "cy@example.com", "free", "no", "active", "until", start.Add(account.TrialLength).Format(time.RFC3339), "never", "1"},
	}
	for id, w := range want {
		if diff := cmp.Diff(w, row(list, id)); diff != "" {
			t.Errorf("accounts list, account %s (-want +got):\n%s\n%s", id, diff, list)
		}
	}

	out := cardcatCmd(t, dir, "accounts", "verify", "--email", "ann@example.com")
	if !strings.HasPrefix(out, "account 1 (ann@example.com): verified at ") {
		t.Errorf("verify: %q", out)
	}
	again := cardcatCmd(t, dir, "accounts", "verify", "--account", "1")
	if at := strings.TrimPrefix(strings.TrimSpace(out), "account 1 (ann@example.com): verified at "); again != "account 1 (ann@example.com): already verified at "+at+"\n" {
		t.Errorf("verify again: %q, want the first time %s", again, at)
	}
	today := time.Now().UTC().Format(time.DateOnly)
	if got := row(cardcatCmd(t, dir, "accounts", "list"), "1"); len(got) < 4 || got[3] != today {
		t.Errorf("accounts list after verify: %v, want verified %s", got, today)
	}

	keys := cardcatCmd(t, dir, "keys", "list", "--account", "1")
	if got := row(keys, keyID); len(got) < 4 || got[2] != "laptop" || got[3] != "one" || !strings.Contains(keys, "LAST USED") {
		t.Errorf("keys list: the key's name (its tab a space) missing:\n%s", keys)
	}
}

func TestAccountsRefusals(t *testing.T) {
	dir := t.TempDir()
	createKey(t, dir, "--email", "ann@example.com")
	for i := range account.MaxActiveKeys - 1 {
		createKey(t, dir, "--email", "ann@example.com", "--name", "k"+string(rune('a'+i)))
	}
	cases := []struct {
		args []string
		want string // in the error
	}{
		{[]string{"keys", "create", "--email", "ann@example.com"}, "already has 10 active keys"},
		{[]string{"keys", "create", "--name", strings.Repeat("x", 65)}, "--name: at most 64"},
		{[]string{"accounts", "verify"}, "give --account ID or --email EMAIL"},
		{[]string{"accounts", "verify", "--email", "nobody@example.com"}, "not found"},
		{[]string{"accounts", "usage", "--email", "ann@example.com", "--hours", "-1"}, "--hours"},
		{[]string{"accounts", "nope"}, "list|usage|set-plan|start-trial|verify"},
	}
	for _, c := range cases {
		args := append(append([]string{}, c.args[:2]...), append([]string{"--data-dir", dir}, c.args[2:]...)...)
		var out, errb bytes.Buffer
		err := run(context.Background(), args, testEnv(nil), &out, &errb)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("cardcat %s: error %v, want one with %q", strings.Join(c.args, " "), err, c.want)
		}
	}
}

// TestAccountsUsageEndToEnd: keyed requests to two servers of one store,
// 429s included, appear in `accounts usage` once the servers stopped (they
// flush at shutdown), with either limiter; the key's last use in `keys list`
// and `accounts list`. Requests without a key and public routes are not
// counted.
func TestAccountsUsageEndToEnd(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			vars := b.vars(t)
			avoidWindowEnd(t, 15*time.Second)
			dir := t.TempDir()
			key, keyID := createKey(t, dir, "--email", "use@example.com", "--name", "ci")
			cardcatCmd(t, dir, "accounts", "set-plan", "--email", "use@example.com", "--plan", "business", "--hour", "2", "--day", "100")
			if got := row(cardcatCmd(t, dir, "keys", "list"), keyID); len(got) < 6 || got[5] != "never" {
				t.Fatalf("keys list before any request: %v, want last used never", got)
			}
			servers := []*server{startServe(t, dir, vars), startServe(t, dir, vars)}
			var requests, refused int64
			for i, n := range []int{3, 2} {
				for range n {
					resp := send(t, servers[i].url+"/dbs/sets", key)
					requests++
					if resp == http.StatusTooManyRequests {
						refused++
					} else if resp != http.StatusOK {
						t.Fatalf("GET /dbs/sets: %d", resp)
					}
				}
				send(t, servers[i].url+"/dbs/sets", "") // 401: not counted
				send(t, servers[i].url+"/health", key)  // public: not counted
			}
			if refused == 0 {
				t.Fatalf("no 429 in 5 requests of a 2-per-hour account")
			}
			for _, s := range servers {
				if err := s.stop(); err != nil {
					t.Fatalf("stop: %v\n%s", err, s.stderr)
				}
			}

			out := cardcatCmd(t, dir, "accounts", "usage", "--email", "use@example.com", "--hours", "3", "--days", "2")
			now := time.Now().UTC()
			day := now.Format(time.DateOnly)
			hourRow := regexp.MustCompile(`(?m)^` + now.Format("2006-01-02 15") + `:00\s+(\d+)\s+(\d+)$`).FindStringSubmatch(out)
			if want := []string{itoa(requests), itoa(refused)}; hourRow == nil || !cmp.Equal(hourRow[1:], want) {
				t.Errorf("this hour's row: %q, want requests and 429s %v\n%s", hourRow, want, out)
			}
			dayRow := regexp.MustCompile(`(?m)^` + day + `\s+(\d+)\s+(\d+)$`).FindStringSubmatch(out)
			if want := []string{itoa(requests), itoa(refused)}; dayRow == nil || !cmp.Equal(dayRow[1:], want) {
				t.Errorf("today's row: %q, want requests and 429s %v\n%s", dayRow, want, out)
			}
			totals := regexp.MustCompile(`(?m)^total\s+(\d+)\s+(\d+)$`).FindAllStringSubmatch(out, -1)
			if len(totals) != 2 || totals[0][1] != itoa(requests) || totals[1][2] != itoa(refused) {
				t.Errorf("total rows %q, want two of %d requests and %d 429s\n%s", totals, requests, refused, out)
			}
			// 3 hours and 2 days: 3 + 2 rows, 2 headers, 2 totals.
			if rows := regexp.MustCompile(`(?m)^(HOUR|DAY) \(UTC\)|^\d{4}-\d\d-\d\d|^total`).FindAllString(out, -1); len(rows) != 9 {
				t.Errorf("%d table lines, want 9\n%s", len(rows), out)
			}

			lastUsed := regexp.MustCompile(`^` + day + `T`)
			if got := row(cardcatCmd(t, dir, "keys", "list"), keyID); len(got) < 6 || !lastUsed.MatchString(got[5]) {
				t.Errorf("keys list after requests: %v, want last used today", got)
			}
			if got := row(cardcatCmd(t, dir, "accounts", "list"), "1"); len(got) < 7 || !lastUsed.MatchString(got[6]) {
				t.Errorf("accounts list after requests: %v, want last used today", got)
			}
		})
	}
}

// send GETs url with key (none when "") and returns the status.
func send(t *testing.T, url, key string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("X-API-Key", key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestKeysCreateSaysWhenServeAcceptsIt: `keys create` prints the key as
// stdout's last line and says on stderr when a running serve takes it (a key
// tried at once is refused as unknown until the next keys refresh).
func TestKeysCreateSaysWhenServeAcceptsIt(t *testing.T) {
	var out, errb bytes.Buffer
	args := []string{"keys", "create", "--data-dir", t.TempDir()}
	if err := run(context.Background(), args, testEnv(nil), &out, &errb); err != nil {
		t.Fatalf("cardcat keys create: %v\n%s", err, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if !strings.HasPrefix(lines[len(lines)-1], "pk_live_") {
		t.Errorf("stdout's last line is %q, want the key", lines[len(lines)-1])
	}
	if !strings.Contains(errb.String(), "within its --keys-refresh-interval (5s by default)") {
		t.Errorf("stderr does not say when serve accepts the key:\n%s", errb.String())
	}
}
