package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/cardcat/cardcat/internal/config"
)

func init() {
	register("config", "print the effective configuration: each setting, its value and where it came from", cmdConfig)
}

// bindConfig reads the settings of cmd from the environment and defines
// their flags on fs (internal/config's table); --help then also lists the
// settings that are only variables.
func bindConfig(env *Env, fs *flag.FlagSet, cmd config.Commands) (*config.Config, error) {
	c, err := config.Bind(cmd, fs, env.Getenv)
	if err != nil {
		return nil, err
	}
	usage := fs.Usage
	fs.Usage = func() {
		usage()
		c.PrintVariables(fs.Output())
	}
	return c, nil
}

// cmdConfig prints the configuration that every command (or the one named)
// would run with, secrets redacted, after the checks that command makes at
// start-up.
func cmdConfig(ctx context.Context, env *Env, args []string) error {
	cmd := config.Every
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		c, ok := config.CommandNamed(args[0])
		if !ok {
			return usageError{fmt.Sprintf("config: %q is not a command that reads settings", args[0])}
		}
		cmd, args = c, args[1:]
	}
	fs := newFlagSet(env, "config", "[COMMAND] [flags]")
	c, err := bindConfig(env, fs, cmd)
	if err != nil {
		return err
	}
	if err := parseFlags(fs, env, args); err != nil {
		return err
	}
	switch {
	case cmd&config.Serve != 0:
		_, err = serveSettings(env, c)
	case cmd&config.Ingest != 0:
		_, err = s3Config(c)
	}
	if err != nil {
		return err
	}
	return c.Print(env.Stdout)
}
