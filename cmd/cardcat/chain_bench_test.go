package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/account/accounttest"
	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/config"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/httpapi"
	"github.com/cardcat/cardcat/internal/ratelimit"
	"github.com/cardcat/cardcat/internal/ratelimit/memory"
	"github.com/cardcat/cardcat/internal/ratelimit/redis"
	"github.com/cardcat/cardcat/internal/serving"
	"github.com/cardcat/cardcat/internal/web"
)

// The cost of keys and rate limits on a card-detail request, measured in one
// run against the same request without them:
//
//	Ceiling    a bare handler writing the same card bytes (no chain at all)
//	Off        the whole API handler, rate limiting off, accounttest.KeyFormat
//	           Authenticator (a format check: the chain before this issue)
//	InProcess  the whole API handler as serve wires it by default: the
//	           account-backed Authenticator and the in-process limiter
//	Redis      the same with the Redis limiter ($CARDCAT_TEST_REDIS_URL)
//
// InProcess and Redis report chain-% = (their ns/op − Off's) / Off's ns/op,
// the share of a card-detail request that keys and limits add. On a shared
// machine separate runs drift apart; Interleaved runs Off, InProcess and
// Headers (Off plus four constant X-RateLimit-* headers: the cost of
// sending them at all) in turns within one run, which is the figure to
// quote. BenchmarkChainHTTP does the same over loopback HTTP, the way a
// client sees a request.
//
//	go test ./cmd/cardcat -run XXX -bench Chain

// chainFixture is the bundled sample served as serve serves it, with one
// account (Business, limits no benchmark exhausts) and its key.
type chainFixture struct {
	view    *serving.View
	dir     *account.Directory
	key     string
	targets []string          // card-detail paths
	bodies  map[string]string // path → card body, for the ceiling
}

func newChainFixture(b *testing.B) *chainFixture {
	b.Helper()
	ctx := context.Background()
	log := slog.New(slog.DiscardHandler)
	st, err := openStore(ctx, config.StoreConfig{DataDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	reg := game.Default()
	if err := ensureSample(ctx, st, reg, log); err != nil {
		b.Fatal(err)
	}
	holder := serving.NewHolder(st, reg, log)
	if err := holder.Refresh(ctx); err != nil {
		b.Fatal(err)
	}
	as := st.(account.Store)
	acc := &account.Account{Plan: account.Business, HourLimit: 1_000_000_000, DayLimit: 10_000_000_000}
	if err := as.CreateAccount(ctx, acc); err != nil {
		b.Fatal(err)
	}
	key, err := account.NewKey(false)
	if err != nil {
		b.Fatal(err)
	}
	if err := as.CreateKey(ctx, &account.Key{AccountID: acc.ID, Hash: account.HashKey(key), Prefix: account.DisplayPrefix(key), CreatedAt: time.Now()}); err != nil {
		b.Fatal(err)
	}
	dir, err := account.NewDirectory(ctx, as, log)
	if err != nil {
		b.Fatal(err)
	}
	f := &chainFixture{view: holder.Current(), dir: dir, key: key, bodies: map[string]string{}}
	for _, code := range []string{"dbs", "mtg"} {
		g := f.view.Game(code)
		for i := 0; i < g.Len() && len(f.targets) < 1024; i += 7 {
			body := g.CardJSON(catalog.CardRef(i))
			id := body[len(`{"id":"`):]
			id = id[:strings.IndexByte(id, '"')]
			path := "/" + code + "/cards/" + id
			f.targets = append(f.targets, path)
			f.bodies[path] = body
		}
	}
	return f
}

// server is the API handler on the fixture; nil auth and limiter mean the
// chain with keys and limits off.
func (f *chainFixture) server(b *testing.B, auth httpapi.Authenticator, lim ratelimit.Limiter) http.Handler {
	return f.serverLogging(b, slog.New(slog.DiscardHandler), nil, auth, lim)
}

// serverLogging is server with a logger and an access log.
func (f *chainFixture) serverLogging(b *testing.B, log *slog.Logger, access func(web.AccessEntry), auth httpapi.Authenticator, lim ratelimit.Limiter) http.Handler {
	return f.api(b, log, access, auth, lim).Handler()
}

// api is the API server on the fixture.
func (f *chainFixture) api(b *testing.B, log *slog.Logger, access func(web.AccessEntry), auth httpapi.Authenticator, lim ratelimit.Limiter) *httpapi.Server {
	b.Helper()
	return f.apiConfig(b, httpapi.Config{}, log, access, auth, lim)
}

// apiConfig is api with a configuration.
func (f *chainFixture) apiConfig(b *testing.B, cfg httpapi.Config, log *slog.Logger, access func(web.AccessEntry), auth httpapi.Authenticator, lim ratelimit.Limiter) *httpapi.Server {
	b.Helper()
	if auth == nil {
		auth = accounttest.KeyFormat{} // keys by form alone: no accounts
	}
	api, err := httpapi.New(cfg, httpapi.Deps{
		View:      func() *serving.View { return f.view },
		Games:     game.Default(),
		Logger:    log,
		AccessLog: access,
		PublicURL: "http://localhost:8080",
		Auth:      auth,
		Limiter:   lim,
	})
	if err != nil {
		b.Fatal(err)
	}
	return api
}

func (f *chainFixture) ceiling() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		io.WriteString(w, f.bodies[r.URL.Path])
	})
}

