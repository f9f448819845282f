package config

import (
	"log/slog"
	"strings"
	"time"

	"github.com/cardcat/cardcat/internal/schedule"
)

// Setting is one row of the table: a value the operator sets by a flag, a
// variable, or either.
type Setting struct {
	Flag string // without dashes; empty: no flag
	Var  string // empty: no variable
	// Default is the value when neither is given, as the operator would
	// write it ("" is the type's zero value); DefaultDoc says it in words
	// for the reference when the value alone does not ("empty: off").
	Default    string
	DefaultDoc string
	// Secret: read from Var or from the file Var_FILE names, printed as ***,
	// never a flag's default in --help. A secret is text, checked where it
	// is used (a check must not repeat it).
	Secret   bool
	Commands Commands
	Doc      string // one line of Markdown, for the reference and --help
	value    value
}

// Name is the setting's key: its flag's name, else its variable's in lower
// case without CARDCAT_ ("s3-endpoint").
func (s *Setting) Name() string {
	if s.Flag != "" {
		return s.Flag
	}
	return strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(s.Var, "CARDCAT_")), "_", "-")
}

// Settings is the table, in its order.
func Settings() []Setting {
	out := make([]Setting, len(table))
	for i, s := range table {
		out[i] = *s
	}
	return out
}

// Variables is every variable cardcat reads, NAME_FILE of each secret
// included, in the table's order.
func Variables() []string {
	var out []string
	for _, s := range table {
		if s.Var != "" {
			out = append(out, s.Var)
			if s.Secret {
				out = append(out, s.Var+"_FILE")
			}
		}
	}
	return out
}

