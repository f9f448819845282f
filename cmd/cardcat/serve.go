package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"net/netip"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/cardcat/cardcat"
	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/config"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/httpapi"
	"github.com/cardcat/cardcat/internal/serving"
	"github.com/cardcat/cardcat/internal/web/accesslog"
)

func init() {
	register("serve", "serve the HTTP API", cmdServe)
}

// serveConfig is everything `cardcat serve` is told: its settings, read
// once from its flags and the environment by parseServe (internal/config's
// table), and what serve's parts make of them, checked at start-up; nothing
// below reads the environment.
type serveConfig struct {
	*config.Config
	trusted []netip.Prefix // Limits.TrustedProxies
	images  imageConfig
	portal  *portalConfig
	// gcPercent is the collector's target unless the operator set GOGC.
	gcPercent int            // -1: leave the runtime's
	scheduled *refreshConfig // --refresh-at: the live ingest inside the server
	// now is the clock of every decision with a time (trials, sessions,
	// windows); time.Now but in tests.
	now func() time.Time
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
	c, err := bindConfig(env, fs, config.Serve)
	if err != nil {
		return nil, err
	}
	if err := parseFlags(fs, env, args); err != nil {
		return nil, err
	}
	return serveSettings(env, c)
}

// serveSettings is what serve makes of its settings, or the first mistake
// in them.
func serveSettings(env *Env, c *config.Config) (*serveConfig, error) {
	cfg := &serveConfig{Config: c, gcPercent: -1, now: time.Now, scheduled: &refreshConfig{at: c.Serve.RefreshAt, upstream: c.Upstream}}
	var err error
	if cfg.trusted, err = httpapi.ParseTrustedProxies(c.Limits.TrustedProxies); err != nil {
		return nil, c.Invalid("trusted-proxies", err)
	}
	if cfg.portal, err = portalSettings(c); err != nil {
		return nil, err
	}
	if cfg.images, err = readImageConfig(c); err != nil {
		return nil, err
	}
	if addr := c.Serve.AdminAddr; addr != "" && !c.Serve.AdminPublic {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := checkLoopback(ctx, addr, net.DefaultResolver.LookupNetIP); err != nil {
			return nil, usageError{fmt.Sprintf("--admin-addr %s: %v; the admin server (pprof) has no authentication: "+
				"bind it to loopback, e.g. 127.0.0.1:6060, or add --admin-allow-public (CARDCAT_ADMIN_ALLOW_PUBLIC=true) to serve it there anyway", addr, err)}
		}
	}
	// 50 keeps resident memory near the long-lived snapshot without
	// collecting so often that requests wait (measurements in
	// bench/README.md, "GOGC 50"). An operator's GOGC wins (the runtime
	// read it).
	if c.Origin("gogc").Source == config.FromDefault {
		if cfg.gcPercent, err = strconv.Atoi(c.Serve.GOGC); err != nil {
			return nil, err
		}
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
	sf := cfg.Store

	st, err := openStore(ctx, sf)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := ensureSample(ctx, st, reg, log); err != nil {
		return err
	}
	s3, err := openS3(cfg.images.s3)
	if err != nil {
		return err
	}
	holder := serving.NewHolder(st, reg, log)
	holder.LoadTimeout = cfg.Catalogue.LoadTimeout
	holder.Artifacts = openArtifacts(cfg.Catalogue.SnapshotArtifacts, sf, s3, log)
	mx := newServeMetrics(cfg, holder)
	// The bulk files of each version are built on disk (or fetched from S3,
	// once another replica built them), in the background, once the version
	// is served (docs/operations.md, "Bulk files"): the first version's once
	// the server listens, below.
	bulkFiles := openBulk(filepath.Join(sf.DataDir, "bulk"), s3, log)
	defer bulkFiles.Close()
	if err := holder.Refresh(ctx); err != nil {
		return err
	}

	imgs, imgStore, err := openImages(ctx, env, cfg.images, s3, sf.DataDir, imageMetrics(mx))
	if err != nil {
		return err
	}
	log.Info("image storage", "where", imgStore)
	setLogos, logosFrom, err := openSetLogos(sf.DataDir)
	if err != nil {
		return err
	}
	log.Info("set logos", "from", logosFrom, "sets", setLogos.Len())

	lim, err := openLimits(ctx, env, cfg.Limits, cfg.trusted, st, sf.DataDir, mx)
	if err != nil {
		return err
	}
	defer lim.close(env) // deferred: after the server's Shutdown, so that the last counts are saved
	log.Info("rate limiter", "backend", lim.backend)

	// usage counts keyed requests per account and hour (the portal's usage
	// page, `accounts usage`): flushed to the store every interval by its
	// loop, and once more after the last request (deferred: after Shutdown,
	// before the store closes). Flush it before reading the store's usage.
	// openLimits made sure the store keeps accounts.
	accounts := st.(account.Store)
	usage := account.NewMeter(accounts, log)
	defer flushUsage(env, usage)
	lim.auth = account.NewAuthenticator(lim.dir, cfg.now)
	portal, err := openPortal(cfg.portal, accounts, lim.limiter, lim.dir, usage, cfg.Serve.PublicURL,
		httpapi.ClientGroup(lim.trusted), cfg.now, log)
	if err != nil {
		return err
	}

	ready := readiness{
		view:      holder.Current,
		keys:      lim.dir.LastSuccess,
		keysBound: keysStaleAfter(lim.refresh),
		now:       time.Now,
	}
	// A new catalogue version reaches this server within a refresh interval:
	// keyed answers may be reused that long, then revalidated (free).
	api, err := httpapi.New(httpapi.Config{GuardPerHour: lim.guard, TrustedProxies: lim.trusted, KeyedMaxAge: cfg.Serve.RefreshInterval,
		CompressCacheBytes: cfg.Serve.CompressCacheMB << 20}, httpapi.Deps{
		Auth:      lim.auth,
		Limiter:   lim.limiter,
		Usage:     usage,
		Portal:    portal,
		Metrics:   mx,
		Now:       cfg.now,
		View:      holder.Current,
		Images:    imgs,
		SetLogos:  setLogos,
		Changes:   st, // the change feed: read per request, within httpapi.Config.ChangesTimeout
		Bulk:      bulkFiles,
		History:   st, // price history: read per request, within httpapi.Config.HistoryTimeout
		Docs:      cardcat.Docs(),
		Games:     reg,
		Logger:    log,
		AccessLog: accesslog.New(env.logCfg, env.logs),
		Version:   Version(),
		Region:    cfg.Serve.Region,
		PublicURL: cfg.Serve.PublicURL,
		// The API answers from memory: a database outage is reported, but
		// only what stops this replica from answering (no catalogue, stale
		// keys) makes it unhealthy.
		Health: []httpapi.HealthCheck{
			{Name: "database", Check: func(ctx context.Context) error {
				if err := st.Ping(ctx); err != nil {
					return err
				}
				return refreshesFailing(holder.FailingSince(), lim.dir.FailingSince())
			}},
			{Name: "cache", Check: lim.healthy},
			{Name: "storage", Check: func(ctx context.Context) error { _, err := imgs.ProbeStorage(ctx); return err }},
			{Name: "keys", Check: func(context.Context) error { return ready.keysFresh() }, Critical: true},
		},
	})
	if err != nil {
		return err
	}

	ln, err := net.Listen("tcp", cfg.Serve.Addr)
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
		// OPTIONS * goes to the API like any OPTIONS (a 405, or a CORS
		// preflight), not to net/http's bare 200 without the API's headers.
		DisableGeneralOptionsHandler: true,
		// The server's own errors (bad TLS, broken connections) go to the
		// structured log too.
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Started only now: on a replica of one core, a build running beside
	// the start-up doubled its time to the first answer (bench/README.md,
	// "Replica start at a million cards").
	holder.OnPublish = func(v *serving.View) { bulkFiles.Publish(v.Snapshot) }
	if v := holder.Current(); v != nil {
		bulkFiles.Publish(v.Snapshot)
	}
	go holder.Watch(ctx, cfg.Serve.RefreshInterval)
	go lim.dir.Watch(ctx, lim.refresh)
	go usage.Run(ctx, account.DefaultFlushInterval)
	sched, err := newRefreshScheduler(cfg.scheduled, st, reg, sf.DataDir, cfg.now, log, mx)
	if err != nil {
		return err
	}
	withArtifact(sched, holder.Artifacts, st, cfg.Catalogue.LoadTimeout, log)
	if sched != nil {
		// Waited for before the store closes: an ingest cut short by the
		// shutdown rolls back (docs/operations.md, "Scheduled refresh").
		schedDone := make(chan struct{})
		go func() { sched.Run(ctx); close(schedDone) }()
		defer func() { cancel(); <-schedDone }()
		log.Info("scheduled refresh on", "at_utc", sched.Times.String())
	}
	if cfg.Serve.AdminAddr != "" {
		if err := startAdmin(ctx, env, cfg.Serve.AdminAddr, cfg.Serve.AdminPublic, ready, mx.Handler()); err != nil {
			return err
		}
	}

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	log.Info("listening", "addr", ln.Addr().String(), "store", sf.Describe())
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

// flushUsage writes the meter's last counts at shutdown, with a time limit
// of its own (serve's context has ended).
func flushUsage(env *Env, m *account.Meter) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := m.Flush(ctx); err != nil {
		env.Log.Error("saving the last usage counts", "err", err)
	}
}

// startAdmin serves, on its own address, never on the public one, pprof,
// the probes: /livez (the process answers) and /readyz (this replica can
// answer the API: the rule of /health's status), and the metrics.
func startAdmin(ctx context.Context, env *Env, addr string, public bool, ready readiness, metrics http.Handler) error {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	mux.HandleFunc("GET /livez", func(w http.ResponseWriter, r *http.Request) { probeAnswer(w, nil) })
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) { probeAnswer(w, ready.check()) })
	mux.Handle("GET /metrics", metrics)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("admin address: %w", err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	go func() { <-ctx.Done(); srv.Close() }()
	env.Log.Info("admin (pprof, probes) listening", "addr", ln.Addr().String())
	if public {
		env.Log.Warn("the admin server may be reachable from other hosts (--admin-allow-public): pprof and the probes have no authentication; keep its port behind a firewall",
			"addr", ln.Addr().String())
	}
	return nil
}

