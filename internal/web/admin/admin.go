// Package admin is the server's second listener, for operators and
// orchestrators, never for API callers: pprof, the probes (/livez, /readyz)
// and the metrics, on an address of its own that is loopback unless the
// operator says otherwise, since none of it has authentication. Readiness,
// the rule of /readyz, is also the rule of the API's /health status.
package admin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"net/netip"
	"time"
)

// Server is the admin server: what it serves and where.
type Server struct {
	Addr string
	// Public: Addr may be reachable from other hosts, as the operator
	// allowed (CheckLoopback refused it otherwise); Start warns of it.
	Public  bool
	Ready   Readiness
	Metrics http.Handler // GET /metrics
	// Footprint, when set, is GET /debug/footprint's JSON: where the
	// served version's memory is (serving.FootprintOf).
	Footprint func() any
	Log       *slog.Logger
}

// Handler serves pprof, the probes, /livez (the process answers) and
// /readyz (this replica can answer the API), the metrics, and the memory
// footprint.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	mux.HandleFunc("GET /livez", func(w http.ResponseWriter, r *http.Request) { probeAnswer(w, nil) })
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) { probeAnswer(w, s.Ready.Check()) })
	mux.Handle("GET /metrics", s.Metrics)
	if s.Footprint != nil {
		mux.HandleFunc("GET /debug/footprint", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Cache-Control", "no-store")
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			enc.Encode(s.Footprint())
		})
	}
	return mux
}

// Start listens on Addr and serves in the background until ctx ends.
func (s *Server) Start(ctx context.Context) error {
	ln, err := net.Listen("tcp", s.Addr)
	if err != nil {
		return fmt.Errorf("admin address: %w", err)
	}
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	go func() { <-ctx.Done(); srv.Close() }()
	s.Log.Info("admin (pprof, probes) listening", "addr", ln.Addr().String())
	if s.Public {
		s.Log.Warn("the admin server may be reachable from other hosts (--admin-allow-public): pprof and the probes have no authentication; keep its port behind a firewall",
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

// CheckLoopback says why addr (host:port) is not a loopback address: no
// host (every interface), an address of another interface, or a name that
// resolves to one. localhost passes; a name is resolved with lookup
// (net.DefaultResolver.LookupNetIP).
func CheckLoopback(ctx context.Context, addr string, lookup func(ctx context.Context, network, host string) ([]netip.Addr, error)) error {
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