// The defaults that other packages also hold (httpapi, ratelimit/redis,
// serving, ingest, images) are written here as the operator reads them; a
// test of cmd/cardcat, which imports both, keeps them equal.
var table = []*Setting{
	// Every command that opens the store.
	{Flag: "data-dir", Var: "CARDCAT_DATA_DIR", Default: "./data", Commands: Store,
		Doc:   "[the data directory](#the-data-directory): SQLite database, rate-limit state, image cache, live ingest's cache",
		value: text(func(c *Config) *string { return &c.Store.DataDir })},
	{Flag: "database-url", Var: "CARDCAT_DATABASE_URL", Secret: true, DefaultDoc: "empty: SQLite in the data directory", Commands: Store,
		Doc:   "`postgres://...` or `postgresql://...` selects PostgreSQL; `sqlite:PATH` a SQLite file elsewhere",
		value: text(func(c *Config) *string { return &c.Store.DatabaseURL })},

	// serve.
	{Flag: "addr", Var: "CARDCAT_ADDR", Default: ":8080", Commands: Serve,
		Doc:   "listen address (`host:port`; plain HTTP: put TLS in front)",
		value: text(func(c *Config) *string { return &c.Serve.Addr })},
	{Flag: "public-url", Var: "CARDCAT_PUBLIC_URL", DefaultDoc: "empty: the listen address (`--addr :8081` gives `http://localhost:8081`; a host in `--addr` is kept)", Commands: Serve,
		Doc: "the base URL callers use; it builds the portal's links (the verification email's included), the `docs` link of 404 answers, `redeem_url`, `upgrade_url`, the example request of 401 answers and the bulk files' URLs; " +
			"`serve` logs the one it uses at start (`public URL`). Set it to your public address. An `https://` URL also adds `Strict-Transport-Security: max-age=31536000` to every answer " +
			"(this host only, no `includeSubDomains`), whether TLS ends here or at a proxy in front.",
		value: baseURL(func(c *Config) *string { return &c.Serve.PublicURL })},
	{Flag: "region", Var: "CARDCAT_REGION", Default: "local", Commands: Serve,
		Doc:   "the `region` reported by `/health`",
		value: text(func(c *Config) *string { return &c.Serve.Region })},
	{Flag: "refresh-interval", Var: "CARDCAT_REFRESH_INTERVAL", Default: "30s", Commands: Serve,
		Doc:   "how often the server looks in the store for a new catalogue version",
		value: positiveDuration(func(c *Config) *time.Duration { return &c.Serve.RefreshInterval })},
	{Flag: "keys-refresh-interval", Var: "CARDCAT_KEYS_REFRESH_INTERVAL", Default: "5s", Commands: Serve,
		Doc:   "how often the server reloads keys and accounts when they changed: new keys, revocations, plan, limit and trial changes apply within it",
		value: positiveDuration(func(c *Config) *time.Duration { return &c.Limits.KeysRefreshInterval })},
	{Flag: "redis-url", Var: "CARDCAT_REDIS_URL", Secret: true, DefaultDoc: "empty: in process", Commands: Serve,
		Doc:   "`redis://[user:password@]host:port/db` of the Redis that holds the rate-limit counters shared by every replica; see [rate limiter](#rate-limiter-in-process-or-redis)",
		value: text(func(c *Config) *string { return &c.Limits.RedisURL })},
	{Flag: "redis-prefix", Var: "CARDCAT_REDIS_PREFIX", Default: "cardcat:rl:", Commands: Serve,
		Doc:   "prefix of the limiter's Redis keys (several deployments can share one Redis)",
		value: text(func(c *Config) *string { return &c.Limits.RedisPrefix })},
	{Flag: "redis-timeout", Var: "CARDCAT_REDIS_TIMEOUT", Default: "100ms", Commands: Serve,
		Doc: "how long one limiter call waits for Redis before the request is counted locally ([Redis outages](#redis-outages)); " +
			"raise it for a distant Redis, since a call that times out but still ran in Redis is counted there and locally",
		value: positiveDuration(func(c *Config) *time.Duration { return &c.Limits.RedisTimeout })},
	{Flag: "compress-cache-mb", Var: "CARDCAT_COMPRESS_CACHE_MB", Default: "320", Commands: Serve,
		Doc: "megabytes of compressed answers (gzip, zstd, br variants of card details, set pages and the other answers made once per catalogue version) " +
			"kept in memory (outside the Go heap, so the collector's headroom is not taken on them), the first kept dropped first: " +
			"each is compressed on its first request and then served as kept. " +
			"The default holds every set page of a million-card catalogue in two codings; a page dropped is compressed again when next asked",
		value: integer(func(c *Config) *int { return &c.Serve.CompressCacheMB }, positive, "a positive integer")},
	{Flag: "guard-per-hour", Var: "CARDCAT_GUARD_PER_HOUR", Default: "1000", Commands: Serve,
		Doc:   "requests per hour allowed from one client address without a valid key (a day allows 24 times as many)",
		value: integer(func(c *Config) *int64 { return &c.Limits.GuardPerHour }, positive, "a positive integer")},
	{Flag: "trusted-proxies", Var: "CARDCAT_TRUSTED_PROXIES", DefaultDoc: "none", Commands: Serve,
		Doc:   "comma-separated addresses or CIDRs of your proxies / load balancers, whose `X-Forwarded-For` names the client; see [client addresses](#client-addresses-behind-a-proxy)",
		value: text(func(c *Config) *string { return &c.Limits.TrustedProxies })},
	{Flag: "admin-addr", Var: "CARDCAT_ADMIN_ADDR", DefaultDoc: "empty: off", Commands: Serve,
		Doc: "address of the [admin server](#admin-server-probes-metrics-and-profiling) (pprof, `/livez`, `/readyz`, [`/metrics`](#metrics)): " +
			"a loopback address such as `127.0.0.1:6060` or `localhost:6060`; any other is refused (exit 2) without `--admin-allow-public`",
		value: text(func(c *Config) *string { return &c.Serve.AdminAddr })},
	{Flag: "admin-allow-public", Var: "CARDCAT_ADMIN_ALLOW_PUBLIC", Default: "false", Commands: Serve,
		Doc: "`true` lets `--admin-addr` be an address other hosts can reach (`0.0.0.0:6060`, a pod's or a private interface's address); " +
			"the admin server has no authentication, so `serve` warns at start-up",
		value: boolean(func(c *Config) *bool { return &c.Serve.AdminPublic })},
	{Flag: "status-probe", Var: "CARDCAT_STATUS_PROBE", Default: "true", Commands: Serve,
		Doc: "check the API every minute for the [status page](#the-status-page) (`GET /status`): one replica of a shared store records each minute; " +
			"`false` on every replica stops the checks, and the page's uptime then counts the minutes without a check as down",
		value: boolean(func(c *Config) *bool { return &c.Serve.StatusProbe })},
	{Flag: "status-probe-url", Var: "CARDCAT_STATUS_PROBE_URL", DefaultDoc: "empty: `/health` at the listen address (`:8080` gives `http://127.0.0.1:8080/health`)", Commands: Serve,
		Doc: "the URL the status page's check sends `GET` to, a 200 being up: by default the server's own listener, so that the API's whole chain is checked; " +
			"set it to the public address (the load balancer) to check the path callers take",
		value: baseURL(func(c *Config) *string { return &c.Serve.StatusProbeURL })},
	{Flag: "contact", Var: "CARDCAT_CONTACT", DefaultDoc: "empty: the portal says that no contact is listed", Commands: Serve,
		Doc: "how visitors reach you: an email address (`ops@example.com`, linked as `mailto:`) or an `http(s)://` URL (a contact form, a support page). " +
			"The [account portal](#the-account-portal) links it where it tells visitors to contact the operator (Business, and every paid plan without Stripe) and in its footer",
		value: textOf("email-or-url", func(c *Config) *string { return &c.Portal.Contact })},
	{Flag: "alerts-business-max", Var: "CARDCAT_ALERTS_BUSINESS_MAX", Default: "10000", Commands: Serve | Alerts | Webhooks,
		Doc: "how many [price alerts](#price-alerts-and-webhooks) an account on the Business plan keeps (by contract); " +
			"the other plans' are fixed: Free 3, Coffee and Pro 100, Ultra 1,000",
		value: integer(func(c *Config) *int { return &c.Alerts.BusinessMax }, positive, "a positive integer")},
	{Var: "CARDCAT_WEBHOOK_ALLOW_HTTP", Default: "false", Commands: Serve | Alerts | Webhooks,
		Doc:   "`true` takes `http://` webhook endpoints, not only `https://`: for tests and private deployments only (`serve` logs it at start)",
		value: boolean(func(c *Config) *bool { return &c.Alerts.AllowHTTP })},
	{Var: "CARDCAT_WEBHOOK_ALLOW_PRIVATE", Default: "false", Commands: Serve,
		Doc: "`true` delivers webhooks to any address, loopback, private, link-local and carrier-NAT ones included, which are refused otherwise " +
			"(checked when each connection is made): for tests and private deployments only (`serve` logs it at start)",
		value: boolean(func(c *Config) *bool { return &c.Alerts.AllowPrivate })},
	{Flag: "webhook-workers", Var: "CARDCAT_WEBHOOK_WORKERS", Default: "4", Commands: Serve,
		Doc: "how many webhook deliveries this replica sends at once, from the queue every replica shares; `0`: this replica delivers none " +
			"(each waits at most 10 s for its answer), and sends no [alert email](#alert-emails) either",
		value: integer(func(c *Config) *int { return &c.Alerts.Workers }, func(n int) bool { return n >= 0 }, "a non-negative integer")},
	{Flag: "alert-emails-per-hour", Var: "CARDCAT_ALERT_EMAILS_PER_HOUR", Default: "20", Commands: Serve,
		Doc: "the most [alert emails](#alert-emails) an account gets in an hour (counted when they are queued, across replicas): " +
			"the firings past it are not emailed (their events and webhooks are as usual) and the next email says how many; `0`: no cap",
		value: integer(func(c *Config) *int { return &c.Alerts.EmailsPerHour }, func(n int) bool { return n >= 0 }, "a non-negative integer")},
	{Flag: "alert-history-days", Var: "CARDCAT_ALERT_HISTORY_DAYS", Default: "30", Commands: Serve,
		Doc: "days the [alerts' history](#retention-of-the-alerts-history) is kept: once a day one replica deletes each alert event " +
			"older than that whose webhook deliveries and email are finished (delivered, failed; sent, failed, cancelled, capped), " +
			"with its deliveries, their attempts (the portal's delivery log) and its email; anything still to be sent stays. `0` keeps everything",
		value: integer(func(c *Config) *int { return &c.Alerts.HistoryDays }, func(n int) bool { return n >= 0 && n <= MaxAlertHistoryDays },
			"0 (keep everything) or a number of days from 1 to 3650")},
	{Var: "CARDCAT_SMTP_URL", Secret: true, DefaultDoc: "empty: emails are logged", Commands: Serve,
		Doc:   "the SMTP server of the portal's emails: `smtp://user:password@host:587` (STARTTLS) or `smtps://user:password@host:465`; see [email](#email)",
		value: text(func(c *Config) *string { return &c.Portal.SMTPURL })},
	{Var: "CARDCAT_SMTP_PASSWORD", Secret: true, DefaultDoc: "empty: the URL's", Commands: Serve,
		Doc:   "the SMTP password, overriding the URL's (so that the URL can stay in a config file); only with `CARDCAT_SMTP_URL`",
		value: text(func(c *Config) *string { return &c.Portal.SMTPPassword })},
	{Var: "CARDCAT_STRIPE_SECRET_KEY", Secret: true, DefaultDoc: "empty: no payments", Commands: Serve,
		Doc:   "Stripe's secret API key: with the webhook secret and the two prices (all four, or none), card payments for Pro and Ultra; see [payments](#payments-stripe)",
		value: text(func(c *Config) *string { return &c.Portal.StripeSecretKey })},
	{Var: "CARDCAT_STRIPE_WEBHOOK_SECRET", Secret: true, DefaultDoc: "empty: no payments", Commands: Serve,
		Doc:   "the signing secret (`whsec_...`) of the Stripe webhook endpoint `{public_url}/account/billing/stripe`",
		value: text(func(c *Config) *string { return &c.Portal.StripeWebhookSecret })},
	{Var: "CARDCAT_STRIPE_PRICE_PRO", DefaultDoc: "empty: no payments", Commands: Serve,
		Doc:   "the id (`price_...`) of Pro's recurring price in Stripe",
		value: text(func(c *Config) *string { return &c.Portal.StripePricePro })},
	{Var: "CARDCAT_STRIPE_PRICE_ULTRA", DefaultDoc: "empty: no payments", Commands: Serve,
		Doc:   "the id (`price_...`) of Ultra's recurring price in Stripe",
		value: text(func(c *Config) *string { return &c.Portal.StripePriceUltra })},
	{Var: "CARDCAT_STRIPE_API_URL", DefaultDoc: "empty: Stripe's", Commands: Serve,
		Doc:   "where the Stripe client sends its calls (a stripe-mock, or the tests' fake); only with the other four",
		value: text(func(c *Config) *string { return &c.Portal.StripeAPIURL })},
	{Var: "CARDCAT_COFFEE_MINIMUM", Default: "3", Commands: Serve,
		Doc: "the least a month of the Coffee plan costs, in EUR (`3`, `2.50`): with Stripe, a caller buys Coffee (a voluntary payment) at the amount they choose, " +
			"from this up to 1000; at least `0.50`, Stripe's smallest charge. See [payments](#payments-stripe)",
		value: textOf("eur", func(c *Config) *string { return &c.Portal.CoffeeMinimum })},
	{Flag: "refresh-at", Var: "CARDCAT_REFRESH_AT", DefaultDoc: "empty: off", Commands: Serve,
		Doc: "UTC times of day, `HH:MM`, at which the server runs the live ingest itself, once among the replicas of a store ([scheduled refresh](#scheduled-refresh)), " +
			"with the upstream settings of [serve and ingest](#serve-and-ingest); several as a comma list (`09:30,21:30`) or by repeating the flag; " +
			"given flags replace the variable's times",
		value: times(func(c *Config) *schedule.Times { return &c.Serve.RefreshAt })},
	{Var: "CARDCAT_TCGPLAYER_IMAGE_URL", Default: "https://tcgplayer-cdn.tcgplayer.com/product/{productId}_in_1000x1000.jpg", Commands: Serve,
		Doc:   "where card images are fetched from; an absolute http(s) URL containing `{productId}`, replaced by the TCGplayer product id",
		value: text(func(c *Config) *string { return &c.Images.SourceURL })},
	{Var: "CARDCAT_SET_IMAGE_URL", Default: "https://assets.tcgdex.net/{language}/{serie}/{set}/logo.png", Commands: Serve,
		Doc: "where the base game's set logos (`GET /sets/:set/image`) are fetched from; an absolute http(s) URL containing `{language}`, `{serie}` and `{set}`, " +
			"replaced by the TCGdex language, serie and set that `links/pokemon-tcgdex/sets.csv` gives the set's TCGplayer group " +
			"(read from the data directory when it has one, else the bundled sample's)",
		value: text(func(c *Config) *string { return &c.Images.SetLogoURL })},
	{Var: "GOGC", Default: "50", Commands: Serve,
		Doc: "Go's garbage-collector target. `serve` sets 50 when `GOGC` is unset (the heap is mostly the long-lived catalogue; " +
			"50 keeps memory near the catalogue's size without collecting too often under load; the measurements are in `bench/README.md`). " +
			"A `GOGC` you set wins. On a small catalogue the heap is small and 50 collects after every few MB of the requests' garbage: " +
			"`GOGC=400` measured 6-12% more card-detail requests per second at 20,000 cards and 3-6% at 100,000 " +
			"(nothing at 1,000,000), for a heap that may grow to 5 times what is live instead of 1.5 (at 100,000 cards ~65 MB more).",
		value: text(func(c *Config) *string { return &c.Serve.GOGC })},

	// serve and ingest.
	{Flag: "load-timeout", Var: "CARDCAT_LOAD_TIMEOUT", Default: "5m", Commands: Serve | Ingest,
		Doc: "how long one reading of a catalogue version may take (from the store: the catalogue and its TCGplayer history; " +
			"or its [snapshot artifact](#snapshot-artifacts), S3 download included) before that attempt fails: `serve` keeps serving the current version, " +
			"`ingest` writes no artifact; enough for a million cards, raise it with the catalogue ([capacity](#capacity))",
		value: positiveDuration(func(c *Config) *time.Duration { return &c.Catalogue.LoadTimeout })},
	{Flag: "snapshot-artifacts", Var: "CARDCAT_SNAPSHOT_ARTIFACTS", Default: "true", Commands: Serve | Ingest,
		Doc: "`serve` reads each catalogue version's [snapshot artifact](#snapshot-artifacts) instead of building the version from the store, " +
			"and writes it after building one; `ingest` builds the version it wrote as `serve` would and writes its artifact, so that replicas read it. " +
			"Artifacts go to the data directory, and to S3 when `CARDCAT_S3_ENDPOINT` is set. `false`: always build, write nothing",
		value: boolean(func(c *Config) *bool { return &c.Catalogue.SnapshotArtifacts })},
	{Var: "CARDCAT_S3_ENDPOINT", DefaultDoc: "empty: the data directory", Commands: Serve | Ingest,
		Doc: "S3-compatible storage shared by the replicas (image cache, [bulk files](#shared-through-s3), snapshot artifacts): " +
			"`host[:port]` (`s3.eu-west-1.amazonaws.com`, `127.0.0.1:9000`), or `http(s)://host[:port]`, whose scheme then sets TLS; " +
			"any other `CARDCAT_S3_*` setting without it is an error; see [S3](#s3)",
		value: text(func(c *Config) *string { return &c.S3.Endpoint })},
	{Var: "CARDCAT_S3_BUCKET", Commands: Serve | Ingest,
		Doc:   "the bucket (3–63 characters: lower-case letters, digits, `-`, `.`); it must exist",
		value: text(func(c *Config) *string { return &c.S3.Bucket })},
	{Var: "CARDCAT_S3_REGION", DefaultDoc: "read from an AWS endpoint's name, else asked of the server", Commands: Serve | Ingest,
		Doc:   "the bucket's region",
		value: text(func(c *Config) *string { return &c.S3.Region })},
	{Var: "CARDCAT_S3_ACCESS_KEY", Secret: true, DefaultDoc: "empty: the AWS credential chain", Commands: Serve | Ingest,
		Doc:   "access key id; with the secret key, or neither",
		value: text(func(c *Config) *string { return &c.S3.AccessKey })},
	{Var: "CARDCAT_S3_SECRET_KEY", Secret: true, DefaultDoc: "empty: the AWS credential chain", Commands: Serve | Ingest,
		Doc:   "secret access key",
		value: text(func(c *Config) *string { return &c.S3.SecretKey })},
	{Var: "CARDCAT_S3_USE_SSL", DefaultDoc: "`true` (or the endpoint URL's scheme)", Commands: Serve | Ingest,
		Doc:   "`true` or `false`; contradicting the endpoint URL's scheme is an error",
		value: optionalBool(func(c *Config) **bool { return &c.S3.UseSSL })},
	{Var: "CARDCAT_S3_PREFIX", DefaultDoc: "none", Commands: Serve | Ingest,
		Doc:   "put before every object name (`cardcat/images`), so that the bucket can hold other things",
		value: text(func(c *Config) *string { return &c.S3.Prefix })},
	{Flag: "tcgplayer-url", Var: "CARDCAT_TCGPLAYER_URL", Default: "https://tcgcsv.com", Commands: Serve | Ingest,
		Doc:   "TCGplayer base URL (tcgcsv.com's layout) of the live ingest",
		value: text(func(c *Config) *string { return &c.Upstream.TCGPlayerURL })},
	{Flag: "cardmarket-url", Var: "CARDCAT_CARDMARKET_URL", Default: "https://downloads.s3.cardmarket.com/productCatalog", Commands: Serve | Ingest,
		Doc:   "Cardmarket downloads base URL of the live ingest",
		value: text(func(c *Config) *string { return &c.Upstream.CardmarketURL })},
	{Flag: "local-dir", Var: "CARDCAT_LOCAL_DIR", DefaultDoc: "the data directory", Commands: Serve | Ingest,
		Doc:   "for a live ingest, a mirror-layout directory with the files no upstream publishes: `links/` and `cardmarket/{idGame}/expansions.json`",
		value: text(func(c *Config) *string { return &c.Upstream.LocalDir })},
	{Flag: "change-days", Var: "CARDCAT_CHANGE_DAYS", Default: "90", Commands: Serve | Ingest,
		Doc: "days the change feed (`GET /{game}/changes`) keeps the record of a card removed from the catalogue ([the change feed](#the-change-feed)): " +
			"a `since` older than the newest removal forgotten is refused; `0` keeps every removal",
		value: integer(func(c *Config) *int { return &c.Upstream.ChangeDays }, func(n int) bool { return n >= 0 },
			"0 (keep every removal) or a number of days")},
	{Flag: "history-days", Var: "CARDCAT_HISTORY_DAYS", Default: "400", Commands: Serve | Ingest,
		Doc: "UTC days of daily price points to keep, the ingest's own day included; older ones are deleted once the version is written " +
			"([price history](#price-history-and-its-room)). `0` keeps every point; any other value must be at least 400 (the API answers up to 365 days)",
		value: integer(func(c *Config) *int { return &c.Upstream.HistoryDays }, func(n int) bool { return n == 0 || n >= MinHistoryDays },
			"0 (keep every point) or a number of days of at least 400")},

	// ingest.
	{Flag: "from", DefaultDoc: "empty: the live sources", Commands: Ingest,
		Doc:   "a local mirror directory to read instead of the live sources ([layout](#mirror-layout))",
		value: text(func(c *Config) *string { return &c.Ingest.From })},
	{Flag: "lock-wait", Default: "30m", Commands: Ingest,
		Doc: "how long to wait while a [scheduled refresh](#scheduled-refresh) or another ingest of the same store holds the store's refresh lock; " +
			"then exit 1, nothing written. `0` fails at once",
		value: duration(func(c *Config) *time.Duration { return &c.Ingest.LockWait })},

	// synth.
	{Flag: "seed", Var: "CARDCAT_SYNTH_SEED", Default: "1", Commands: Synth,
		Doc:   "seed of the generator: the same seed and flags give byte-identical files",
		value: unsigned(func(c *Config) *uint64 { return &c.Synth.Seed })},

	// Every command.
	{Var: "CARDCAT_LOG_LEVEL", Default: "info", Commands: Every,
		Doc:   "`debug`, `info`, `warn` or `error` (unknown values mean `info`); above `info` the access log is off",
		value: logLevel(func(c *Config) *slog.Level { return &c.Log.Level })},
	{Var: "CARDCAT_LOG_FORMAT", Default: "text", Commands: Every,
		Doc:   "`json` for one JSON object per line; anything else is text (`key=value`)",
		value: logFormat(func(c *Config) *bool { return &c.Log.JSON })},
}