// benchSink is a ResponseWriter that keeps nothing, so that the benchmark
// measures the handler rather than a recorder.
type benchSink struct {
	h    http.Header
	code int
}

func (s *benchSink) Header() http.Header                 { return s.h }
func (s *benchSink) Write(b []byte) (int, error)         { return len(b), nil }
func (s *benchSink) WriteString(str string) (int, error) { return len(str), nil }
func (s *benchSink) WriteHeader(code int)                { s.code = code }

func BenchmarkChain(b *testing.B) {
	f := newChainFixture(b)
	nsPerOp := map[string]float64{}
	run := func(name string, h http.Handler) {
		b.Run(name, func(b *testing.B) {
			reqs := make([]*http.Request, len(f.targets))
			for i, t := range f.targets {
				reqs[i] = httptest.NewRequest(http.MethodGet, t, nil)
				reqs[i].Header.Set("X-API-Key", f.key)
			}
			w := &benchSink{h: http.Header{}}
			h.ServeHTTP(w, reqs[0])
			if w.code != 0 && w.code != http.StatusOK {
				b.Fatalf("%s: status %d", f.targets[0], w.code)
			}
			b.ReportAllocs()
			n := 0
			start := time.Now()
			for b.Loop() {
				clear(w.h)
				h.ServeHTTP(w, reqs[n%len(reqs)])
				n++
			}
			ns := float64(time.Since(start).Nanoseconds()) / float64(n)
			nsPerOp[name] = ns
			if off, ok := nsPerOp["Off"]; ok && name != "Off" && name != "Ceiling" {
				b.ReportMetric(100*(ns-off)/off, "chain-%")
			}
		})
	}
	run("Ceiling", f.ceiling())
	run("Off", f.server(b, nil, nil))

	mem := memory.New(memory.Options{})
	b.Cleanup(func() { mem.Close() })
	run("InProcess", f.server(b, account.NewAuthenticator(f.dir, time.Now), mem))

	if u := os.Getenv(redisURLVar); u != "" {
		rl, err := redis.Open(context.Background(), u, memory.New(memory.Options{}), redis.Options{Prefix: "cardcat-bench:" + strconv.FormatInt(time.Now().UnixNano(), 36) + ":"})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { rl.Close() })
		run("Redis", f.server(b, account.NewAuthenticator(f.dir, time.Now), rl))
	}

	// Interleaved runs Off, Headers and InProcess in turns, batch by batch,
	// so that all see the same machine (a shared machine's load shifts
	// between separate runs). Headers is Off plus four constant X-RateLimit-*
	// headers: what sending the headers costs at all. It reports ns per
	// request of each, and chain-% and headers-% over Off.
	b.Run("Interleaved", func(b *testing.B) {
		hs := []http.Handler{f.server(b, nil, nil), withConstantLimitHeaders(f.server(b, nil, nil)), f.server(b, account.NewAuthenticator(f.dir, time.Now), mem)}
		reqs := make([]*http.Request, len(f.targets))
		for i, t := range f.targets {
			reqs[i] = httptest.NewRequest(http.MethodGet, t, nil)
			reqs[i].Header.Set("X-API-Key", f.key)
		}
		w := &benchSink{h: http.Header{}}
		interleave(b, 256, len(hs), func(k, i int) {
			clear(w.h)
			hs[k].ServeHTTP(w, reqs[i%len(reqs)])
		})
	})

	// Connection runs the InProcess chain on requests of their own (as
	// httptest makes them: each gets a request object and a copy of its
	// *http.Request) and on requests of a connection whose ConnContext gave
	// it the object they reuse, as serve's requests are, in turns; it reports
	// ns and bytes allocated per request of each.
	b.Run("Connection", func(b *testing.B) {
		api := f.api(b, slog.New(slog.DiscardHandler), nil, account.NewAuthenticator(f.dir, time.Now), mem)
		h := api.Handler()
		conn := connContext(b, api)
		own := make([]*http.Request, len(f.targets))
		onConn := make([]*http.Request, len(f.targets))
		for i, t := range f.targets {
			own[i] = httptest.NewRequest(http.MethodGet, t, nil)
			own[i].Header.Set("X-API-Key", f.key)
			onConn[i] = onConnection(b, conn, own[i])
		}
		w := &benchSink{h: http.Header{}}
		reqs := [2][]*http.Request{own, onConn}
		ns, bytes := interleaved(b, 256, 2, true, func(k, i int) {
			clear(w.h)
			h.ServeHTTP(w, reqs[k][i%len(f.targets)])
		})
		if ns == nil {
			return
		}
		for k, name := range []string{"own", "conn"} {
			b.ReportMetric(ns[k], name+"-ns")
			b.ReportMetric(bytes[k], name+"-B")
		}
	})

	// Answers runs, on one connection as serve's requests are, a card
	// detail (200), the same path without a key (401) and an unknown card
	// (404), in turns: the three kinds of small answer of issue 26's load
	// scenarios; it reports ns and bytes allocated per request of each.
	b.Run("Answers", func(b *testing.B) {
		// A guard bucket that never runs out: the 401s stay 401s.
		api := f.apiConfig(b, httpapi.Config{GuardPerHour: 1 << 40}, slog.New(slog.DiscardHandler), nil, account.NewAuthenticator(f.dir, time.Now), mem)
		h := api.Handler()
		conn := connContext(b, api)
		unknown := func(t string) string { // the same game's id form, unknown
			dir := t[:strings.LastIndexByte(t, '/')+1]
			return dir + strings.Split(dir, "/")[1] + "_0123456789abcdef"
		}
		kinds := []struct {
			name   string
			status int
			path   func(t string) string
			key    string
		}{
			{"200", http.StatusOK, func(t string) string { return t }, f.key},
			{"401", http.StatusUnauthorized, func(t string) string { return t }, ""},
			{"404", http.StatusNotFound, unknown, f.key},
		}
		reqs := make([][]*http.Request, len(kinds))
		w := &benchSink{h: http.Header{}}
		for k, kind := range kinds {
			for _, t := range f.targets {
				r := httptest.NewRequest(http.MethodGet, kind.path(t), nil)
				if kind.key != "" {
					r.Header.Set("X-API-Key", kind.key)
				}
				reqs[k] = append(reqs[k], onConnection(b, conn, r))
			}
			clear(w.h)
			w.code = 0
			h.ServeHTTP(w, reqs[k][0])
			if w.code != kind.status {
				b.Fatalf("%s %s: status %d, want %d", kind.name, reqs[k][0].URL.Path, w.code, kind.status)
			}
		}
		ns, bytes := interleaved(b, 256, len(kinds), true, func(k, i int) {
			clear(w.h)
			h.ServeHTTP(w, reqs[k][i%len(f.targets)])
			if w.code != kinds[k].status {
				b.Fatalf("%s %s: status %d, want %d", kinds[k].name, reqs[k][i%len(f.targets)].URL.Path, w.code, kinds[k].status)
			}
		})
		if ns == nil {
			return
		}
		for k, kind := range kinds {
			b.ReportMetric(ns[k], kind.name+"-ns")
			b.ReportMetric(bytes[k], kind.name+"-B")
		}
	})
}

