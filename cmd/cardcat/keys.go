package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/account/accountcli"
	"github.com/cardcat/cardcat/internal/config"
)

func init() {
	register("keys", "create, list and revoke API keys", cmdKeys)
	register("accounts", "list accounts; show one's usage; change its plan, limits, trial or verification", cmdAccounts)
}

// accountStore opens the configured store as an account store.
func accountStore(ctx context.Context, sf *config.StoreConfig) (account.Store, func(), error) {
	st, err := openStore(ctx, *sf)
	if err != nil {
		return nil, nil, err
	}
	as, ok := st.(account.Store)
	if !ok {
		st.Close()
		return nil, nil, fmt.Errorf("the %s store keeps no accounts", sf.Describe())
	}
	return as, func() { st.Close() }, nil
}

func subcommand(env *Env, group string, args []string, subs map[string]func([]string) error, synopsis string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintf(env.Stdout, "Usage: cardcat %s %s\n", group, synopsis)
		if len(args) == 0 {
			return usageError{"cardcat " + group + ": a subcommand is required"}
		}
		return flag.ErrHelp
	}
	run, ok := subs[args[0]]
	if !ok {
		return usageError{fmt.Sprintf("cardcat %s: unknown subcommand %q (%s)", group, args[0], synopsis)}
	}
	return run(args[1:])
}

func cmdKeys(ctx context.Context, env *Env, args []string) error {
	return accountCommands(ctx, env, "keys", args, accountcli.Keys, "create|list|revoke [flags]")
}

func cmdAccounts(ctx context.Context, env *Env, args []string) error {
	return accountCommands(ctx, env, "accounts", args, accountcli.Accounts, "list|usage|set-plan|start-trial|verify [flags]")
}

// accountCommands runs one of the commands of internal/account/accountcli:
// its flags and the store's parsed here, the store opened when it asks.
func accountCommands(ctx context.Context, env *Env, group string, args []string, cmds []accountcli.Command, synopsis string) error {
	subs := map[string]func([]string) error{}
	for _, c := range cmds {
		subs[c.Name[len(group)+1:]] = func(args []string) error { return runAccountCommand(ctx, env, c, args) }
	}
	return subcommand(env, group, args, subs, synopsis)
}

func runAccountCommand(ctx context.Context, env *Env, c accountcli.Command, args []string) error {
	fs := newFlagSet(env, c.Name, c.Synopsis)
	sf, err := storeSettings(env, fs, c.Store)
	if err != nil {
		return err
	}
	run := c.Bind(fs)
	if c.Positional {
		fs.SetOutput(env.Stderr)
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return err
			}
			return usageError{err.Error()}
		}
	} else if err := parseFlags(fs, env, args); err != nil {
		return err
	}
	err = run(ctx, accountcli.Env{Stdout: env.Stdout, Stderr: env.Stderr,
		Open: func() (account.Store, func(), error) { return accountStore(ctx, sf) }}, fs.Args())
	var ue accountcli.UsageError
	if errors.As(err, &ue) {
		return usageError{ue.Error()}
	}
	return err
}
