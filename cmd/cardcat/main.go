// Command cardcat is the card-catalogue and price API: it serves the API,
// ingests the marketplaces' files, generates sample data and manages keys.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"sort"
	"syscall"

	"github.com/cardcat/cardcat/internal/config"
	"github.com/cardcat/cardcat/internal/web/accesslog"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "cardcat:", err)
		}
		os.Exit(exitCode(err))
	}
}

func exitCode(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	var u usageError
	if errors.As(err, &u) || config.IsError(err) {
		return 2
	}
	return 1
}

// usageError is a mistake on the command line.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// Env is what every subcommand gets from the process.
type Env struct {
	Getenv func(string) string
	Stdout io.Writer
	Stderr io.Writer
	Log    *slog.Logger
	logs   *accesslog.Buffer // what Log writes to; the access log writes to it too
	logCfg config.Log
}

type command struct {
	summary string
	run     func(ctx context.Context, env *Env, args []string) error
}

// commands lists the subcommands; each lives in its own file.
var commands = map[string]command{}

func register(name, summary string, run func(ctx context.Context, env *Env, args []string) error) {
	commands[name] = command{summary: summary, run: run}
}

// run is the whole program; tests call it like main does.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	logs := accesslog.NewBuffer(stderr)
	logCtx, stopLogs := context.WithCancel(context.Background())
	flushed := make(chan struct{})
	go func() { logs.Run(logCtx); close(flushed) }()
	defer func() { stopLogs(); <-flushed }()
	logCfg := config.ReadLog(getenv)
	env := &Env{
		Getenv: getenv,
		Stdout: stdout,
		Stderr: stderr,
		Log:    newLogger(logCfg, logs),
		logs:   logs,
		logCfg: logCfg,
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stdout)
		if len(args) == 0 {
			return usageError{"a command is required"}
		}
		return nil
	}
	if args[0] == "version" || args[0] == "--version" {
		fmt.Fprintln(stdout, "cardcat", Version())
		return nil
	}
	cmd, ok := commands[args[0]]
	if !ok {
		usage(stderr)
		return usageError{fmt.Sprintf("unknown command %q", args[0])}
	}
	return cmd.run(ctx, env, args[1:])
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "Usage: cardcat <command> [flags]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "  version    print the version")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'cardcat <command> --help' for a command's flags.")
}

// newLogger is every command's logger, as CARDCAT_LOG_LEVEL and
// CARDCAT_LOG_FORMAT say (cfg).
func newLogger(cfg config.Log, w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: cfg.Level}
	var h slog.Handler = slog.NewTextHandler(w, opts)
	if cfg.JSON {
		h = slog.NewJSONHandler(w, opts)
	}
	if buf, ok := w.(*accesslog.Buffer); ok {
		h = buf.FlushOnWarn(h)
	}
	return slog.New(h)
}

// newFlagSet returns a flag set for a subcommand whose --help prints to stdout
// and whose errors are usage errors.
func newFlagSet(env *Env, name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet("cardcat "+name, flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: cardcat %s %s\n\n", name, synopsis)
		config.PrintDefaults(fs)
	}
	return fs
}

// parseFlags parses args, mapping --help to flag.ErrHelp (printed to stdout)
// and other mistakes to usage errors.
func parseFlags(fs *flag.FlagSet, env *Env, args []string) error {
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	fs.SetOutput(env.Stdout)
	if errors.Is(err, flag.ErrHelp) {
		fs.Usage()
		return flag.ErrHelp
	}
	fs.SetOutput(env.Stderr)
	if err != nil {
		return usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	}
	return nil
}
