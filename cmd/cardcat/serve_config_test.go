package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/serving"
	"github.com/cardcat/cardcat/internal/web"
)

// configEnv is an Env whose environment is m and whose output is kept.
func configEnv(m map[string]string) (*Env, *bytes.Buffer) {
	var out bytes.Buffer
	return &Env{Getenv: testEnv(m), Stdout: &out, Stderr: &out}, &out
}

// TestParseServe: serve's configuration comes from the environment, the
// flags win, and secrets come from NAME or NAME_FILE alike.
func TestParseServe(t *testing.T) {
	dir := t.TempDir()
	dbFile := filepath.Join(dir, "db-url")
	if err := os.WriteFile(dbFile, []byte("postgres://u:secret@db/cardcat\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	env, _ := configEnv(map[string]string{
		"CARDCAT_ADDR": ":9000", "CARDCAT_PUBLIC_URL": "https://api.example/", "CARDCAT_REFRESH_INTERVAL": "1m",
		"CARDCAT_DATABASE_URL_FILE": dbFile, "CARDCAT_REDIS_URL": "redis://r:6379/0", "CARDCAT_GUARD_PER_HOUR": "50",
		"CARDCAT_REDIS_TIMEOUT": "250ms", "CARDCAT_LOAD_TIMEOUT": "20m", "CARDCAT_COMPRESS_CACHE_MB": "512",
	})
	cfg, err := parseServe(env, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Serve.Addr != ":9000" || cfg.Serve.PublicURL != "https://api.example" || cfg.Serve.RefreshInterval != time.Minute ||
		cfg.Store.DatabaseURL != "postgres://u:secret@db/cardcat" || cfg.Limits.RedisURL != "redis://r:6379/0" ||
		cfg.Limits.GuardPerHour != 50 || cfg.gcPercent != 50 || cfg.Limits.RedisTimeout != 250*time.Millisecond ||
		cfg.Catalogue.LoadTimeout != 20*time.Minute || cfg.Serve.CompressCacheMB != 512 {
		t.Errorf("from the environment: %+v, store %+v, limits %+v", cfg.Serve, cfg.Store, cfg.Limits)
	}

	cfg, err = parseServe(env, []string{"--addr", ":9001", "--database-url", "sqlite:/tmp/x.db", "--redis-url", "", "--guard-per-hour", "7", "--redis-timeout", "2s", "--load-timeout", "90s", "--compress-cache-mb", "64"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Serve.Addr != ":9001" || cfg.Store.DatabaseURL != "sqlite:/tmp/x.db" || cfg.Limits.RedisURL != "" || cfg.Limits.GuardPerHour != 7 ||
		cfg.Limits.RedisTimeout != 2*time.Second || cfg.Catalogue.LoadTimeout != 90*time.Second || cfg.Serve.CompressCacheMB != 64 {
		t.Errorf("flags must win: %+v, store %+v, limits %+v", cfg.Serve, cfg.Store, cfg.Limits)
	}

	env, _ = configEnv(map[string]string{"GOGC": "100"})
	if cfg, err = parseServe(env, nil); err != nil || cfg.gcPercent != -1 || cfg.Store.DatabaseURL != "" || cfg.Store.DataDir != "./data" ||
		cfg.Catalogue.LoadTimeout != serving.DefaultLoadTimeout || cfg.Serve.CompressCacheMB<<20 != web.DefaultCompressCacheBytes {
		t.Errorf("defaults with the operator's GOGC: %+v, %v", cfg, err)
	}
}

func TestParseServeRefusals(t *testing.T) {
	dbFile := filepath.Join(t.TempDir(), "db-url")
	os.WriteFile(dbFile, []byte("postgres://a@b/c"), 0o600)
	for _, tt := range []struct {
		env  map[string]string
		args []string
		want string
	}{
		{map[string]string{"CARDCAT_DATABASE_URL": "postgres://a@b/c", "CARDCAT_DATABASE_URL_FILE": dbFile}, nil, "CARDCAT_DATABASE_URL_FILE"},
		{map[string]string{"CARDCAT_REDIS_URL": "redis://a", "CARDCAT_REDIS_URL_FILE": dbFile}, nil, "CARDCAT_REDIS_URL_FILE"},
		{nil, []string{"--refresh-interval", "0s"}, "refresh-interval"},
		{map[string]string{"CARDCAT_REFRESH_INTERVAL": "soon"}, nil, "CARDCAT_REFRESH_INTERVAL"},
		{map[string]string{"CARDCAT_GUARD_PER_HOUR": "-1"}, nil, "CARDCAT_GUARD_PER_HOUR"},
		{map[string]string{"CARDCAT_REDIS_TIMEOUT": "0s"}, nil, "CARDCAT_REDIS_TIMEOUT"},
		{map[string]string{"CARDCAT_REDIS_TIMEOUT": "fast"}, nil, "CARDCAT_REDIS_TIMEOUT"},
		{nil, []string{"--redis-timeout", "-1s"}, "redis-timeout"},
		{nil, []string{"--load-timeout", "0s"}, "load-timeout"},
		{map[string]string{"CARDCAT_LOAD_TIMEOUT": "long"}, nil, "CARDCAT_LOAD_TIMEOUT"},
		{map[string]string{"CARDCAT_COMPRESS_CACHE_MB": "0"}, nil, "CARDCAT_COMPRESS_CACHE_MB"},
		{nil, []string{"--compress-cache-mb", "lots"}, "compress-cache-mb"},
	} {
		env, _ := configEnv(tt.env)
		_, err := parseServe(env, tt.args)
		if err == nil || !strings.Contains(err.Error(), tt.want) || exitCode(err) != 2 {
			t.Errorf("%v %v: error %v (exit %d), want a usage error naming %s", tt.env, tt.args, err, exitCode(err), tt.want)
		}
	}
}

// TestServeHelpHidesSecrets: --help prints no secret read from the
// environment as a flag's default.
func TestServeHelpHidesSecrets(t *testing.T) {
	env, out := configEnv(map[string]string{"CARDCAT_DATABASE_URL": "postgres://u:hunter2@db/x", "CARDCAT_REDIS_URL": "redis://:hunter3@r:6379/0"})
	if _, err := parseServe(env, []string{"--help"}); exitCode(err) != 0 {
		t.Fatalf("--help: %v", err)
	}
	if s := out.String(); strings.Contains(s, "hunter") || !strings.Contains(s, "database-url") {
		t.Errorf("--help output shows a secret or lacks the flag:\n%s", s)
	}
}
