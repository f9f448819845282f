package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// catalogue is a generated catalogue ingested into a data directory, with
// the key the load runs send. It is saved next to the data (state.json), so
// that -work DIR can reuse it in a later run of the same size.
type catalogue struct {
	Cards       int            `json:"cards"` // --cards given to synth
	DataDir     string         `json:"data_dir"`
	SynthTime   time.Duration  `json:"synth_time"`
	IngestTime  time.Duration  `json:"ingest_time"` // the whole ingest process, wall clock
	IngestSays  time.Duration  `json:"ingest_says"` // "catalogue version 1 written in ..."
	MirrorBytes int64          `json:"mirror_bytes"`
	Products    map[string]int `json:"products"` // cards (products) per game, as ingest reports them
	Key         string         `json:"key"`
	Reused      bool           `json:"-"`
}

// Total is the number of products of every game: the "cards" of bytes per card.
func (c *catalogue) Total() int {
	n := 0
	for _, v := range c.Products {
		n += v
	}
	return n
}

// benchEmail is the account of the harness's key.
const benchEmail = "loadbench@bench.invalid"

// benchLimits are the business plan's custom limits of that account: far
// above anything a run sends, so the limiter counts every request and
// refuses none.
const benchHourLimit, benchDayLimit = 1_000_000_000_000, 10_000_000_000_000

// prepareCatalogue generates a catalogue of n cards, ingests it into
// dir/data and creates the key, or reuses dir's when it holds one of n cards.
func prepareCatalogue(ctx context.Context, cardcat, dir string, n int, seed uint64, logf func(string, ...any)) (*catalogue, error) {
	state := filepath.Join(dir, "state.json")
	if b, err := os.ReadFile(state); err == nil {
		var c catalogue
		if json.Unmarshal(b, &c) == nil && c.Cards == n && c.Key != "" {
			if _, err := os.Stat(filepath.Join(c.DataDir, "cardcat.db")); err == nil {
				logf("reusing the ingested catalogue of %d cards in %s", n, c.DataDir)
				c.Reused = true
				return &c, nil
			}
		}
	}
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	mirror, data := filepath.Join(dir, "mirror"), filepath.Join(dir, "data")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	c := &catalogue{Cards: n, DataDir: data}

	logf("synth: generating %d cards into %s", n, mirror)
	t0 := time.Now()
	if _, err := command(ctx, nil, cardcat, "synth", "--cards", strconv.Itoa(n), "--seed", strconv.FormatUint(seed, 10), "--out", mirror); err != nil {
		return nil, err
	}
	c.SynthTime = time.Since(t0)
	c.MirrorBytes = dirSize(mirror)
	logf("synth: %s, %.1f MB of upstream files", c.SynthTime.Round(time.Millisecond), float64(c.MirrorBytes)/1e6)

	logf("ingest: %s into %s (SQLite)", mirror, data)
	t0 = time.Now()
	out, err := command(ctx, nil, cardcat, "ingest", "--from", mirror, "--data-dir", data)
	if err != nil {
		return nil, err
	}
	c.IngestTime = time.Since(t0)
	if c.Products, c.IngestSays, err = parseIngest(out); err != nil {
		return nil, err
	}
	logf("ingest: %s, %d products", c.IngestTime.Round(time.Millisecond), c.Total())
	// The mirror is large (about 2 GB at 1M cards) and no longer needed.
	if err := os.RemoveAll(mirror); err != nil {
		return nil, err
	}

	if c.Key, err = createKey(ctx, cardcat, data); err != nil {
		return nil, err
	}
	b, _ := json.MarshalIndent(c, "", "  ")
	return c, os.WriteFile(state, b, 0o600)
}

// createKey creates the harness's business account and key and raises the
// account's limits above the load (the limiter still counts every request).
func createKey(ctx context.Context, cardcat, data string) (string, error) {
	out, err := command(ctx, nil, cardcat, "keys", "create", "--plan", "business", "--email", benchEmail, "--data-dir", data)
	if err != nil {
		return "", err
	}
	key := lastLine(out)
	if !strings.HasPrefix(key, "pk_") {
		return "", fmt.Errorf("keys create: no key on the last line of its output:\n%s", out)
	}
	if _, err := command(ctx, nil, cardcat, "accounts", "set-plan", "--email", benchEmail, "--plan", "business",
		"--hour", strconv.Itoa(benchHourLimit), "--day", strconv.Itoa(benchDayLimit), "--data-dir", data); err != nil {
		return "", err
	}
	return key, nil
}

var ingestGameLine = regexp.MustCompile(`(?m)^(\w+): (\d+) cards in \d+ sets[ ;]`)
var ingestDoneLine = regexp.MustCompile(`(?m)^catalogue version \d+ written in (\S+)$`)

// parseIngest reads the per-game product counts and the duration from the
// summary `cardcat ingest` prints.
func parseIngest(out string) (map[string]int, time.Duration, error) {
	products := map[string]int{}
	for _, m := range ingestGameLine.FindAllStringSubmatch(out, -1) {
		n, _ := strconv.Atoi(m[2])
		products[m[1]] = n
	}
	m := ingestDoneLine.FindStringSubmatch(out)
	if len(products) == 0 || m == nil {
		return nil, 0, fmt.Errorf("ingest: cannot read its summary:\n%s", out)
	}
	d, err := time.ParseDuration(m[1])
	if err != nil {
		return nil, 0, fmt.Errorf("ingest: duration %q: %w", m[1], err)
	}
	return products, d, nil
}

// command runs a program to the end and returns its standard output; on
// failure the error carries the end of both outputs.
func command(ctx context.Context, env []string, argv ...string) (string, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = cleanEnv(env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s: %w\n%s%s", strings.Join(argv, " "), err, tail(stdout.Bytes(), 2000), tail(stderr.Bytes(), 2000))
	}
	return stdout.String(), nil
}

// cleanEnv is the harness's environment without any CARDCAT_ variable (a
// CARDCAT_DATABASE_URL or CARDCAT_REDIS_URL of the caller's shell would
// send the runs elsewhere), plus text logs and extra.
func cleanEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CARDCAT_") {
			env = append(env, kv)
		}
	}
	return append(append(env, "CARDCAT_LOG_FORMAT=text"), extra...)
}

func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return strings.TrimSpace(s)
}

func dirSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}
