package config

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// mustBind binds cmd's settings over vars and parses args as its flags.
func mustBind(t *testing.T, cmd Commands, vars map[string]string, args ...string) *Config {
	t.Helper()
	c, err := bind(cmd, vars, args...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func bind(cmd Commands, vars map[string]string, args ...string) (*Config, error) {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	c, err := Bind(cmd, fs, env(vars))
	if err != nil {
		return nil, err
	}
	return c, fs.Parse(args)
}

// TestPrecedence: a flag wins over its variable, which wins over the
// default; an empty (or blank) variable is unset; each value says where it
// came from.
func TestPrecedence(t *testing.T) {
	c := mustBind(t, Serve, nil)
	if c.Serve.Addr != ":8080" || c.Serve.RefreshInterval != 30*time.Second || c.Limits.GuardPerHour != 1000 || !c.Catalogue.SnapshotArtifacts ||
		c.Store.DataDir != "./data" || c.Upstream.HistoryDays != 400 || c.Serve.GOGC != "50" || c.Log.Level != slog.LevelInfo {
		t.Errorf("defaults: %+v", c)
	}
	if o := c.Origin("addr"); o.Source != FromDefault || o.String() != "default" {
		t.Errorf("addr from %v", o)
	}

	vars := map[string]string{"CARDCAT_ADDR": ":9000", "CARDCAT_REFRESH_INTERVAL": "1m", "CARDCAT_REGION": "  ",
		"CARDCAT_PUBLIC_URL": " https://api.example/ ", "CARDCAT_SNAPSHOT_ARTIFACTS": "false", "CARDCAT_LOG_FORMAT": "JSON"}
	c = mustBind(t, Serve, vars)
	if c.Serve.Addr != ":9000" || c.Serve.RefreshInterval != time.Minute || c.Serve.Region != "local" ||
		c.Serve.PublicURL != "https://api.example" || c.Catalogue.SnapshotArtifacts || !c.Log.JSON {
		t.Errorf("from the environment: %+v", c)
	}
	if o := c.Origin("addr"); o.Source != FromVariable || o.Name != "CARDCAT_ADDR" {
		t.Errorf("addr from %v", o)
	}
	if o := c.Origin("region"); o.Source != FromDefault {
		t.Errorf("a blank variable is unset: region from %v", o)
	}

	c = mustBind(t, Serve, vars, "--addr", ":9001", "--snapshot-artifacts", "--refresh-interval=2s")
	if c.Serve.Addr != ":9001" || c.Serve.RefreshInterval != 2*time.Second || !c.Catalogue.SnapshotArtifacts {
		t.Errorf("flags win: %+v", c)
	}
	if o := c.Origin("addr"); o.Source != FromFlag || o.Name != "--addr" {
		t.Errorf("addr from %v", o)
	}
}

// TestSecrets: a secret comes from NAME or from the file NAME_FILE names,
// trimmed; both set is a mistake even when the flag is given; a file that
// cannot be read is an error, not a mistake in the configuration.
func TestSecrets(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "db-url")
	if err := os.WriteFile(file, []byte("  postgres://u:secret@db/cardcat\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := mustBind(t, Backup, map[string]string{"CARDCAT_DATABASE_URL": " postgres://u:direct@db/x "})
	if c.Store.DatabaseURL != "postgres://u:direct@db/x" {
		t.Errorf("variable: %q", c.Store.DatabaseURL)
	}
	c = mustBind(t, Backup, map[string]string{"CARDCAT_DATABASE_URL_FILE": file})
	if c.Store.DatabaseURL != "postgres://u:secret@db/cardcat" || c.Origin("database-url").Name != "CARDCAT_DATABASE_URL_FILE" {
		t.Errorf("file: %q from %v", c.Store.DatabaseURL, c.Origin("database-url"))
	}
	c = mustBind(t, Backup, map[string]string{"CARDCAT_DATABASE_URL_FILE": file}, "--database-url", "sqlite:/x.db")
	if c.Store.DatabaseURL != "sqlite:/x.db" {
		t.Errorf("the flag wins: %q", c.Store.DatabaseURL)
	}

	_, err := bind(Backup, map[string]string{"CARDCAT_DATABASE_URL": "a", "CARDCAT_DATABASE_URL_FILE": file}, "--database-url", "sqlite:/x.db")
	if !IsError(err) || !strings.Contains(err.Error(), "CARDCAT_DATABASE_URL_FILE") {
		t.Errorf("both set: %v, want a configuration Error naming both", err)
	}
	_, err = bind(Backup, map[string]string{"CARDCAT_DATABASE_URL_FILE": filepath.Join(dir, "missing")})
	if !errors.Is(err, fs.ErrNotExist) || IsError(err) || !strings.Contains(err.Error(), "CARDCAT_DATABASE_URL_FILE") {
		t.Errorf("missing file: %v", err)
	}
}

// TestRefusals: a malformed variable is an Error naming it; a malformed
// flag a parse error naming the flag.
func TestRefusals(t *testing.T) {
	for _, tt := range []struct {
		cmd  Commands
		vars map[string]string
		args []string
		want string
	}{
		{Serve, map[string]string{"CARDCAT_REFRESH_INTERVAL": "soon"}, nil, "CARDCAT_REFRESH_INTERVAL"},
		{Serve, map[string]string{"CARDCAT_REFRESH_INTERVAL": "0s"}, nil, "CARDCAT_REFRESH_INTERVAL"},
		{Serve, nil, []string{"--refresh-interval", "-1s"}, "refresh-interval"},
		{Serve, map[string]string{"CARDCAT_GUARD_PER_HOUR": "-1"}, nil, "CARDCAT_GUARD_PER_HOUR"},
		{Serve, map[string]string{"CARDCAT_COMPRESS_CACHE_MB": "99999999999999999999"}, nil, "CARDCAT_COMPRESS_CACHE_MB"},
		{Serve, map[string]string{"CARDCAT_ADMIN_ALLOW_PUBLIC": "yes please"}, nil, "CARDCAT_ADMIN_ALLOW_PUBLIC"},
		{Serve, map[string]string{"CARDCAT_REFRESH_AT": "3am"}, nil, "CARDCAT_REFRESH_AT"},
		{Serve, nil, []string{"--refresh-at", "03:00,"}, "refresh-at"},
		{Serve, map[string]string{"CARDCAT_S3_USE_SSL": "maybe"}, nil, "CARDCAT_S3_USE_SSL"},
		{Ingest, map[string]string{"CARDCAT_HISTORY_DAYS": "30"}, nil, "CARDCAT_HISTORY_DAYS"},
		{Ingest, nil, []string{"--change-days", "-1"}, "change-days"},
		{Synth, map[string]string{"CARDCAT_SYNTH_SEED": "-1"}, nil, "CARDCAT_SYNTH_SEED"},
	} {
		_, err := bind(tt.cmd, tt.vars, tt.args...)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v %v: %v, want an error naming %s", tt.vars, tt.args, err, tt.want)
		}
		if tt.args == nil && !IsError(err) {
			t.Errorf("%v: %v is not a configuration Error", tt.vars, err)
		}
	}
}

// TestAlertHistoryDays: --alert-history-days and CARDCAT_ALERT_HISTORY_DAYS
// take 0 (keep everything) or 1 to 3650 days, 30 by default; anything else
// is refused with what is taken.
func TestAlertHistoryDays(t *testing.T) {
	for _, tt := range []struct {
		vars map[string]string
		args []string
		want int
		err  string
	}{
		{nil, nil, 30, ""},
		{nil, []string{"--alert-history-days", "0"}, 0, ""},
		{map[string]string{"CARDCAT_ALERT_HISTORY_DAYS": "1"}, nil, 1, ""},
		{map[string]string{"CARDCAT_ALERT_HISTORY_DAYS": "3650"}, nil, 3650, ""},
		{map[string]string{"CARDCAT_ALERT_HISTORY_DAYS": "90"}, []string{"--alert-history-days", "7"}, 7, ""},
		{map[string]string{"CARDCAT_ALERT_HISTORY_DAYS": "-1"}, nil, 0, "CARDCAT_ALERT_HISTORY_DAYS: want 0 (keep everything) or a number of days from 1 to 3650, got \"-1\""},
		{map[string]string{"CARDCAT_ALERT_HISTORY_DAYS": "30d"}, nil, 0, "CARDCAT_ALERT_HISTORY_DAYS: want 0"},
		{nil, []string{"--alert-history-days", "3651"}, 0, "want 0 (keep everything) or a number of days from 1 to 3650"},
	} {
		c, err := bind(Serve, tt.vars, tt.args...)
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("%v %v: %v", tt.vars, tt.args, err)
		case tt.err == "" && c.Alerts.HistoryDays != tt.want:
			t.Errorf("%v %v: %d days, want %d", tt.vars, tt.args, c.Alerts.HistoryDays, tt.want)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%v %v: %v, want an error with %q", tt.vars, tt.args, err, tt.err)
		}
	}
}

// TestListFlagAdds: the flags of a list replace the variable's, and add up.
func TestListFlagAdds(t *testing.T) {
	vars := map[string]string{"CARDCAT_REFRESH_AT": "15:30"}
	if c := mustBind(t, Serve, vars); c.Serve.RefreshAt.String() != "15:30" {
		t.Errorf("variable: %v", c.Serve.RefreshAt)
	}
	if c := mustBind(t, Serve, vars, "--refresh-at", "04:00", "--refresh-at", "02:00,04:00"); c.Serve.RefreshAt.String() != "02:00,04:00" {
		t.Errorf("flags: %v", c.Serve.RefreshAt)
	}
}

// TestCommandsReadTheirOwn: a command reads its settings, and no other's:
// ingest ignores a malformed variable of serve's.
func TestCommandsReadTheirOwn(t *testing.T) {
	c := mustBind(t, Ingest, map[string]string{"CARDCAT_GUARD_PER_HOUR": "many", "CARDCAT_HISTORY_DAYS": "0"})
	if c.Upstream.HistoryDays != 0 || c.Limits.GuardPerHour != 0 {
		t.Errorf("ingest: %+v", c)
	}
	defer func() {
		if recover() == nil {
			t.Error("Origin of a setting ingest does not read: no panic")
		}
	}()
	c.Origin("guard-per-hour")
}

func TestInvalid(t *testing.T) {
	c := mustBind(t, Serve, map[string]string{"CARDCAT_TRUSTED_PROXIES": "x"})
	if err := c.Invalid("trusted-proxies", errors.New("bad")); !IsError(err) || err.Error() != "CARDCAT_TRUSTED_PROXIES: bad" {
		t.Errorf("from the variable: %v", err)
	}
	c = mustBind(t, Serve, nil, "--trusted-proxies", "x")
	if err := c.Invalid("trusted-proxies", errors.New("bad")); err.Error() != "--trusted-proxies: bad" {
		t.Errorf("from the flag: %v", err)
	}
	if err := c.Invalid("s3-bucket", errors.New("bad")); err.Error() != "CARDCAT_S3_BUCKET: bad" {
		t.Errorf("default: %v", err)
	}
}

// TestReadLog: logging is lenient: an unknown level is info.
func TestReadLog(t *testing.T) {
	for _, tt := range []struct {
		vars map[string]string
		want Log
	}{
		{nil, Log{Level: slog.LevelInfo}},
		{map[string]string{"CARDCAT_LOG_LEVEL": "DEBUG", "CARDCAT_LOG_FORMAT": "json"}, Log{Level: slog.LevelDebug, JSON: true}},
		{map[string]string{"CARDCAT_LOG_LEVEL": "warn", "CARDCAT_LOG_FORMAT": "logfmt"}, Log{Level: slog.LevelWarn}},
		{map[string]string{"CARDCAT_LOG_LEVEL": "error"}, Log{Level: slog.LevelError}},
		{map[string]string{"CARDCAT_LOG_LEVEL": "loud"}, Log{Level: slog.LevelInfo}},
	} {
		if got := ReadLog(env(tt.vars)); got != tt.want {
			t.Errorf("%v: %+v, want %+v", tt.vars, got, tt.want)
		}
	}
}

// TestPrint: the effective configuration, secrets as ***.
func TestPrint(t *testing.T) {
	file := filepath.Join(t.TempDir(), "redis")
	os.WriteFile(file, []byte("redis://:hunter2@r:6379/0"), 0o600)
	c := mustBind(t, Serve, map[string]string{"CARDCAT_REDIS_URL_FILE": file, "CARDCAT_S3_SECRET_KEY": "hunter3", "CARDCAT_REGION": "eu west"},
		"--addr", "127.0.0.1:9000")
	var out bytes.Buffer
	if err := c.Print(&out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	if strings.Contains(got, "hunter") {
		t.Errorf("a secret is printed:\n%s", got)
	}
	rows := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(got), "\n")[1:] {
		f := strings.Fields(line)
		rows[f[0]+" "+f[1]] = f[2:]
	}
	for key, want := range map[string][]string{
		"--addr CARDCAT_ADDR":                         {"127.0.0.1:9000", "--addr"},
		"--region CARDCAT_REGION":                     {`"eu`, `west"`, "CARDCAT_REGION"},
		"--redis-url CARDCAT_REDIS_URL":               {"***", "CARDCAT_REDIS_URL_FILE"},
		"- CARDCAT_S3_SECRET_KEY":                     {"***", "CARDCAT_S3_SECRET_KEY"},
		"- CARDCAT_S3_ACCESS_KEY":                     {`""`, "default"},
		"--database-url CARDCAT_DATABASE_URL":         {`""`, "default"},
		"--refresh-interval CARDCAT_REFRESH_INTERVAL": {"30s", "default"},
		"- GOGC": {"50", "default"},
	} {
		if diff := cmp.Diff(want, rows[key]); diff != "" {
			t.Errorf("%s (-want +got):\n%s", key, diff)
		}
	}
	if len(rows) != len(c.settings) {
		t.Errorf("%d rows for %d settings", len(rows), len(c.settings))
	}
}

// TestHelp: --help gives each flag's variable and default from the table,
// never a value read from the environment; the variables without a flag
// follow.
func TestHelp(t *testing.T) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	c, err := Bind(Serve, fs, env(map[string]string{"CARDCAT_DATABASE_URL": "postgres://u:hunter2@db/x", "CARDCAT_ADDR": ":7777"}))
	if err != nil {
		t.Fatal(err)
	}
	fs.String("out", "./x", "where to write")
	var out bytes.Buffer
	fs.SetOutput(&out)
	PrintDefaults(fs)
	c.PrintVariables(&out)
	help := out.String()
	for _, want := range []string{
		"-addr string\n    \tlisten address (host:port; plain HTTP: put TLS in front) (env CARDCAT_ADDR; default :8080)\n",
		"-admin-allow-public\n",
		"-refresh-interval duration\n",
		"-guard-per-hour int\n",
		"(env CARDCAT_DATABASE_URL, or a file named by CARDCAT_DATABASE_URL_FILE; default empty: SQLite in the data directory)",
		"-out string\n    \twhere to write (default \"./x\")\n",
		"Variables without a flag:\n",
		"  CARDCAT_S3_ENDPOINT\n",
	} {
		if !strings.Contains(help, want) {
			t.Errorf("--help lacks %q:\n%s", want, help)
		}
	}
	if strings.Contains(help, "hunter2") || strings.Contains(help, "7777") {
		t.Errorf("--help shows the environment's values:\n%s", help)
	}
}

