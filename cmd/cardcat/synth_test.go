package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runSynth runs `cardcat synth args...` like main does and returns its exit
// code, stdout and stderr.
func runSynth(t *testing.T, getenv func(string) string, args ...string) (int, string, string) {
	t.Helper()
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), append([]string{"synth"}, args...), getenv, &stdout, &stderr)
	code := 0
	if err != nil {
		code = exitCode(err)
		if !errors.Is(err, flag.ErrHelp) {
			stderr.WriteString(err.Error())
		}
	}
	return code, stdout.String(), stderr.String()
}

func TestSynthHelp(t *testing.T) {
	code, out, _ := runSynth(t, nil, "--help")
	if code != 0 || !strings.Contains(out, "Usage: cardcat synth") || !strings.Contains(out, "-cards") || !strings.Contains(out, "-from") {
		t.Errorf("--help: exit %d, stdout %q", code, out)
	}
}

func TestSynthBadFlags(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "--out is required"},
		{[]string{"--cards", "10"}, "--out is required"},
		{[]string{"--out", dir, "--from", dir, "--cards", "10"}, "exclude each other"},
		{[]string{"--out", dir, "--cards", "0"}, "--cards must be at least 1"},
		{[]string{"--out", dir, "--cards", "-5"}, "--cards must be at least 1"},
		{[]string{"--out", dir, "--day", "-1"}, "--day must be 0 or more"},
		{[]string{"--out", dir, "--seed", "x"}, "invalid value"},
		{[]string{"--out", dir, "--bogus"}, "not defined"},
		{[]string{"--out", dir, "extra"}, "unexpected argument"},
	} {
		code, _, stderr := runSynth(t, nil, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("synth %q: exit %d, stderr %q; want exit 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
	code, _, stderr := runSynth(t, func(k string) string {
		if k == "CARDCAT_SYNTH_SEED" {
			return "-3"
		}
		return ""
	}, "--out", dir)
	if code != 2 || !strings.Contains(stderr, "CARDCAT_SYNTH_SEED") {
		t.Errorf("bad CARDCAT_SYNTH_SEED: exit %d, stderr %q", code, stderr)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("bad flags wrote %d entries", len(entries))
	}
}

func TestSynthSynthetic(t *testing.T) {
	dir := t.TempDir()
	code, out, stderr := runSynth(t, nil, "--out", dir, "--cards", "800", "--seed", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 1 ||
		!strings.HasPrefix(lines[0], "synth: synthetic mirror in ") || !strings.Contains(out, "files; tcgplayer ") || !strings.HasSuffix(lines[0], "s") {
		t.Errorf("summary: %q", out)
	}
	for _, p := range []string{"tcgplayer/categories.json", "cardmarket/1/price_guide.json", "cardmarket/13/products_singles.json", "links/links.csv", "synth-cases.json"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Error(err)
		}
	}
	first, _ := os.ReadFile(filepath.Join(dir, "cardmarket", "1", "price_guide.json"))

	// A generated mirror is replaced; --day changes prices only.
	if code, _, stderr := runSynth(t, nil, "--out", dir, "--cards", "800", "--seed", "3", "--day", "1"); code != 0 {
		t.Fatalf("day 1: exit %d: %s", code, stderr)
	}
	day1, _ := os.ReadFile(filepath.Join(dir, "cardmarket", "1", "price_guide.json"))
	if len(first) == 0 || bytes.Equal(first, day1) {
		t.Error("day 1 has the prices of day 0")
	}

	// A mirror synth did not write needs --force.
	foreign := t.TempDir()
	os.MkdirAll(filepath.Join(foreign, "cardmarket"), 0o755)
	code, _, stderr = runSynth(t, nil, "--out", foreign, "--cards", "100")
	if code != 1 || !strings.Contains(stderr, "--force") {
		t.Errorf("foreign mirror: exit %d, stderr %q", code, stderr)
	}
	if code, _, stderr := runSynth(t, nil, "--out", foreign, "--cards", "100", "--force"); code != 0 {
		t.Errorf("--force: exit %d: %s", code, stderr)
	}
}

func TestSynthSample(t *testing.T) {
	from := os.Getenv("CARDCAT_SHARED_DATA")
	if from == "" {
		from = filepath.Join("..", "..", "..", "shared", "data")
	}
	if _, err := os.Stat(filepath.Join(from, "tcgplayer", "categories.json")); err != nil {
		t.Skipf("real data not found at %s (set CARDCAT_SHARED_DATA): %v", from, err)
	}
	dir := t.TempDir()
	code, out, stderr := runSynth(t, nil, "--from", from, "--out", dir)
	if code != 0 || !strings.HasPrefix(out, "synth: sample mirror in ") {
		t.Fatalf("exit %d, stdout %q, stderr %s", code, out, stderr)
	}
	// Seed 1 from the real data is the bundled sample.
	for _, p := range []string{"cardmarket/13/price_guide.json", "tcgplayer/1/23447/prices.json", "links/links.csv"} {
		got, err1 := os.ReadFile(filepath.Join(dir, p))
		want, err2 := os.ReadFile(filepath.Join("..", "..", "sample", p))
		if err1 != nil || err2 != nil || !bytes.Equal(got, want) {
			t.Errorf("%s differs from the bundled sample (%v, %v)", p, err1, err2)
		}
	}
	if code, _, stderr := runSynth(t, nil, "--from", t.TempDir(), "--out", t.TempDir()); code != 1 || !strings.Contains(stderr, "not a mirror") {
		t.Errorf("--from an empty directory: exit %d, stderr %q", code, stderr)
	}
}
