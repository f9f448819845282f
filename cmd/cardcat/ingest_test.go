package main

import (
	"bytes"
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestIngestUnreachable: a live ingest without its sources (a closed local
// port) logs each retry, then fails with one error that names the URL once,
// says that nothing was written, and offers a mirror; the store keeps its
// catalogue.
func TestIngestUnreachable(t *testing.T) {
	defer func(d time.Duration) { upstreamBackoff = d }(upstreamBackoff)
	upstreamBackoff = time.Millisecond
	dir := t.TempDir()
	var out, errb bytes.Buffer
	if err := run(context.Background(), []string{"ingest", "--from", "../../sample", "--data-dir", dir}, testEnv(nil), &out, &errb); err != nil {
		t.Fatalf("ingest of the sample: %v\n%s", err, &errb)
	}

	base := "http://" + closedPort(t)
	errb.Reset()
	start := time.Now()
	err := run(context.Background(), []string{"ingest", "--data-dir", dir, "--tcgplayer-url", base, "--cardmarket-url", base}, testEnv(nil), &out, &errb)
	if err == nil {
		t.Fatal("a live ingest without its sources succeeded")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("failed after %s", d)
	}
	msg := err.Error()
	if n := strings.Count(msg, base); n != 1 {
		t.Errorf("the error names the source %d times, want once: %s", n, msg)
	}
	for _, want := range []string{base + "/tcgplayer/", "not fetched in 4 attempts", "connection refused",
		"nothing was written, the store is unchanged (catalogue version 1)", "--from DIR", "--from sample"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the error lacks %q: %s", want, msg)
		}
	}
	if exitCode(err) != 1 {
		t.Errorf("exit %d, want 1", exitCode(err))
	}
	if n := strings.Count(errb.String(), "fetch failed, retrying"); n != 3 {
		t.Errorf("%d retry lines, want one per retry, 3:\n%s", n, &errb)
	}
	if !strings.Contains(errb.String(), `msg="ingest starting" source="`+base+" and "+base+`"`) {
		t.Errorf("the start line does not name the live sources:\n%s", &errb)
	}

	// A mirror's malformed or missing file: nothing written either, and no
	// mirror offered (it is one).
	err = run(context.Background(), []string{"ingest", "--from", dir + "/nowhere", "--data-dir", dir}, testEnv(nil), &out, &errb)
	if err == nil || !strings.Contains(err.Error(), "nothing was written, the store is unchanged (catalogue version 1)") || strings.Contains(err.Error(), "--from") {
		t.Errorf("ingest of a missing mirror: %v", err)
	}
}

// TestIngestReportSets: the summary says how many sets are served (what GET
// /{game}/sets lists) and, when upstream listed more, how many were read.
func TestIngestReportSets(t *testing.T) {
	var out, errb bytes.Buffer
	if err := run(context.Background(), []string{"ingest", "--from", "../../sample", "--data-dir", t.TempDir()}, testEnv(nil), &out, &errb); err != nil {
		t.Fatalf("ingest: %v\n%s", err, &errb)
	}
	// The sample's dbs groups are mostly without products (it lists 6 of
	// 148); its mtg sets all have some.
	m := regexp.MustCompile(`(?m)^dbs: \d+ cards in (\d+) sets \((\d+) sets read, (\d+) without products: not served\); TCGplayer `).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("the dbs line does not say which sets are served:\n%s", &out)
	}
	served, read, without := atoi(t, m[1]), atoi(t, m[2]), atoi(t, m[3])
	if served == 0 || served+without != read {
		t.Errorf("dbs: %d served + %d without products != %d read", served, without, read)
	}
	if !regexp.MustCompile(`(?m)^mtg: \d+ cards in \d+ sets; TCGplayer `).MatchString(out.String()) {
		t.Errorf("the mtg line, every set served, names no sets read:\n%s", &out)
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