// probeAnswer writes a probe's plain-text answer: 200 "ok", or 503 and why.
func probeAnswer(w http.ResponseWriter, err error) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if err != nil {
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprintf(w, "not ready: %v\n", err)
		return
	}
	fmt.Fprintln(w, "ok")
}

// checkLoopback says why addr (host:port) is not a loopback address: no
// host (every interface), an address of another interface, or a name that
// resolves to one. localhost passes; a name is resolved with lookup.
func checkLoopback(ctx context.Context, addr string, lookup func(ctx context.Context, network, host string) ([]netip.Addr, error)) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if host == "" {
		return errors.New("no host listens on every interface")
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		if !ip.IsLoopback() {
			return fmt.Errorf("%s is not a loopback address", host)
		}
		return nil
	}
	ips, err := lookup(ctx, "ip", host)
	if err != nil {
		return fmt.Errorf("resolving %s: %w", host, err)
	}
	if len(ips) == 0 {
		return fmt.Errorf("%s resolves to no address", host)
	}
	for _, ip := range ips {
		if !ip.Unmap().IsLoopback() {
			return fmt.Errorf("%s resolves to %s, not a loopback address", host, ip)
		}
	}
	return nil
}

// readiness is whether this replica can answer the API, the rule of /health's
// status and of /readyz: a catalogue is loaded, and the keys in memory are
// recent enough (the key directory refreshed within keysBound), so that
// revocations and new keys are not missed for long. A database outage alone
// does not make a replica unready: the API answers from memory.
type readiness struct {
	view      func() *serving.View
	keys      func() time.Time // the key directory's last successful refresh
	keysBound time.Duration
	now       func() time.Time
}

