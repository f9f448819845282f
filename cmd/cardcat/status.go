package main

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/netip"
	"time"

	"github.com/cardcat/cardcat/internal/schedule"
	"github.com/cardcat/cardcat/internal/serving"
	"github.com/cardcat/cardcat/internal/status"
	"github.com/cardcat/cardcat/internal/store"
)

// statusPage is the status page of serve (internal/status), reading the
// catalogue served from holder, the last ingest from the store and, when
// this replica runs the scheduled refresh, from sched (set once made).
func statusPage(st store.Store, holder *serving.Holder, sched **schedule.Scheduler, data func(ctx context.Context, version int64) (string, error),
	publicURL string, now func() time.Time, log *slog.Logger) (*status.Page, error) {
	ss, ok := st.(status.Store)
	if !ok {
		return nil, errors.New("the store keeps no status checks")
	}
	return &status.Page{Store: ss, PublicURL: publicURL, Version: Version(), Now: now, Log: log,
		Catalogue: func() []status.Game {
			v := holder.Current()
			if v == nil {
				return nil
			}
			var games []status.Game
			for _, g := range v.Games() {
				games = append(games, status.Game{Code: g.Game().Code, Name: g.Game().Name, Version: v.Version,
					UpdatedAt: v.CreatedAt, Sets: len(g.Sets()), Cards: g.Len()})
			}
			return games
		},
		LastIngest: func(ctx context.Context) (status.Ingest, bool, error) {
			info, err := st.LatestVersion(ctx)
			if errors.Is(err, store.ErrNotFound) {
				return status.Ingest{}, false, nil
			} else if err != nil {
				return status.Ingest{}, false, err
			}
			in := status.Ingest{Version: info.Version, At: info.CreatedAt, Data: serving.DataUnknown}
			if d, err := data(ctx, info.Version); err == nil {
				in.Data = d
			}
			if s := *sched; s != nil {
				if rs := s.Status(); rs.LastOutcome == schedule.Failed && rs.LastEnd.After(info.CreatedAt) {
					in.Failed, in.FailedAt, in.Error = true, rs.LastEnd, rs.LastError
				}
			}
			return in, true, nil
		},
	}, nil
}

// startStatusProbe runs serve's probe (statusProber) until ctx ends or the
// returned stop is called; stop waits for it to end.
func startStatusProbe(ctx context.Context, cfg *serveConfig, st store.Store, addr net.Addr, log *slog.Logger) (stop func()) {
	p := statusProber(cfg, st, addr, log)
	if p == nil {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { p.Run(ctx); close(done) }()
	return func() { cancel(); <-done }
}

// statusProber is serve's probe of its own API for the status page, nil
// when --status-probe is false: GET --status-probe-url, by default /health
// on the address the server listens on.
func statusProber(cfg *serveConfig, st store.Store, addr net.Addr, log *slog.Logger) *status.Prober {
	if !cfg.Serve.StatusProbe {
		return nil
	}
	u := cfg.Serve.StatusProbeURL
	if u == "" {
		u = "http://" + loopbackOf(addr) + "/health"
	}
	return &status.Prober{Store: st.(status.Store), URL: u, UserAgent: "cardcat-status-probe/" + Version(), Now: cfg.now,
		Log: log.With("job", "status probe")}
}

// loopbackOf is a listen address as this host reaches it: an unspecified
// IP (:8080, 0.0.0.0, [::]) becomes the loopback of its family.
func loopbackOf(addr net.Addr) string {
	ap, err := netip.ParseAddrPort(addr.String())
	if err != nil {
		return addr.String()
	}
	ip := ap.Addr()
	switch {
	case ip.IsUnspecified() && ip.Is4():
		ip = netip.MustParseAddr("127.0.0.1")
	case ip.IsUnspecified():
		ip = netip.IPv6Loopback()
	}
	return netip.AddrPortFrom(ip, ap.Port()).String()
}
