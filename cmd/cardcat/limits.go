package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/netip"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/httpapi"
	"github.com/cardcat/cardcat/internal/metrics"
	"github.com/cardcat/cardcat/internal/ratelimit"
	"github.com/cardcat/cardcat/internal/ratelimit/memory"
	"github.com/cardcat/cardcat/internal/ratelimit/redis"
	"github.com/cardcat/cardcat/internal/store"
)

// limitFlags are serve's flags for keys and rate limits.
type limitFlags struct {
	redisURL       string
	redisPrefix    string
	redisTimeout   time.Duration // per call, before the request is counted locally instead
	guardPerHour   int64
	trustedProxies []netip.Prefix
	keysRefresh    time.Duration
}

func addLimitFlags(fs *flag.FlagSet, env *Env) (*limitFlags, error) {
	f := &limitFlags{guardPerHour: httpapi.DefaultGuardPerHour}
	if v := env.Getenv("CARDCAT_GUARD_PER_HOUR"); v != "" {
		if err := f.setGuard(v); err != nil {
			return nil, usageError{"CARDCAT_GUARD_PER_HOUR: " + err.Error()}
		}
	}
	if v := env.Getenv("CARDCAT_TRUSTED_PROXIES"); v != "" {
		if err := f.setTrusted(v); err != nil {
			return nil, usageError{"CARDCAT_TRUSTED_PROXIES: " + err.Error()}
		}
	}
	refresh, err := envDuration(env.Getenv, "CARDCAT_KEYS_REFRESH_INTERVAL", 5*time.Second)
	if err != nil {
		return nil, err
	}
	if err := f.setRefresh(refresh.String()); err != nil {
		return nil, usageError{"CARDCAT_KEYS_REFRESH_INTERVAL: " + err.Error()}
	}
	// The Redis URL may hold a password: --help does not print it.
	if f.redisURL, err = envSecret(env.Getenv, "CARDCAT_REDIS_URL"); err != nil {
		return nil, err
	}
	fs.Func("redis-url", "redis://[user:password@]host:port/db of the Redis that holds the shared rate-limit counters; in-process counters (persisted in the data directory) when empty (env CARDCAT_REDIS_URL, or a file named by CARDCAT_REDIS_URL_FILE)",
		func(v string) error { f.redisURL = v; return nil })
	if f.redisTimeout, err = envDuration(env.Getenv, "CARDCAT_REDIS_TIMEOUT", redis.DefaultTimeout); err != nil {
		return nil, err
	} else if f.redisTimeout <= 0 {
		return nil, usageError{fmt.Sprintf("CARDCAT_REDIS_TIMEOUT: want a positive duration such as 100ms, got %q", env.Getenv("CARDCAT_REDIS_TIMEOUT"))}
	}
	fs.Func("redis-timeout", fmt.Sprintf("how long one rate-limit call may wait for Redis before the request is counted on this server alone (env CARDCAT_REDIS_TIMEOUT; default %v)", redis.DefaultTimeout), func(v string) error {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return fmt.Errorf("want a positive duration such as 100ms, got %q", v)
		}
		f.redisTimeout = d
		return nil
	})
	fs.StringVar(&f.redisPrefix, "redis-prefix", envOr(env.Getenv, "CARDCAT_REDIS_PREFIX", redis.DefaultPrefix), "prefix of the rate-limit keys in Redis (env CARDCAT_REDIS_PREFIX)")
	fs.Func("guard-per-hour", fmt.Sprintf("requests per hour without a valid key allowed from one client IP; a day allows 24 times as many (env CARDCAT_GUARD_PER_HOUR; default %d)", f.guardPerHour), f.setGuard)
	fs.Func("trusted-proxies", "CIDRs of the proxies whose X-Forwarded-For names the client, comma-separated; none by default (env CARDCAT_TRUSTED_PROXIES)", f.setTrusted)
	fs.Func("keys-refresh-interval", fmt.Sprintf("how often to reload the API keys when they changed: a revoked key or a plan change applies within it (env CARDCAT_KEYS_REFRESH_INTERVAL; default %v)", f.keysRefresh), f.setRefresh)
	return f, nil
}

func (f *limitFlags) setGuard(v string) error {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 {
		return fmt.Errorf("want a positive integer, got %q", v)
	}
	f.guardPerHour = n
	return nil
}

func (f *limitFlags) setTrusted(v string) error {
	p, err := httpapi.ParseTrustedProxies(v)
	if err != nil {
		return err
	}
	f.trustedProxies = p
	return nil
}

func (f *limitFlags) setRefresh(v string) error {
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return fmt.Errorf("want a positive duration like 5s, got %q", v)
	}
	f.keysRefresh = d
	return nil
}

// limits are the keys and rate limits of a running server.
type limits struct {
	dir     *account.Directory
	auth    *account.Authenticator
	limiter ratelimit.Limiter
	backend string // for the log: "memory <path>" or "redis <addr>"
	trusted []netip.Prefix
	guard   int64
	refresh time.Duration
}

// openLimits loads the key directory from the store and opens the limiter:
// in process and persisted in the data directory by default, Redis when a
// URL is given (counting locally while Redis is unreachable).
func openLimits(ctx context.Context, env *Env, f *limitFlags, st store.Store, dataDir string, mx *metrics.Metrics) (*limits, error) {
	redisURL := f.redisURL
	as, ok := st.(account.Store)
	if !ok {
		return nil, errors.New("the store keeps no accounts: API keys cannot be checked")
	}
	dir, err := account.NewDirectory(ctx, as, env.Log)
	if err != nil {
		return nil, fmt.Errorf("loading the API keys: %w", err)
	}
	l := &limits{dir: dir, auth: account.NewAuthenticator(dir, time.Now), trusted: f.trustedProxies, guard: f.guardPerHour, refresh: f.keysRefresh}
	if redisURL == "" {
		path := filepath.Join(dataDir, "ratelimit.json")
		m, err := memory.Open(path, memory.Options{Logger: env.Log})
		if err != nil {
			return nil, fmt.Errorf("rate-limit state: %w", err)
		}
		l.limiter, l.backend = m, "memory "+path
		return l, nil
	}
	setRedisDriverLogger.Do(func() { redis.SetDriverLogger(env.Log) })
	r, err := redis.Open(ctx, redisURL, memory.New(memory.Options{Logger: env.Log}), redisMetrics(mx, redis.Options{Prefix: f.redisPrefix, Timeout: f.redisTimeout, Logger: env.Log}))
	if err != nil {
		return nil, usageError{"--redis-url: " + strings.ReplaceAll(err.Error(), redisURL, redact(redisURL))}
	}
	l.limiter, l.backend = r, "redis "+redact(redisURL)
	watchRedis(mx, r)
	return l, nil
}

// setRedisDriverLogger: go-redis has one logger per process (and tests run
// several servers in one).
var setRedisDriverLogger sync.Once

// healthy is the /health cache check: the limiter's own, when it has one.
// It is not critical: a Redis outage is served on the local fallback.
func (l *limits) healthy(ctx context.Context) error {
	if hc, ok := l.limiter.(ratelimit.HealthChecker); ok {
		return hc.Healthy(ctx)
	}
	return nil
}

// close saves the in-process counters (or closes the Redis client); call it
// after the server stopped taking requests.
func (l *limits) close(env *Env) {
	if err := l.limiter.Close(); err != nil {
		env.Log.Error("closing the rate limiter", "err", err)
	}
}