func (r readiness) check() error {
	if r.view() == nil {
		return errors.New("catalogue not loaded yet")
	}
	if err := r.keysFresh(); err != nil {
		return fmt.Errorf("keys %w", err)
	}
	return nil
}

// keysFresh is /health's "keys" condition (its message names it).
func (r readiness) keysFresh() error {
	if age := r.now().Sub(r.keys()); age > r.keysBound {
		return fmt.Errorf("not refreshed for %s, more than %s", age.Round(time.Second), r.keysBound)
	}
	return nil
}

// keysStaleAfter is how long the keys may go unrefreshed before the replica
// is not ready: ten refresh intervals, at least a minute, so that one slow or
// failed refresh (each check has seconds) does not flap readiness, and an
// outage of the database is ridden out for a while on the keys in memory.
func keysStaleAfter(keysRefresh time.Duration) time.Duration {
	return max(time.Minute, 10*keysRefresh)
}

// refreshesFailing says which refresh from the store is failing, for
// /health's database check: the database may answer a ping while the
// catalogue or the keys cannot be read from it.
func refreshesFailing(catalogueSince, keysSince time.Time) error {
	var failing []string
	if !catalogueSince.IsZero() {
		failing = append(failing, "catalogue refresh failing since "+catalogueSince.UTC().Format(time.RFC3339))
	}
	if !keysSince.IsZero() {
		failing = append(failing, "key directory refresh failing since "+keysSince.UTC().Format(time.RFC3339))
	}
	if failing == nil {
		return nil
	}
	return errors.New(strings.Join(failing, "; "))
}