// connContext is the context of a serve connection of api, as net/http
// makes it: the connection's (ConnContext) under its local address and a
// cancel.
func connContext(b *testing.B, api *httpapi.Server) context.Context {
	conn := api.ConnContext(context.Background(), nil)
	conn, cancel := context.WithCancel(context.WithValue(conn, http.LocalAddrContextKey, nil))
	b.Cleanup(cancel)
	return conn
}

// onConnection is r as a request of the connection whose context is conn:
// under a cancel of its own, as net/http gives each request.
func onConnection(b *testing.B, conn context.Context, r *http.Request) *http.Request {
	ctx, cancel := context.WithCancel(conn)
	b.Cleanup(cancel)
	return r.WithContext(ctx)
}

// withConstantLimitHeaders adds four X-RateLimit-* headers with constant
// values: the cost of sending them, without keys or counting.
func withConstantLimitHeaders(next http.Handler) http.Handler {
	vals := [4][]string{{"100"}, {"57"}, {"1000"}, {"957"}}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h["X-Ratelimit-Limit-Hour"] = vals[0]
		h["X-Ratelimit-Remaining-Hour"] = vals[1]
		h["X-Ratelimit-Limit-Day"] = vals[2]
		h["X-Ratelimit-Remaining-Day"] = vals[3]
		next.ServeHTTP(w, r)
	})
}