// TestTable: each setting is one the reference, --help and Bind can use.
func TestTable(t *testing.T) {
	names, flags, vars := map[string]bool{}, map[string]bool{}, map[string]bool{}
	c := mustBind(t, Every, nil) // every default parses (Bind panics otherwise)
	for _, s := range table {
		name := s.Name()
		if names[name] || (s.Flag != "" && flags[s.Flag]) || (s.Var != "" && vars[s.Var]) {
			t.Errorf("%s: a name, flag or variable of another setting", name)
		}
		names[name], flags[s.Flag], vars[s.Var] = true, true, true
		if s.Flag == "" && s.Var == "" || s.Commands == 0 || s.Doc == "" || s.value == nil {
			t.Errorf("%s: no flag nor variable, no commands, no doc or no value", name)
		}
		if strings.ContainsAny(s.Doc+s.DefaultDoc, "\n") {
			t.Errorf("%s: the doc is more than one line", name)
		}
		if s.Var != "" && !strings.HasPrefix(s.Var, "CARDCAT_") && s.Var != "GOGC" {
			t.Errorf("%s: variable %s is not CARDCAT_*", name, s.Var)
		}
		if s.Secret {
			// A secret is never echoed by a parse error: it has none.
			if err := s.value.set(c, "\x00 not a value", false); err != nil {
				t.Errorf("%s: a secret whose parser can fail (%v)", name, err)
			}
		}
		found := false
		for _, sec := range sections {
			found = found || sec.commands == s.Commands
		}
		if !found {
			t.Errorf("%s: no section of the reference for %v", name, s.Commands)
		}
	}
}
