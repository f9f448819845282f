package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"
)

// ensureTools makes sure the programs the harness runs are installed:
// wrk (Debian package wrk) and taskset (util-linux). As root with apt-get it
// installs a missing one; otherwise it says how.
func ensureTools(ctx context.Context, pin bool, logf func(string, ...any)) error {
	need := map[string]string{"wrk": "wrk"}
	if pin {
		need["taskset"] = "util-linux"
	}
	var missing []string
	for prog, pkg := range need {
		if _, err := exec.LookPath(prog); err != nil {
			missing = append(missing, pkg)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	how := "apt-get install -y " + strings.Join(missing, " ")
	if _, err := exec.LookPath("apt-get"); err != nil || os.Geteuid() != 0 {
		return fmt.Errorf("missing %s: install it first, e.g. `sudo %s` (Debian/Ubuntu)", strings.Join(missing, ", "), how)
	}
	logf("installing %s with apt-get", strings.Join(missing, ", "))
	if _, err := command(ctx, []string{"DEBIAN_FRONTEND=noninteractive"}, "apt-get", "install", "-y", "-q", strings.Join(missing, " ")); err != nil {
		// The package lists may be missing or stale on a fresh machine.
		if _, err := command(ctx, nil, "apt-get", "update", "-q"); err != nil {
			return fmt.Errorf("apt-get update: %w", err)
		}
		if _, err := command(ctx, []string{"DEBIAN_FRONTEND=noninteractive"}, "apt-get", "install", "-y", "-q", strings.Join(missing, " ")); err != nil {
			return fmt.Errorf("could not install %s (%w); install it by hand: %s", strings.Join(missing, ", "), err, how)
		}
	}
	return nil
}

// moduleRoot returns the directory of cardcat's go.mod.
func moduleRoot(ctx context.Context) (string, error) {
	out, err := command(ctx, nil, "go", "env", "GOMOD")
	if err != nil {
		return "", err
	}
	mod := strings.TrimSpace(out)
	if mod == "" || mod == os.DevNull {
		return "", errors.New("run loadbench inside the cardcat module (make bench from the repository root)")
	}
	return filepath.Dir(mod), nil
}

// buildBinaries builds cardcat (as `make build` does) and the ceiling server
// into dir/bin.
func buildBinaries(ctx context.Context, root, dir string) (cardcat, ceiling string, err error) {
	bin := filepath.Join(dir, "bin")
	cardcat, ceiling = filepath.Join(bin, "cardcat"), filepath.Join(bin, "ceiling")
	version := cardcatVersion(ctx, root)
	env := []string{"CGO_ENABLED=0"}
	if _, err := command(ctx, env, "go", "build", "-C", root, "-ldflags", "-X main.version="+version, "-o", cardcat, "./cmd/cardcat"); err != nil {
		return "", "", err
	}
	if _, err := command(ctx, env, "go", "build", "-C", root, "-o", ceiling, "./bench/cmd/ceiling"); err != nil {
		return "", "", err
	}
	return cardcat, ceiling, nil
}

// cardcatVersion is what `make build` stamps: git describe, else "dev".
func cardcatVersion(ctx context.Context, root string) string {
	out, err := command(ctx, nil, "git", "-C", root, "describe", "--tags", "--always", "--dirty")
	if err != nil {
		return "dev"
	}
	return strings.TrimSpace(out)
}

// serveSupportsRedis reports whether `cardcat serve` takes a Redis limiter
// (its help names CARDCAT_REDIS_URL or a --redis-url flag).
func serveSupportsRedis(ctx context.Context, cardcat string) bool {
	out, _ := command(ctx, nil, cardcat, "serve", "--help")
	return strings.Contains(out, "CARDCAT_REDIS_URL") || strings.Contains(out, "-redis")
}

// redisCommands returns Redis's total_commands_processed.
func redisCommands(ctx context.Context, url string) (int64, error) {
	opts, err := redis.ParseURL(url)
	if err != nil {
		return 0, err
	}
	c := redis.NewClient(opts)
	defer c.Close()
	info, err := c.Info(ctx, "stats").Result()
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "total_commands_processed:"); ok {
			return strconv.ParseInt(v, 10, 64)
		}
	}
	return 0, errors.New("redis INFO stats: no total_commands_processed")
}

// redisDeletePrefix deletes the keys under prefix.
func redisDeletePrefix(ctx context.Context, url, prefix string) error {
	opts, err := redis.ParseURL(url)
	if err != nil {
		return err
	}
	c := redis.NewClient(opts)
	defer c.Close()
	iter := c.Scan(ctx, 0, prefix+"*", 1000).Iterator()
	var keys []string
	for iter.Next(ctx) {
		keys = append(keys, iter.Val())
	}
	if err := iter.Err(); err != nil {
		return err
	}
	if len(keys) == 0 {
		return nil
	}
	return c.Del(ctx, keys...).Err()
}

// machine describes the machine for the report.
func machine(ctx context.Context) string {
	var parts []string
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "model name"); ok {
				parts = append(parts, strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), ":")))
				break
			}
		}
	}
	if out, err := command(ctx, nil, "nproc"); err == nil {
		parts = append(parts, strings.TrimSpace(out)+" cores")
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		f := strings.Fields(string(b))
		if len(f) > 1 {
			if kb, err := strconv.ParseInt(f[1], 10, 64); err == nil {
				parts = append(parts, fmt.Sprintf("%.0f GiB", float64(kb)/(1<<20)))
			}
		}
	}
	if out, err := command(ctx, nil, "uname", "-r"); err == nil {
		parts = append(parts, "Linux "+strings.TrimSpace(out))
	}
	if out, err := command(ctx, nil, "go", "version"); err == nil {
		parts = append(parts, strings.TrimPrefix(strings.TrimSpace(out), "go version "))
	}
	// wrk --version prints its version and usage, and exits 1.
	if out, _ := exec.CommandContext(ctx, "wrk", "--version").Output(); len(out) > 0 {
		parts = append(parts, strings.SplitN(strings.TrimSpace(string(out)), " [", 2)[0])
	}
	return strings.Join(parts, ", ")
}
