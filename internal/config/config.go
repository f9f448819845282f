// Package config is cardcat's configuration as one declarative table
// (table.go): each setting's flag, variable, default, whether it is a
// secret, its parser and type, its one-line doc and the commands that read
// it. Bind reads a command's settings once, at start-up, from the
// environment (NAME, or NAME_FILE for a secret) and defines their flags,
// which win; the result is a typed Config that the command passes down.
// Nothing else in cardcat reads a CARDCAT_* variable.
//
// The table also writes the configuration reference of docs/operations.md
// (Reference; a test keeps the two equal) and prints the effective
// configuration with secrets redacted (`cardcat config`, Config.Print).
package config

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cardcat/cardcat/internal/schedule"
)

// Commands is a set of cardcat's commands: the ones that read a setting, or
// the one being configured.
type Commands uint16

// The commands that read settings. Every is every command, `config` and
// `version` included.
const (
	Serve Commands = 1 << iota
	Ingest
	Keys
	Accounts
	Backup
	Synth
	Incidents
	Alerts   // `cardcat alerts ...`
	Webhooks // `cardcat webhooks ...`

	Every Commands = 1<<16 - 1
	// Store is every command that opens the store.
	Store = Serve | Ingest | Keys | Accounts | Backup | Incidents | Alerts | Webhooks
)

var commandNames = []struct {
	c    Commands
	name string
}{{Serve, "serve"}, {Ingest, "ingest"}, {Keys, "keys"}, {Accounts, "accounts"}, {Backup, "backup"}, {Synth, "synth"}, {Incidents, "incidents"},
	{Alerts, "alerts"}, {Webhooks, "webhooks"}}

// CommandNamed is the command of a name ("serve"), false for none.
func CommandNamed(name string) (Commands, bool) {
	for _, n := range commandNames {
		if n.name == name {
			return n.c, true
		}
	}
	return 0, false
}

// String names the commands: "serve, ingest", or "every command".
func (c Commands) String() string {
	if c == Every {
		return "every command"
	}
	var names []string
	for _, n := range commandNames {
		if c&n.c != 0 {
			names = append(names, n.name)
		}
	}
	return strings.Join(names, ", ")
}

// Config is the configuration of one command: every setting it reads, typed,
// grouped by what it configures. The groups of settings a command does not
// read are zero.
type Config struct {
	Log       Log
	Store     StoreConfig
	Serve     ServeConfig
	Limits    Limits
	Portal    Portal
	Images    Images
	S3        S3
	Catalogue Catalogue
	Upstream  Upstream
	Ingest    IngestConfig
	Synth     SynthConfig
	Alerts    AlertsConfig

	commands Commands
	settings []*Setting        // the commands' settings, in the table's order
	origins  map[string]Origin // by Setting.Name
}

// Log is how every command logs.
type Log struct {
	Level slog.Level
	JSON  bool // else text
}

// StoreConfig says where the store is.
type StoreConfig struct {
	DataDir string
	// DatabaseURL is postgres://... or postgresql://... for PostgreSQL,
	// sqlite:PATH for SQLite elsewhere, empty for SQLite in DataDir. It may
	// hold a password: it is checked where it is opened (the check must not
	// repeat it), never here.
	DatabaseURL string
}

// Postgres reports whether the store is PostgreSQL.
func (s StoreConfig) Postgres() bool {
	return strings.HasPrefix(s.DatabaseURL, "postgres://") || strings.HasPrefix(s.DatabaseURL, "postgresql://")
}

// SQLite reports whether the store is SQLite: in the data directory, or at
// a sqlite: URL's path.
func (s StoreConfig) SQLite() bool {
	return s.DatabaseURL == "" || strings.HasPrefix(s.DatabaseURL, "sqlite:")
}

// SQLitePath is the SQLite database's file.
func (s StoreConfig) SQLitePath() string {
	if p, ok := strings.CutPrefix(s.DatabaseURL, "sqlite:"); ok {
		return strings.TrimPrefix(p, "//")
	}
	return filepath.Join(s.DataDir, "cardcat.db")
}

// Describe names the store for logs, without its password.
func (s StoreConfig) Describe() string {
	if s.Postgres() {
		return "postgres"
	}
	return "sqlite " + s.SQLitePath()
}

// ServeConfig is the HTTP server's own settings.
type ServeConfig struct {
	Addr            string
	PublicURL       string // without a trailing slash
	Region          string
	RefreshInterval time.Duration
	CompressCacheMB int
	AdminAddr       string
	AdminPublic     bool
	RefreshAt       schedule.Times // empty: no scheduled refresh
	// StatusProbe: this server takes part in the status page's checks of
	// the API, at StatusProbeURL (empty: its own listen address's /health).
	StatusProbe    bool
	StatusProbeURL string
	// GOGC is the collector's target: serve sets it when it comes from the
	// table's default, the runtime having read the operator's variable.
	GOGC string
}