// section is one part of the configuration reference: the settings of one
// set of commands, in the table's order.
type section struct {
	commands     Commands
	title        string
	intro, outro string // Markdown
}

var sections = []section{
	{commands: Store, title: "Every command that opens the store", intro: "`serve`, `ingest`, `keys ...`, `accounts ...`, `incidents ...`, `alerts ...`, `webhooks ...` and `backup`:"},
	{commands: Serve, title: "serve"},
	{commands: Serve | Ingest, title: "serve and ingest",
		intro: "`ingest` reads these for the version it writes; `serve` for the versions it serves and, with `--refresh-at`, for its " +
			"[scheduled refresh](#scheduled-refresh), the live ingest it runs itself (the upstream settings, `--tcgplayer-url` to " +
			"`--history-days`, matter to `serve` only then)."},
	{commands: Serve | Alerts | Webhooks, title: "serve, alerts and webhooks",
		intro: "The rules of [price alerts and webhooks](#price-alerts-and-webhooks) that the operator's commands apply as the server does:"},
	{commands: Ingest, title: "ingest"},
	{commands: Synth, title: "synth",
		outro: "The other synth flags (`--out`, `--from`, `--cards`, `--day`, `--force`) have no variable; see `cardcat synth --help`."},
	{commands: Every, title: "Every command"},
}