// interleave runs do(k, i) for the handlers k = 0 (Off), 1 (Headers) and
// 2 (InProcess) in turns of batch requests, and reports each one's ns per
// request and headers-% and chain-% over Off.
func interleave(b *testing.B, batch, handlers int, do func(k, i int)) {
	ns, _ := interleaved(b, batch, handlers, false, do)
	if ns == nil {
		return
	}
	b.ReportMetric(ns[0], "off-ns")
	b.ReportMetric(ns[1], "headers-ns")
	b.ReportMetric(ns[2], "on-ns")
	b.ReportMetric(100*(ns[1]-ns[0])/ns[0], "headers-%")
	b.ReportMetric(100*(ns[2]-ns[0])/ns[0], "chain-%")
}

// interleaved runs do(k, i) for the handlers k in turns of batch requests,
// and returns each one's ns and, with allocs, bytes allocated per request
// (read around each batch, outside its time); nil when a handler ran none.
func interleaved(b *testing.B, batch, handlers int, allocs bool, do func(k, i int)) (ns, bytes []float64) {
	spent := make([]time.Duration, handlers)
	alloc := make([]uint64, handlers)
	count := make([]int, handlers)
	var ms runtime.MemStats
	n := 0
	for b.Loop() {
		if n%batch == 0 {
			k := (n / batch) % handlers
			if allocs {
				runtime.ReadMemStats(&ms)
				alloc[k] -= ms.TotalAlloc
			}
			start := time.Now()
			for j := range batch {
				do(k, n+j)
			}
			spent[k] += time.Since(start)
			if allocs {
				runtime.ReadMemStats(&ms)
				alloc[k] += ms.TotalAlloc
			}
			count[k] += batch
		}
		n++
	}
	for k, c := range count {
		if c == 0 {
			return nil, nil
		}
		ns = append(ns, float64(spent[k].Nanoseconds())/float64(c))
		bytes = append(bytes, float64(alloc[k])/float64(c))
	}
	return ns, bytes
}

// BenchmarkChainHTTP is BenchmarkChain over loopback HTTP with keep-alive:
// a card-detail request as a client sees it, and what keys and limits add.
func BenchmarkChainHTTP(b *testing.B) {
	f := newChainFixture(b)
	nsPerOp := map[string]float64{}
	run := func(name string, h http.Handler) {
		b.Run(name, func(b *testing.B) {
			srv := httptest.NewServer(h)
			defer srv.Close()
			client := srv.Client()
			reqs := make([]*http.Request, len(f.targets))
			for i, t := range f.targets {
				reqs[i], _ = http.NewRequest(http.MethodGet, srv.URL+t, nil)
				reqs[i].Header.Set("X-API-Key", f.key)
			}
			do := func(r *http.Request) {
				resp, err := client.Do(r)
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					b.Fatalf("%s: %d", r.URL, resp.StatusCode)
				}
			}
			do(reqs[0])
			b.ReportAllocs()
			n := 0
			start := time.Now()
			for b.Loop() {
				do(reqs[n%len(reqs)])
				n++
			}
			ns := float64(time.Since(start).Nanoseconds()) / float64(n)
			nsPerOp[name] = ns
			if off, ok := nsPerOp["Off"]; ok && name != "Off" {
				b.ReportMetric(100*(ns-off)/off, "chain-%")
			}
		})
	}
	run("Off", f.server(b, nil, nil))
	mem := memory.New(memory.Options{})
	b.Cleanup(func() { mem.Close() })
	run("InProcess", f.server(b, account.NewAuthenticator(f.dir, time.Now), mem))

	// Interleaved: Off, Headers and InProcess in turns (see BenchmarkChain).
	b.Run("Interleaved", func(b *testing.B) {
		hs := []http.Handler{f.server(b, nil, nil), withConstantLimitHeaders(f.server(b, nil, nil)), f.server(b, account.NewAuthenticator(f.dir, time.Now), mem)}
		reqs := make([][]*http.Request, len(hs))
		var client *http.Client
		for k, h := range hs {
			srv := httptest.NewServer(h)
			defer srv.Close()
			client = srv.Client()
			for _, t := range f.targets {
				r, _ := http.NewRequest(http.MethodGet, srv.URL+t, nil)
				r.Header.Set("X-API-Key", f.key)
				reqs[k] = append(reqs[k], r)
			}
		}
		interleave(b, 64, len(hs), func(k, i int) {
			resp, err := client.Do(reqs[k][i%len(f.targets)])
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		})
	})

	if u := os.Getenv(redisURLVar); u != "" {
		rl, err := redis.Open(context.Background(), u, memory.New(memory.Options{}), redis.Options{Prefix: "cardcat-bench:" + strconv.FormatInt(time.Now().UnixNano(), 36) + ":"})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { rl.Close() })
		run("Redis", f.server(b, account.NewAuthenticator(f.dir, time.Now), rl))
	}
}