// Limits is the keys' and rate limits' settings.
type Limits struct {
	RedisURL            string // a secret; empty: counters in process
	RedisPrefix         string
	RedisTimeout        time.Duration
	GuardPerHour        int64
	TrustedProxies      string // CIDRs or addresses, parsed by the API (httpapi.ParseTrustedProxies)
	KeysRefreshInterval time.Duration
}

// Portal is the account portal's email and payment settings, every one a
// variable: secrets are never flags, which other users of the machine can
// read in the process list.
type Portal struct {
	Contact             string // an email address or an http(s) URL, parsed by the portal (portal.ParseContact)
	SMTPURL             string // a secret
	SMTPPassword        string // a secret
	StripeSecretKey     string // a secret
	StripeWebhookSecret string // a secret
	StripePricePro      string
	StripePriceUltra    string
	StripeAPIURL        string
	CoffeeMinimum       string // EUR, parsed by account.ParseEUR
}

// Images is the image service's settings.
type Images struct {
	SourceURL  string
	SetLogoURL string // the base game's set logos (GET /sets/{set}/image)
}

// S3 is the S3-compatible storage shared by replicas (images, bulk files,
// snapshot artifacts), as the operator wrote it: the storage's own package
// normalizes and checks the whole.
type S3 struct {
	Endpoint  string
	Bucket    string
	Region    string
	AccessKey string // a secret
	SecretKey string // a secret
	UseSSL    *bool  // nil: unset (true, or what the endpoint URL's scheme says)
	Prefix    string
}

// Set reports whether any S3 setting is set.
func (s S3) Set() bool {
	return s.Endpoint != "" || s.Bucket != "" || s.Region != "" || s.AccessKey != "" || s.SecretKey != "" || s.UseSSL != nil || s.Prefix != ""
}

// Catalogue is how a catalogue version is read: from the store, or from its
// snapshot artifact.
type Catalogue struct {
	LoadTimeout       time.Duration
	SnapshotArtifacts bool
}

// Upstream is the live ingest's sources and what it keeps.
type Upstream struct {
	TCGPlayerURL  string
	CardmarketURL string
	LocalDir      string // empty: the data directory
	ChangeDays    int    // 0: keep every removal
	HistoryDays   int    // 0: keep every point
}

// MinHistoryDays is the fewest days of price history kept: the API answers
// up to 365 days, and the product promises at least 400 kept.
const MinHistoryDays = 400

// IngestConfig is `cardcat ingest`'s own settings.
type IngestConfig struct {
	From     string // a mirror directory; empty: the live sources
	LockWait time.Duration
}

// AlertsConfig is the price alerts' and webhooks' settings (issue 25).
type AlertsConfig struct {
	// BusinessMax is how many alerts a Business account keeps (by
	// contract; account.Plan.AlertLimits).
	BusinessMax int
	// AllowHTTP takes http:// endpoints, AllowPrivate delivers to any
	// address: for tests and private deployments only.
	AllowHTTP, AllowPrivate bool
	// Workers is how many deliveries a replica sends at once; 0: none (and
	// no alert email either).
	Workers int
	// EmailsPerHour is the most alert emails an account gets in an hour
	// (alerts.Evaluator); 0: no cap.
	EmailsPerHour int
	// HistoryDays is how many days serve keeps the alerts' finished
	// events, webhook deliveries and alert emails (alerts.Retention); 0:
	// every one.
	HistoryDays int
}

// MaxAlertHistoryDays is the longest --alert-history-days taken: ten years
// is for ever for a delivery log, and a larger number is more likely a
// typo; 0 keeps everything.
const MaxAlertHistoryDays = 3650

// SynthConfig is `cardcat synth`'s settings.
type SynthConfig struct {
	Seed uint64
}

// Source is where a setting's value came from.
type Source int

const (
	FromDefault Source = iota
	FromVariable
	FromFlag
)

// Origin is where a setting's value came from, and by which name.
type Origin struct {
	Source Source
	Name   string // the variable (NAME or NAME_FILE) or the flag (--name); empty for the default
}

func (o Origin) String() string {
	if o.Source == FromDefault {
		return "default"
	}
	return o.Name
}

// Error is a mistake in the configuration (a malformed value, two settings
// that contradict each other): the command exits with status 2.
type Error struct{ msg string }

func (e *Error) Error() string { return e.msg }

// Errorf returns a configuration mistake.
func Errorf(format string, args ...any) error { return &Error{fmt.Sprintf(format, args...)} }

