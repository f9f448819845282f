// Command loadbench is cardcat's load harness (issue 7). In one run, on this
// machine, it:
//
//  1. builds cardcat and the ceiling server, generates a catalogue with
//     `cardcat synth --cards N`, ingests it into a fresh SQLite data
//     directory and creates a business key with limits above the load;
//  2. starts `cardcat serve` on loopback (in-process limiter), captures a few
//     real answers of each scenario and starts a ceiling server per scenario
//     on them (bench/cmd/ceiling);
//  3. loads ceilings and cardcat with wrk (bench/lua/paths.lua), interleaved
//     and repeated, scenario by scenario;
//  4. does the same for card detail with the Redis limiter, when serve has one;
//  5. compares cardcat's search index with SQLite FTS5 trigram and PostgreSQL
//     pg_trgm on the same names and query mix;
//
// and prints a Markdown report, also written to -out. With -sizes it does
// this for each size and adds a table of how the costs grow. See
// bench/README.md.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cardcat/cardcat/bench"
	"github.com/cardcat/cardcat/internal/serving"
)

type config struct {
	sizes       []int
	out         string
	work        string
	keep        bool
	rounds      int
	duration    time.Duration
	warmup      time.Duration
	connections int
	threads     int
	// paced are the shares of the card-detail ceiling's requests/s of the
	// paced runs (none: no paced runs), on pacedConnections (twice -c, so
	// that a free connection is there when a request's slot comes).
	paced            []float64
	pacedConnections int
	serverCPUs       string // taskset list for the servers, "" = unpinned
	loadCPUs         string // taskset list for wrk
	scenarios        []string
	redisURL         string
	postgresURL      string
	compare          bool
	queries          int
	answers          int
	profileDir       string
	seed             uint64
	serveEnv         []string // extra environment of cardcat serve, for what-if runs
	replicaStarts    int      // serve starts per mode in the replica phase
	// soak runs the mixed soak load this long after the other load runs (0:
	// no soak), in slices of soakSlice, with a catalogue refresh every
	// soakRefresh (0: none).
	soak, soakSlice, soakRefresh time.Duration
	// replica runs the replica phase (replica.go) before the load runs.
	replica bool
	// alerts is the number of alerts of the alerts phase (alerts.go),
	// after the replica phase; 0: none.
	alerts int

	// Set per size.
	sizeWork, sizeLabel, probePath string
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:])
	stop()
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "loadbench:", err)
		}
		os.Exit(1)
	}
}

