package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/cardcat/cardcat"
	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/config"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/httpapi"
	"github.com/cardcat/cardcat/internal/schedule"
	"github.com/cardcat/cardcat/internal/serving"
	"github.com/cardcat/cardcat/internal/web"
	"github.com/cardcat/cardcat/internal/web/accesslog"
	"github.com/cardcat/cardcat/internal/web/admin"
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
	// alertHistoryFirst is how long after the start the alerts' history is
	// first pruned: alerts.DefaultPruneFirst (0) but in tests.
	alertHistoryFirst time.Duration
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
		if err := admin.CheckLoopback(ctx, addr, net.DefaultResolver.LookupNetIP); err != nil {
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
	if err := tryListen(cfg.Config); err != nil {
		return err
	}

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

	// The catalogue is loaded: the address is taken for good (tried at the
	// start), and the public URL follows it unless the operator set one.
	ln, err := listenAPI(cfg.Config)
	if err != nil {
		return err
	}
	defer ln.Close() // a failure below; after Shutdown, closed already
	public, publicFrom := publicURL(cfg.Config, ln.Addr())
	log.Info("public URL", "url", public, "from", publicFrom)
	var sched *schedule.Scheduler // made below; the status page reads how its last run ended
	statusPg, err := statusPage(st, holder, &sched, serving.DataFromReports(st), public, cfg.now, log)
	if err != nil {
		return err
	}
	portal, err := openPortal(cfg.portal, accounts, lim.limiter, lim.dir, usage, public,
		httpapi.ClientGroup(lim.trusted), cfg.now, log, servedSnapshot(holder))
	if err != nil {
		return err
	}

	ready := admin.Readiness{
		Loaded:        func() bool { return holder.Current() != nil },
		KeysRefreshed: lim.dir.LastSuccess,
		KeysBound:     admin.KeysStaleAfter(lim.refresh),
		Now:           time.Now,
	}
	// A new catalogue version reaches this server within a refresh interval:
	// keyed answers may be reused that long, then revalidated (free).
	accessLog := accesslog.New(env.logCfg, env.logs) // one writer for the API's lines and the portal's
	api, err := httpapi.New(httpapi.Config{GuardPerHour: lim.guard, TrustedProxies: lim.trusted, KeyedMaxAge: cfg.Serve.RefreshInterval,
		CompressCacheBytes: cfg.Serve.CompressCacheMB << 20}, httpapi.Deps{
		Auth:      lim.auth,
		Limiter:   lim.limiter,
		Usage:     usage,
		Metrics:   mx,
		Now:       cfg.now,
		View:      holder.Current,
		Images:    imgs,
		SetLogos:  setLogos,
		Changes:   st, // the change feed: read per request, within httpapi.Config.ChangesTimeout
		Bulk:      bulkFiles,
		History:   st, // price history: read per request, within httpapi.Config.HistoryTimeout
		Docs:      cardcat.Docs(),
		Alerts:    alertsSurface(st),
		Games:     reg,
		Logger:    log,
		AccessLog: accessLog,
		Data:      serving.DataFromReports(st), // what each version is made from: GET / and /health
		Version:   Version(),
		Region:    cfg.Serve.Region,
		PublicURL: public,
		// The API answers from memory: a database outage is reported, but
		// only what stops this replica from answering (no catalogue, stale
		// keys) makes it unhealthy.
		Health: []httpapi.HealthCheck{
			{Name: "database", Check: func(ctx context.Context) error {
				if err := st.Ping(ctx); err != nil {
					return err
				}
				return admin.RefreshesFailing(holder.FailingSince(), lim.dir.FailingSince())
			}},
			{Name: "cache", Check: lim.healthy},
			{Name: "storage", Check: func(ctx context.Context) error { _, err := imgs.ProbeStorage(ctx); return err }},
			{Name: "keys", Check: func(context.Context) error { return ready.KeysFresh() }, Critical: true},
		},
	})
	if err != nil {
		return err
	}

	srv := &http.Server{
		Handler:           withStatus(serverHandler(api, portal, cfg.Serve.PublicURL, log, accessLog, mx), statusPg, cfg.Serve.PublicURL, log, accessLog, mx),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    32 << 10,
		// OPTIONS * goes to the API like any OPTIONS (a 405, or a CORS
		// preflight), not to net/http's bare 200 without the API's headers.
		DisableGeneralOptionsHandler: true,
		// The API's requests reuse their connection's request object.
		ConnContext: api.ConnContext,
		// The server's own errors (bad TLS, broken connections) go to the
		// structured log too.
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Started only now: on a replica of one core, a build running beside
	// the start-up doubled its time to the first answer (bench/README.md,
	// "Replica start at a million cards").
	// Each version's alerts are evaluated once it is served
	// (docs/operations.md, "Price alerts and webhooks").
	notifyAlerts, remapAlerts, stopAlerts := startAlerts(ctx, cfg.Alerts, st, log, mx, cfg.portal.mailer(log), public, cfg.alertHistoryFirst)
	defer stopAlerts() // before the store closes
	holder.OnPublish = func(v *serving.View) { bulkFiles.Publish(v.Snapshot); notifyAlerts(v.Snapshot) }
	// A running bulk files' build keeps the built view until it ends.
	holder.OnRemap = func(built, mapped *serving.View) { remapAlerts(built.Snapshot, mapped.Snapshot) }
	if v := holder.Current(); v != nil {
		bulkFiles.Publish(v.Snapshot)
		notifyAlerts(v.Snapshot)
	}
	go holder.Watch(ctx, cfg.Serve.RefreshInterval)
	go lim.dir.Watch(ctx, lim.refresh)
	go usage.Run(ctx, account.DefaultFlushInterval)
	sched, err = newRefreshScheduler(cfg.scheduled, st, reg, sf.DataDir, cfg.now, log, mx)
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
		adm := &admin.Server{Addr: cfg.Serve.AdminAddr, Public: cfg.Serve.AdminPublic, Ready: ready, Metrics: mx.Handler(), Log: log,
			Footprint: func() any {
				fp := serving.FootprintOf(holder.Current())
				fp.Compressed = api.CompressedBytes()
				return fp
			}}
		if err := adm.Start(ctx); err != nil {
			return err
		}
	}

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(web.OneWriteListener(ln)) }()
	stopProbe := startStatusProbe(ctx, cfg, st, ln.Addr(), log)
	defer stopProbe() // before the store closes
	log.Info("listening", "addr", ln.Addr().String(), "store", sf.Describe())
	fmt.Fprintf(env.Stdout, "cardcat listening on http://%s\n", ln.Addr())

	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	stopProbe() // first: a check of the listener closing would record a down minute
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