// IsError reports whether err is a mistake in the configuration.
func IsError(err error) bool {
	var e *Error
	return errors.As(err, &e)
}

// Bind returns the configuration of the commands cmd: each of their
// settings' default, replaced by its variable when set (and not empty), and
// defines on fs (when not nil) their flags, which replace both when given;
// a flag of a list given again adds to it. A secret is read from NAME or
// from the file NAME_FILE names; both set is an Error, whatever the flags. A
// malformed variable is an Error naming it; a malformed flag is one of fs's
// parse errors.
func Bind(cmd Commands, fs *flag.FlagSet, getenv func(string) string) (*Config, error) {
	c := &Config{commands: cmd, origins: map[string]Origin{}}
	for _, s := range table {
		if s.Commands&cmd == 0 {
			continue
		}
		c.settings = append(c.settings, s)
		c.origins[s.Name()] = Origin{}
		if s.Default != "" {
			if err := s.value.set(c, s.Default, false); err != nil {
				panic(fmt.Sprintf("config: the default of %s: %v", s.Name(), err))
			}
		}
		if s.Var != "" {
			v, from, err := lookup(getenv, s)
			if err != nil {
				return nil, err
			}
			if v != "" {
				if err := s.value.set(c, v, false); err != nil {
					return nil, Errorf("%s: %v", from, err)
				}
				c.origins[s.Name()] = Origin{Source: FromVariable, Name: from}
			}
		}
		if s.Flag != "" && fs != nil {
			fs.Var(&flagValue{c: c, s: s}, s.Flag, s.usage())
		}
	}
	return c, nil
}

// ReadLog is how every command logs: the settings every command reads,
// from the environment, before the command's own are bound.
func ReadLog(getenv func(string) string) Log {
	c := &Config{origins: map[string]Origin{}}
	for _, s := range table {
		if s.Commands != Every {
			continue
		}
		if s.Default != "" {
			s.value.set(c, s.Default, false)
		}
		if v := strings.TrimSpace(getenv(s.Var)); v != "" {
			s.value.set(c, v, false) // lenient: an unknown value keeps the default
		}
	}
	return c.Log
}

// lookup reads s's variable: NAME, or for a secret the content of the file
// NAME_FILE names. It returns the value (surrounding space trimmed; empty
// when unset) and the variable it came from.
func lookup(getenv func(string) string, s *Setting) (value, from string, err error) {
	value = strings.TrimSpace(getenv(s.Var))
	if !s.Secret {
		return value, s.Var, nil
	}
	fileVar := s.Var + "_FILE"
	file := strings.TrimSpace(getenv(fileVar))
	switch {
	case value != "" && file != "":
		return "", "", Errorf("both %s and %s are set; set one", s.Var, fileVar)
	case file != "":
		b, err := os.ReadFile(file)
		if err != nil {
			return "", "", fmt.Errorf("%s: %w", fileVar, err)
		}
		return strings.TrimSpace(string(b)), fileVar, nil
	}
	return value, s.Var, nil
}

// flagValue is a setting's flag: it sets the setting's field of c.
type flagValue struct {
	c *Config
	s *Setting
}

func (f *flagValue) Set(v string) error {
	name := f.s.Name()
	again := f.c.origins[name].Source == FromFlag
	if err := f.s.value.set(f.c, v, again); err != nil {
		return err
	}
	f.c.origins[name] = Origin{Source: FromFlag, Name: "--" + f.s.Flag}
	return nil
}

// String is empty: --help prints the setting's default from the table, and
// never a value read from the environment (a secret's).
func (f *flagValue) String() string { return "" }

func (f *flagValue) IsBoolFlag() bool { return f.s != nil && f.s.value.isBool() }

// Origin is where the setting named name (Setting.Name) came from. It
// panics when the command does not read that setting: a mistake in the
// code, not in the configuration.
func (c *Config) Origin(name string) Origin {
	o, ok := c.origins[name]
	if !ok {
		panic(fmt.Sprintf("config: %s reads no setting %q", c.commands, name))
	}
	return o
}

// Invalid is the Error of a value found wrong by the part it configures
// (a trusted proxy that is no CIDR), naming where it came from. err must not
// repeat a secret.
func (c *Config) Invalid(name string, err error) error {
	o := c.Origin(name)
	if o.Source == FromDefault {
		s := c.setting(name)
		o.Name = s.Var
		if s.Flag != "" {
			o.Name = "--" + s.Flag
		}
	}
	return Errorf("%s: %v", o.Name, err)
}

func (c *Config) setting(name string) *Setting {
	for _, s := range c.settings {
		if s.Name() == name {
			return s
		}
	}
	panic(fmt.Sprintf("config: %s reads no setting %q", c.commands, name))
}