func parseConfig(args []string) (*config, error) {
	fs := flag.NewFlagSet("loadbench", flag.ContinueOnError)
	cfg := &config{}
	cards := fs.Int("cards", 1_000_000, "catalogue size: cards given to `cardcat synth --cards`")
	sizes := fs.String("sizes", "", "scaling series: comma-separated sizes, e.g. 10000,100000,1000000 (overrides -cards)")
	fs.StringVar(&cfg.out, "out", "bench-report.md", "Markdown report file")
	fs.StringVar(&cfg.work, "work", "", "work directory (default: a new temporary one, removed at the end); an existing one with an ingested catalogue of the same size is reused")
	fs.BoolVar(&cfg.keep, "keep", false, "keep the work directory (data, logs, path lists, captured answers)")
	fs.IntVar(&cfg.rounds, "rounds", 3, "interleaved rounds of every scenario and target")
	fs.DurationVar(&cfg.duration, "duration", 10*time.Second, "length of one wrk run")
	fs.DurationVar(&cfg.warmup, "warmup", 3*time.Second, "length of the unrecorded warm-up run of each scenario and target (0: none)")
	fs.IntVar(&cfg.connections, "c", 32, "wrk connections")
	fs.IntVar(&cfg.threads, "t", 1, "wrk threads")
	paced := fs.String("paced", "0.5,0.75", "card detail is also run paced at these shares of its ceiling's requests/s (the median of the main rounds), ceiling and cardcat alike, for the p99 at that load (the target's is 0.75); \"\": not")
	pin := fs.String("pin", "1/0", "SERVER_CPUS/WRK_CPUS for taskset (e.g. 1/0: servers on CPU 1, wrk on CPU 0); \"none\": unpinned, the load generator and the server share the cores")
	scen := fs.String("scenarios", "card,cardhot,set,setgz,setbr,search,paid,401,404,304", "scenarios to run: card, cardhot (card detail on the ceiling's own cards), set, setgz and setbr (set pages with Accept-Encoding: gzip, br), search, paid, 401, 404, 304")
	fs.StringVar(&cfg.redisURL, "redis-url", "redis://127.0.0.1:6379/0", "Redis for the second run (CARDCAT_REDIS_URL of serve); empty: skip")
	fs.StringVar(&cfg.postgresURL, "postgres-url", "postgres://postgres@127.0.0.1:5432/test?sslmode=disable", "PostgreSQL for the pg_trgm comparison (a schema of its own, dropped after); empty: skip")
	fs.BoolVar(&cfg.compare, "compare", true, "run the search comparison (cardcat index, FTS5 trigram, pg_trgm)")
	fs.IntVar(&cfg.queries, "queries", 1200, "searches in the query mix")
	fs.IntVar(&cfg.answers, "answers", 200, "real answers captured per scenario for its ceiling")
	fs.StringVar(&cfg.profileDir, "profile", "", "directory for CPU profiles of cardcat, taken during the last round of each scenario")
	fs.Uint64Var(&cfg.seed, "seed", 1, "seed of the catalogue and of the request lists")
	fs.DurationVar(&cfg.soak, "soak", 0, "after the load runs, a soak of this long (e.g. 30m): mixed load (card, set, search, paid) on one cardcat with catalogue refreshes, resident memory, goroutines and p99 sampled over time; 0: none")
	fs.DurationVar(&cfg.soakRefresh, "soak-refresh", 3*time.Minute, "during the soak, ingest a new catalogue version this often (0: never)")
	fs.DurationVar(&cfg.soakSlice, "soak-slice", 30*time.Second, "length of one soak sample (one wrk run)")
	fs.IntVar(&cfg.replicaStarts, "replica-starts", 3, "fresh serve starts timed per mode in the replica phase (the report gives their median and spread)")
	fs.BoolVar(&cfg.replica, "replica", true, "measure replica start (to the first 200) and version swap, with the snapshot artifact and without, before the load runs (two more synth and ingest runs)")
	fs.IntVar(&cfg.alerts, "alerts", 1_000_000, "alerts written into the store and evaluated by a serve at its start and after the next day's ingest (the time of its \"alerts evaluated\" line), after the replica phase; 0: none")
	fs.Func("serve-env", "KEY=VALUE added to the environment of cardcat serve, for what-if runs (e.g. CARDCAT_LOG_LEVEL=warn); repeatable", func(v string) error {
		if k, _, ok := strings.Cut(v, "="); !ok || k == "" {
			return fmt.Errorf("want KEY=VALUE, got %q", v)
		}
		cfg.serveEnv = append(cfg.serveEnv, v)
		return nil
	})
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	cfg.sizes = []int{*cards}
	if *sizes != "" {
		cfg.sizes = nil
		for _, s := range strings.Split(*sizes, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(strings.ReplaceAll(s, "_", "")))
			if err != nil || n < 100 {
				return nil, fmt.Errorf("-sizes: %q is not a size of at least 100", s)
			}
			cfg.sizes = append(cfg.sizes, n)
		}
		slices.Sort(cfg.sizes)
	}
	if cfg.sizes[0] < 100 {
		return nil, errors.New("-cards: at least 100")
	}
	if *pin != "none" && *pin != "" {
		s, l, ok := strings.Cut(*pin, "/")
		if !ok || s == "" || l == "" {
			return nil, fmt.Errorf("-pin: want SERVER_CPUS/WRK_CPUS like 1/0, or none; got %q", *pin)
		}
		cfg.serverCPUs, cfg.loadCPUs = s, l
	}
	known := map[string]bool{"card": true, "cardhot": true, "set": true, "setgz": true, "setbr": true, "search": true, "paid": true, "401": true, "404": true, "304": true}
	for _, s := range strings.Split(*scen, ",") {
		s = strings.TrimSpace(s)
		if !known[s] {
			return nil, fmt.Errorf("-scenarios: unknown scenario %q", s)
		}
		cfg.scenarios = append(cfg.scenarios, s)
	}
	for _, v := range strings.Split(*paced, ",") {
		if v = strings.TrimSpace(v); v == "" {
			continue
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f <= 0 || f > 1 {
			return nil, fmt.Errorf("-paced: shares of the ceiling above 0 and at most 1, got %q", v)
		}
		cfg.paced = append(cfg.paced, f)
	}
	slices.Sort(cfg.paced)
	cfg.paced = slices.Compact(cfg.paced)
	cfg.pacedConnections = 2 * cfg.connections
	if cfg.rounds < 1 || cfg.duration < time.Second || cfg.connections < 1 || cfg.threads < 1 || cfg.queries < 6 || cfg.answers < 1 {
		return nil, errors.New("-rounds, -c, -t and -answers must be at least 1, -queries at least 6, -duration at least 1s")
	}
	if cfg.soak < 0 || cfg.soakRefresh < 0 || (cfg.soak > 0 && cfg.soakSlice < time.Second) {
		return nil, errors.New("-soak and -soak-refresh must not be negative, -soak-slice at least 1s")
	}
	return cfg, nil
}

