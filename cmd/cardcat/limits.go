package main

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/config"
	"github.com/cardcat/cardcat/internal/metrics"
	"github.com/cardcat/cardcat/internal/ratelimit"
	"github.com/cardcat/cardcat/internal/ratelimit/memory"
	"github.com/cardcat/cardcat/internal/ratelimit/redis"
	"github.com/cardcat/cardcat/internal/store"
)

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
func openLimits(ctx context.Context, env *Env, f config.Limits, trusted []netip.Prefix, st store.Store, dataDir string, mx *metrics.Metrics) (*limits, error) {
	redisURL := f.RedisURL
	as, ok := st.(account.Store)
	if !ok {
		return nil, errors.New("the store keeps no accounts: API keys cannot be checked")
	}
	dir, err := account.NewDirectory(ctx, as, env.Log)
	if err != nil {
		return nil, fmt.Errorf("loading the API keys: %w", err)
	}
	l := &limits{dir: dir, auth: account.NewAuthenticator(dir, time.Now), trusted: trusted, guard: f.GuardPerHour, refresh: f.KeysRefreshInterval}
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
	r, err := redis.Open(ctx, redisURL, memory.New(memory.Options{Logger: env.Log}),
		redis.Options{Prefix: f.RedisPrefix, Timeout: f.RedisTimeout, Logger: env.Log, RoundTrip: mx.RedisRoundTrip})
	if err != nil {
		return nil, usageError{"--redis-url: " + strings.ReplaceAll(err.Error(), redisURL, redact(redisURL))}
	}
	l.limiter, l.backend = r, "redis "+redact(redisURL)
	mx.RedisFallback(r.Local)
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
