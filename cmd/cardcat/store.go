package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/cardcat/cardcat/internal/config"
	"github.com/cardcat/cardcat/internal/store"
	"github.com/cardcat/cardcat/internal/store/postgres"
	"github.com/cardcat/cardcat/internal/store/sqlite"
)

// openStore opens the store of s (--data-dir, --database-url).
func openStore(ctx context.Context, s config.StoreConfig) (store.Store, error) {
	switch {
	case s.Postgres():
		return postgres.Open(ctx, s.DatabaseURL)
	case s.SQLite():
		return sqlite.Open(ctx, s.SQLitePath())
	default:
		return nil, usageError{fmt.Sprintf("--database-url: want postgres://..., postgresql://... or sqlite:PATH, got %q", redact(s.DatabaseURL))}
	}
}

// redact hides a password in a URL-like string.
func redact(u string) string {
	scheme, rest, ok := strings.Cut(u, "://")
	if !ok {
		return u
	}
	userinfo, host, ok := strings.Cut(rest, "@")
	if !ok {
		return u
	}
	user, _, _ := strings.Cut(userinfo, ":")
	return scheme + "://" + user + ":***@" + host
}

// storeSettings binds the settings of cmd, a command whose only settings
// are the store's (keys, accounts, backup), and returns those, which fs's
// flags set when parsed.
func storeSettings(env *Env, fs *flag.FlagSet, cmd config.Commands) (*config.StoreConfig, error) {
	c, err := bindConfig(env, fs, cmd)
	if err != nil {
		return nil, err
	}
	return &c.Store, nil
}
