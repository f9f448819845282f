package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cardcat/cardcat/internal/config"
	"github.com/cardcat/cardcat/internal/httpapi"
	"github.com/cardcat/cardcat/internal/images"
	"github.com/cardcat/cardcat/internal/ingest"
	"github.com/cardcat/cardcat/internal/ratelimit/redis"
	"github.com/cardcat/cardcat/internal/serving"
	"github.com/cardcat/cardcat/internal/web"
)

// TestConfigDefaults: the table's defaults are the ones the packages hold
// for a zero setting (internal/config imports none of them).
func TestConfigDefaults(t *testing.T) {
	c, err := config.Bind(config.Every, nil, testEnv(nil))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name      string
		got, want any
	}{
		{"guard-per-hour", c.Limits.GuardPerHour, int64(httpapi.DefaultGuardPerHour)},
		{"compress-cache-mb", c.Serve.CompressCacheMB << 20, web.DefaultCompressCacheBytes},
		{"redis-prefix", c.Limits.RedisPrefix, redis.DefaultPrefix},
		{"redis-timeout", c.Limits.RedisTimeout, redis.DefaultTimeout},
		{"load-timeout", c.Catalogue.LoadTimeout, serving.DefaultLoadTimeout},
		{"tcgplayer-url", c.Upstream.TCGPlayerURL, ingest.DefaultTCGBaseURL},
		{"cardmarket-url", c.Upstream.CardmarketURL, ingest.DefaultCardmarketBaseURL},
		{"tcgplayer-image-url", c.Images.SourceURL, images.DefaultSourceURL},
	} {
		if tt.got != tt.want {
			t.Errorf("%s: the table's default is %v, its package's %v", tt.name, tt.got, tt.want)
		}
	}
}

// TestConfigCommand: `cardcat config` prints every setting, its value and
// where it came from, secrets as ***; with a command, that command's, after
// its checks.
func TestConfigCommand(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "redis-url")
	if err := os.WriteFile(secret, []byte("redis://:hunter2@r:6379/0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	runConfig := func(vars map[string]string, args ...string) (string, error) {
		var out, errb bytes.Buffer
		err := run(context.Background(), append([]string{"config"}, args...), testEnv(vars), &out, &errb)
		return out.String(), err
	}

	out, err := runConfig(nil)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != len(config.Settings())+1 || strings.Join(strings.Fields(lines[0]), " ") != "FLAG VARIABLE VALUE FROM" {
		t.Errorf("a header and a line per setting (%d), got:\n%s", len(config.Settings()), out)
	}
	for _, want := range []string{"--addr  CARDCAT_ADDR  :8080  default", "-  CARDCAT_LOG_LEVEL  info  default", "--seed  CARDCAT_SYNTH_SEED  1  default"} {
		if !containsFields(out, want) {
			t.Errorf("no line %q in:\n%s", want, out)
		}
	}

	out, err = runConfig(map[string]string{"CARDCAT_REDIS_URL_FILE": secret, "CARDCAT_REFRESH_AT": "21:30", "CARDCAT_ADDR": ":9000"}, "serve", "--addr", ":9001")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"--addr CARDCAT_ADDR :9001 --addr", "--redis-url CARDCAT_REDIS_URL *** CARDCAT_REDIS_URL_FILE",
		"--refresh-at CARDCAT_REFRESH_AT 21:30 CARDCAT_REFRESH_AT"} {
		if !containsFields(out, want) {
			t.Errorf("no line %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "hunter2") || strings.Contains(out, "--seed") {
		t.Errorf("a secret, or a setting serve does not read:\n%s", out)
	}

	for _, tt := range []struct {
		vars map[string]string
		args []string
	}{
		{map[string]string{"CARDCAT_GUARD_PER_HOUR": "many"}, nil},
		{nil, []string{"serve", "--trusted-proxies", "10.0.0.0/99"}},
		{map[string]string{"CARDCAT_S3_BUCKET": "b"}, []string{"ingest"}},
		{nil, []string{"nonsense"}},
		{nil, []string{"keys", "--addr", ":1"}},
	} {
		if _, err := runConfig(tt.vars, tt.args...); exitCode(err) != 2 {
			t.Errorf("config %v with %v: %v, want a usage error", tt.args, tt.vars, err)
		}
	}
}

// containsFields reports whether a line of out has the fields of want.
func containsFields(out, want string) bool {
	w := strings.Join(strings.Fields(want), " ")
	for line := range strings.Lines(out) {
		if strings.Join(strings.Fields(line), " ") == w {
			return true
		}
	}
	return false
}