func run(ctx context.Context, args []string) (err error) {
	cfg, err := parseConfig(args)
	if err != nil {
		return err
	}
	logf := func(format string, a ...any) {
		fmt.Fprintf(os.Stderr, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, a...)...)
	}
	started := time.Now()
	if err := ensureTools(ctx, cfg.serverCPUs != "", logf); err != nil {
		return err
	}
	root, err := moduleRoot(ctx)
	if err != nil {
		return err
	}
	if cfg.work == "" {
		if cfg.work, err = os.MkdirTemp("", "loadbench-"); err != nil {
			return err
		}
		if !cfg.keep {
			defer os.RemoveAll(cfg.work)
		}
	} else if cfg.work, err = filepath.Abs(cfg.work); err != nil {
		return err
	}
	if cfg.profileDir != "" {
		if cfg.profileDir, err = filepath.Abs(cfg.profileDir); err != nil {
			return err
		}
		if err := os.MkdirAll(cfg.profileDir, 0o755); err != nil {
			return err
		}
	}
	logf("work directory %s", cfg.work)
	cardcat, ceiling, err := buildBinaries(ctx, root, cfg.work)
	if err != nil {
		return err
	}
	script := filepath.Join(cfg.work, "paths.lua")
	lua, err := bench.Lua.ReadFile("lua/paths.lua")
	if err != nil {
		return err
	}
	if err := os.WriteFile(script, lua, 0o644); err != nil {
		return err
	}

	rep := &report{cfg: cfg, Machine: machine(ctx), Version: cardcatVersion(ctx, root), Started: started}
	rep.RedisSupported = serveSupportsRedis(ctx, cardcat)
	for _, n := range cfg.sizes {
		logf("=== %d cards ===", n)
		sr, err := runSize(ctx, cfg, cardcat, ceiling, script, n, rep.RedisSupported, logf)
		if err != nil {
			return err
		}
		rep.Sizes = append(rep.Sizes, sr)
		if !cfg.keep && len(cfg.sizes) > 1 {
			os.RemoveAll(sr.dir) // a 1M catalogue takes gigabytes
		}
	}
	rep.Elapsed = time.Since(started)
	md := rep.markdown()
	fmt.Print(md)
	if err := os.WriteFile(cfg.out, []byte(md), 0o644); err != nil {
		return err
	}
	logf("report written to %s (%s in all)", cfg.out, rep.Elapsed.Round(time.Second))
	return nil
}

