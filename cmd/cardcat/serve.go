package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"runtime/debug"
	"strings"
	"time"

	"github.com/cardcat/cardcat"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/httpapi"
	"github.com/cardcat/cardcat/internal/serving"
)

func init() {
	register("serve", "serve the HTTP API", cmdServe)
}

// serveConfig is everything `cardcat serve` is told, read once from its
// flags and the environment (flags win) by parseServe, then passed down:
// nothing below reads the environment.
type serveConfig struct {
	store     *storeFlags
	limits    *limitFlags
	images    imageConfig
	addr      string
	publicURL string // without a trailing slash
	region    string
	refresh   time.Duration
	adminAddr string
	// gcPercent is the collector's target unless the operator set GOGC.
	gcPercent int // -1: leave the runtime's
}

func cmdServe(ctx context.Context, env *Env, args []string) error {
	cfg, err := parseServe(env, args)
	if err != nil {
		return err
	}
	return serve(ctx, env, cfg)
}

func parseServe(env *Env, args []string) (*serveConfig, error) {
	fs := newFlagSet(env, "serve", "[flags]")
	cfg := &serveConfig{gcPercent: -1}
	var err error
	if cfg.store, err = addStoreFlags(fs, env); err != nil {
		return nil, err
	}
	fs.StringVar(&cfg.addr, "addr", envOr(env.Getenv, "CARDCAT_ADDR", ":8080"), "listen address (env CARDCAT_ADDR)")
	fs.StringVar(&cfg.publicURL, "public-url", envOr(env.Getenv, "CARDCAT_PUBLIC_URL", "http://localhost:8080"), "base URL callers use, for docs and example links (env CARDCAT_PUBLIC_URL)")
	fs.StringVar(&cfg.region, "region", envOr(env.Getenv, "CARDCAT_REGION", "local"), "region reported by /health (env CARDCAT_REGION)")
	defRefresh, err := envDuration(env.Getenv, "CARDCAT_REFRESH_INTERVAL", 30*time.Second)
	if err != nil {
		return nil, err
	}
	fs.DurationVar(&cfg.refresh, "refresh-interval", defRefresh, "how often to look for a new catalogue version (env CARDCAT_REFRESH_INTERVAL)")
	fs.StringVar(&cfg.adminAddr, "admin-addr", envOr(env.Getenv, "CARDCAT_ADMIN_ADDR", ""), "address of the admin server with pprof, e.g. 127.0.0.1:6060; off when empty (env CARDCAT_ADMIN_ADDR)")
	if cfg.limits, err = addLimitFlags(fs, env); err != nil {
		return nil, err
	}
	if cfg.images, err = readImageConfig(env.Getenv); err != nil {
		return nil, err
	}
	if err := parseFlags(fs, env, args); err != nil {
		return nil, err
	}
	if cfg.refresh <= 0 {
		return nil, usageError{"--refresh-interval must be positive"}
	}
	cfg.publicURL = strings.TrimRight(cfg.publicURL, "/")
	// 50 keeps resident memory near the long-lived snapshot without
	// collecting so often that requests wait (measurements in
	// bench/README.md, "GOGC 50"). An operator's GOGC wins.
	if env.Getenv("GOGC") == "" {
		cfg.gcPercent = 50
	}
	return cfg, nil
}

// serve runs the API until ctx ends, then drains the requests in flight.
func serve(ctx context.Context, env *Env, cfg *serveConfig) error {
	log := env.Log
	reg := game.Default()
	if cfg.gcPercent >= 0 {
		debug.SetGCPercent(cfg.gcPercent)
	}
	sf := cfg.store

	st, err := sf.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := ensureSample(ctx, st, reg, log); err != nil {
		return err
	}
	holder := serving.NewHolder(st, reg, log)
	if err := holder.Refresh(ctx); err != nil {
		return err
	}

	imgs, imgStore, err := openImages(ctx, env, cfg.images, sf.dataDir)
	if err != nil {
		return err
	}
	log.Info("image storage", "where", imgStore)

	lim, err := openLimits(ctx, env, cfg.limits, st, sf.dataDir)
	if err != nil {
		return err
	}
	defer lim.close(env) // deferred: after the server's Shutdown, so that the last counts are saved
	log.Info("rate limiter", "backend", lim.backend)

	api, err := httpapi.New(httpapi.Config{GuardPerHour: lim.guard, TrustedProxies: lim.trusted}, httpapi.Deps{
		Auth:      lim.auth,
		Limiter:   lim.limiter,
		View:      holder.Current,
		Images:    imgs,
		Docs:      cardcat.Docs(),
		Games:     reg,
		Logger:    log,
		AccessLog: newAccessLog(env.logCfg, env.logs),
		Version:   Version(),
		Region:    cfg.region,
		PublicURL: cfg.publicURL,
		Health: []httpapi.HealthCheck{
			{Name: "database", Check: st.Ping, Critical: true},
			{Name: "cache", Check: lim.healthy},
			{Name: "storage", Check: func(ctx context.Context) error { _, err := imgs.ProbeStorage(ctx); return err }},
		},
	})
	if err != nil {
		return err
	}

	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           api.Handler(),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    32 << 10,
		// The server's own errors (bad TLS, broken connections) go to the
		// structured log too.
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go holder.Watch(ctx, cfg.refresh)
	go lim.dir.Watch(ctx, lim.refresh)
	if cfg.adminAddr != "" {
		if err := startAdmin(ctx, env, cfg.adminAddr); err != nil {
			return err
		}
	}

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	log.Info("listening", "addr", ln.Addr().String(), "store", sf.describe())
	fmt.Fprintf(env.Stdout, "cardcat listening on http://%s\n", ln.Addr())

	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down: finishing in-flight requests")
	shutdownCtx, done := context.WithTimeout(context.Background(), 20*time.Second)
	defer done()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	log.Info("stopped")
	return nil
}

// startAdmin serves pprof on its own address, never on the public one.
func startAdmin(ctx context.Context, env *Env, addr string) error {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("admin address: %w", err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	go func() { <-ctx.Done(); srv.Close() }()
	env.Log.Info("admin (pprof) listening", "addr", ln.Addr().String())
	return nil
}

// envDuration reads a duration variable, def when unset.
func envDuration(getenv func(string) string, name string, def time.Duration) (time.Duration, error) {
	v := getenv(name)
	if v == "" {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, usageError{fmt.Sprintf("%s: want a duration like 30s, got %q", name, v)}
	}
	return d, nil
}