// sizeReport is everything measured at one catalogue size.
type sizeReport struct {
	dir        string
	Cat        *catalogue
	Snapshot   snapshotTimes
	SnapshotOK bool
	StartTime  time.Duration // serve started until it answered
	Huge       hugePages     // its artifact's pages, when HugeOK
	HugeOK     bool
	MemIdle    memStatus // after start, before any load
	MemLoaded  memStatus // after every load run
	// Where the memory is (serve's /debug/footprint) after start and after
	// every load run; nil for a cardcat without it.
	FootIdle, FootLoaded *serving.Footprint
	Limiter              bool // cardcat sent X-RateLimit headers
	Scenarios            []*scenario
	Results              []runResult
	Primes               []primeResult // scenarios primed before their warm-up (scenario.Prime)
	Paced                []pacedLevel  // the paced card-detail runs, by share
	Redis                string        // why the Redis run did not happen; "" when it did
	RedisSnap            snapshotTimes
	SeqSearch            []time.Duration // one client, one search at a time, over HTTP
	Compare              *comparison
	CompareErr           string
	Soak                 *soakReport // nil: no -soak
	Wire                 []wireRatio // 200-card set pages per coding (issue 15)
	WireErr              string
	Replica              *replicaReport // nil: no -replica
	Alerts               *alertsReport  // nil: -alerts 0
}

func runSize(ctx context.Context, cfg *config, cardcat, ceilingBin, script string, n int, redisSupported bool, logf func(string, ...any)) (*sizeReport, error) {
	dir := filepath.Join(cfg.work, fmt.Sprintf("cards-%d", n))
	cfg.sizeWork, cfg.sizeLabel = dir, strconv.Itoa(n)
	sr := &sizeReport{dir: dir}
	var err error
	if sr.Cat, err = prepareCatalogue(ctx, cardcat, dir, n, cfg.seed, logf); err != nil {
		return nil, err
	}
	dbPath := filepath.Join(sr.Cat.DataDir, "cardcat.db")
	cards, sets, err := readStore(ctx, dbPath)
	if err != nil {
		return nil, err
	}
	w := newWorkload(cards, sets, cfg.queries, cfg.seed)
	cards = nil
	cfg.probePath = w.cardPaths[0]
	for _, sc := range allScenarios(w, cfg.answers, cfg.seed) {
		if !slices.Contains(cfg.scenarios, sc.Key) {
			continue
		}
		if len(sc.Paths) == 0 {
			logf("scenario %s: no requests at this size; skipped", sc.Name)
			continue
		}
		sc.file = filepath.Join(dir, "paths", sc.Key+".txt")
		if !sc.Revalidate { // written once cardcat gives the ETags
			if err := writeLines(sc.file, sc.Paths); err != nil {
				return nil, err
			}
		}
		sr.Scenarios = append(sr.Scenarios, sc)
	}
	logs := filepath.Join(dir, "logs")
	if err := os.MkdirAll(logs, 0o755); err != nil {
		return nil, err
	}
	if cfg.replica {
		sr.Replica = runReplica(ctx, cfg, cardcat, sr.Cat, dir, logf)
	}
	if cfg.alerts > 0 {
		sr.Alerts = runAlerts(ctx, cfg, cardcat, sr.Cat, dir, logf)
	}

	// cardcat with the in-process limiter.
	cc, err := startCardcat(ctx, cfg, cardcat, sr.Cat.DataDir, filepath.Join(logs, "cardcat.log"), "cardcat", nil, logf)
	if err != nil {
		return nil, err
	}
	defer cc.srv.stop()
	sr.StartTime, sr.Snapshot, sr.SnapshotOK = cc.start, cc.snap, cc.snapOK
	sr.Huge, sr.HugeOK = cc.huge, cc.hugeOK
	if sr.MemIdle, err = readMem(cc.srv.pid()); err != nil {
		return nil, err
	}
	if sr.FootIdle, err = readFootprint(ctx, cc.target.admin); err != nil {
		logf("no memory footprint after start: %v", err)
	}
	if _, sr.Limiter, err = rateRemaining(ctx, cc.srv.url+cfg.probePath, sr.Cat.Key); err != nil {
		return nil, err
	}
	cc.target.limiter = sr.Limiter
	if !sr.Limiter {
		logf("NOTE: cardcat sends no X-RateLimit headers: serve runs without a limiter, so requests are not counted")
	}

	if len(w.widePages) > 0 {
		logf("wire ratio: %d set pages of %d cards in %d codings", len(w.widePages), widePageCards, len(wireCodings))
		if sr.Wire, err = measureWire(ctx, cc.srv.url, sr.Cat.Key, w.widePages); err != nil {
			sr.WireErr = err.Error()
			logf("wire ratio failed: %v", err)
		}
	}

	// The 304 scenario's requests carry the ETags of cardcat's answers.
	for _, sc := range sr.Scenarios {
		if !sc.Revalidate {
			continue
		}
		if sc.Paths, err = revalidationLines(ctx, cc.srv.url, sr.Cat.Key, sc.Paths); err != nil {
			return nil, err
		}
		if err := writeLines(sc.file, sc.Paths); err != nil {
			return nil, err
		}
	}

	// A ceiling per scenario, on real answers of that scenario.
	for _, sc := range sr.Scenarios {
		h := ""
		if sc.Keyed {
			h = "X-API-Key"
		}
		as, err := captureAnswers(ctx, cc.srv.url, sc.Paths, h, sr.Cat.Key, cfg.answers, cfg.seed)
		if err != nil {
			return nil, err
		}
		sc.ceilingBody, sc.ceilingHdr = answerSizes(as)
		file := filepath.Join(dir, "answers-"+sc.Key+".json")
		if err := writeAnswers(file, as); err != nil {
			return nil, err
		}
		addr, err := freeAddr()
		if err != nil {
			return nil, err
		}
		sc.ceiling, err = startServer(ctx, "ceiling "+sc.Key, cfg.serverCPUs, []string{ceilingBin, "-addr", addr, "-answers", file},
			nil, addr, filepath.Join(logs, "ceiling-"+sc.Key+".log"), 30*time.Second)
		if err != nil {
			return nil, err
		}
		defer sc.ceiling.stop()
	}

	r := &runner{cfg: cfg, script: script, key: sr.Cat.Key, logf: logf}
	logf("load: %d scenarios x (ceiling, cardcat) x %d rounds of %s, wrk -t%d -c%d, servers on CPUs %q, wrk on %q",
		len(sr.Scenarios), cfg.rounds, cfg.duration, cfg.threads, cfg.connections, cfg.serverCPUs, cfg.loadCPUs)
	ceilingOf := func(sc *scenario) *target { return &target{Name: ceilingName, srv: sc.ceiling} }
	if err := r.rounds(ctx, sr.Scenarios, func(sc *scenario) []*target { return []*target{ceilingOf(sc), cc.target} }); err != nil {
		return nil, err
	}
	if card := sr.scenario("card"); card != nil && len(cfg.paced) > 0 {
		// The p99 of the card-detail target is "at that load": at the share
		// of the ceiling's requests/s the target asks for, not at saturation,
		// where it is the wait behind the other connections. Ceiling and
		// cardcat are both paced at each rate, so the machine's own p99 at
		// that rate is beside cardcat's.
		var ceil []float64
		for _, res := range r.results {
			if res.Phase == "" && res.Scenario == "card" && res.Target == ceilingName {
				ceil = append(ceil, res.Wrk.RPS())
			}
		}
		if c := statOf(ceil).Median; c > 0 {
			for _, share := range cfg.paced {
				lv := pacedLevel{Share: share, Rate: share * c}
				logf("load: card detail paced at %.0f req/s (%.0f%% of the ceiling's %.0f), wrk -c%d, %d rounds",
					lv.Rate, share*100, c, cfg.pacedConnections, cfg.rounds)
				r.phase, r.rate = lv.phase(), lv.Rate
				if err := r.rounds(ctx, []*scenario{card}, func(sc *scenario) []*target { return []*target{ceilingOf(sc), cc.target} }); err != nil {
					return nil, err
				}
				sr.Paced = append(sr.Paced, lv)
			}
			r.phase, r.rate = "", 0
		}
	}
	if slices.Contains(cfg.scenarios, "search") {
		logf("search: %d queries one at a time over HTTP", len(w.queries))
		for _, p := range w.queryPaths {
			t0 := time.Now()
			if _, err := get(ctx, cc.srv.url+p, "X-API-Key", sr.Cat.Key); err != nil {
				return nil, err
			}
			sr.SeqSearch = append(sr.SeqSearch, time.Since(t0))
		}
	}
	if sr.MemLoaded, err = readMem(cc.srv.pid()); err != nil {
		return nil, err
	}
	if sr.FootLoaded, err = readFootprint(ctx, cc.target.admin); err != nil {
		logf("no memory footprint after the load runs: %v", err)
	}
	if cfg.soak > 0 {
		if sr.Soak, err = runSoak(ctx, cfg, cardcat, script, cc, sr.Cat, w, dir, logf); err != nil {
			return nil, err
		}
	}
	cc.srv.stop()

	// cardcat with the Redis limiter: card detail against its ceiling.
	var card *scenario
	for _, sc := range sr.Scenarios {
		if sc.Key == "card" {
			card = sc
		}
	}
	switch {
	case card == nil:
		sr.Redis = "the card scenario was not selected"
	case cfg.redisURL == "":
		sr.Redis = "no -redis-url"
	case !redisSupported:
		sr.Redis = "`cardcat serve` has no Redis limiter yet (its --help names no CARDCAT_REDIS_URL)"
	default:
		if _, err := redisCommands(ctx, cfg.redisURL); err != nil {
			sr.Redis = fmt.Sprintf("Redis at %s is not reachable: %v", cfg.redisURL, err)
			break
		}
		// Counters under a prefix of the harness's own, deleted afterwards:
		// the Redis may be shared (other test runs use database 0 too).
		prefix := fmt.Sprintf("loadbench:%d:rl:", os.Getpid())
		defer redisDeletePrefix(context.Background(), cfg.redisURL, prefix)
		rc, err := startCardcat(ctx, cfg, cardcat, sr.Cat.DataDir, filepath.Join(logs, "cardcat-redis.log"), "cardcat, Redis limiter",
			[]string{"CARDCAT_REDIS_URL=" + cfg.redisURL, "CARDCAT_REDIS_PREFIX=" + prefix}, logf)
		if err != nil {
			return nil, err
		}
		defer rc.srv.stop()
		sr.RedisSnap = rc.snap
		rc.target.redis = true
		_, rc.target.limiter, _ = rateRemaining(ctx, rc.srv.url+cfg.probePath, sr.Cat.Key)
		logf("load: card detail with the Redis limiter, %d rounds", cfg.rounds)
		r.phase = "redis"
		if err := r.rounds(ctx, []*scenario{card}, func(sc *scenario) []*target { return []*target{ceilingOf(sc), rc.target} }); err != nil {
			return nil, err
		}
		rc.srv.stop()
	}
	if sr.Redis != "" {
		logf("Redis run skipped: %s", sr.Redis)
	}
	for _, sc := range sr.Scenarios {
		sc.ceiling.stop()
	}
	sr.Results, sr.Primes = r.results, r.primes

	if cfg.compare && slices.Contains(cfg.scenarios, "search") {
		if sr.Compare, err = compareSearch(ctx, cfg, dbPath, w.queries, logf); err != nil {
			sr.CompareErr = err.Error()
			logf("compare failed: %v", err)
		}
	}
	return sr, nil
}

// pacedLevel is one rate of the paced card-detail runs: a share of the
// ceiling's requests/s.
type pacedLevel struct {
	Share, Rate float64
}

// phase names the level's runs in the results.
func (lv pacedLevel) phase() string { return fmt.Sprintf("paced %g", lv.Share) }

// pacedAt returns the paced level of a share, if it ran.
func (sr *sizeReport) pacedAt(share float64) (pacedLevel, bool) {
	for _, lv := range sr.Paced {
		if lv.Share == share {
			return lv, true
		}
	}
	return pacedLevel{}, false
}

// runningCardcat is a started `cardcat serve`.
type runningCardcat struct {
	srv    *server
	target *target
	start  time.Duration
	snap   snapshotTimes
	snapOK bool
	// version is the catalogue version it loaded at start (0: unknown).
	version int
	huge    hugePages // of the artifact it read, when hugeOK
	hugeOK  bool
}

// waitLog reads the log at path every so often until found says yes of
// it, for at most within: whether it did.
func waitLog(ctx context.Context, path string, within, every time.Duration, found func(log string) bool) bool {
	for deadline := time.Now().Add(within); ; time.Sleep(every) {
		b, _ := os.ReadFile(path)
		if found(string(b)) {
			return true
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return false
		}
	}
}

func startCardcat(ctx context.Context, cfg *config, bin, dataDir, logPath, name string, env []string, logf func(string, ...any)) (*runningCardcat, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	admin, err := freeAddr()
	if err != nil {
		return nil, err
	}
	logf("starting %s on %s (pprof on %s)", name, addr, admin)
	t0 := time.Now()
	// The guard bucket of keyless requests (1,000 per hour and client IP by
	// default) would turn the 401 scenario into 429s after a second: it is
	// raised like the key's limits, and still counts.
	env = append(append([]string{"CARDCAT_GUARD_PER_HOUR=" + strconv.Itoa(benchHourLimit)}, env...), cfg.serveEnv...)
	srv, err := startServer(ctx, name, cfg.serverCPUs,
		[]string{bin, "serve", "--addr", addr, "--data-dir", dataDir, "--admin-addr", admin, "--public-url", "http://" + addr},
		env, addr, logPath, 20*time.Minute)
	if err != nil {
		return nil, err
	}
	rc := &runningCardcat{srv: srv, start: time.Since(t0)}
	// cardcat may write its log in batches (every 100 ms): the snapshot line
	// can reach the file a moment after the server answers.
	waitLog(ctx, logPath, 5*time.Second, 50*time.Millisecond, func(log string) bool {
		rc.snap, rc.snapOK = parseSnapshotLog(log)
		return rc.snapOK
	})
	rc.version, _ = lastSnapshotVersion(logPath, 0)
	rc.target = &target{Name: name, srv: srv, admin: admin}
	logf("%s answers after %s (snapshot load %s, build %s)", name, rc.start.Round(time.Millisecond), rc.snap.Load, rc.snap.Build)
	// A version's bulk files are built in the background once serve
	// listens (about 40 s of its one core at 1M when none are on disk, as
	// after the replica phase's ingests): the load runs wait for them, or
	// the first scenarios measure the build as much as the requests.
	t1 := time.Now()
	if !waitLog(ctx, logPath, 20*time.Minute, 200*time.Millisecond, bulkReady.MatchString) {
		srv.stop()
		return nil, fmt.Errorf("%s: no \"bulk files ready\" in its log after %s", name, time.Since(t1).Round(time.Second))
	}
	logf("%s: bulk files ready %s later", name, time.Since(t1).Round(time.Millisecond))
	// An artifact's pages cached small are re-read in 2 MB pages beside the
	// requests (a few seconds at 1M): the runs wait for that too, and the
	// report says how much of it was mapped so (a build before it logs
	// nothing: the wait then ends after 2 minutes).
	if rc.snap.Artifact {
		waitLog(ctx, logPath, 2*time.Minute, 200*time.Millisecond, func(log string) bool {
			rc.huge, rc.hugeOK = parseHugeLog(log)
			return rc.hugeOK
		})
		if rc.hugeOK {
			logf("%s: artifact mapped with 2 MB pages: %d MB of %d when read, %d after (re-read %v, %s)",
				name, rc.huge.Before, rc.huge.Whole, rc.huge.After, rc.huge.Reread, rc.huge.Took)
		}
	}
	return rc, nil
}
