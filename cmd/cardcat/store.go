package main

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/cardcat/cardcat/internal/store"
	"github.com/cardcat/cardcat/internal/store/postgres"
	"github.com/cardcat/cardcat/internal/store/sqlite"
)

// storeFlags are the store settings of every command that opens the store:
// the environment's (CARDCAT_DATA_DIR, CARDCAT_DATABASE_URL or its _FILE),
// then the flags', which win.
type storeFlags struct {
	dataDir     string
	databaseURL string
}

func addStoreFlags(fs *flag.FlagSet, env *Env) (*storeFlags, error) {
	f := &storeFlags{dataDir: envOr(env.Getenv, "CARDCAT_DATA_DIR", "./data")}
	var err error
	// The URL may hold a password: it is read from the environment here,
	// never shown by --help as a flag default.
	if f.databaseURL, err = envSecret(env.Getenv, "CARDCAT_DATABASE_URL"); err != nil {
		return nil, err
	}
	fs.StringVar(&f.dataDir, "data-dir", f.dataDir,
		"directory for the SQLite database, limiter state and image cache (env CARDCAT_DATA_DIR)")
	fs.Func("database-url", "postgres://... for PostgreSQL, sqlite:PATH for SQLite elsewhere; SQLite in the data directory when empty (env CARDCAT_DATABASE_URL, or a file named by CARDCAT_DATABASE_URL_FILE)",
		func(v string) error { f.databaseURL = v; return nil })
	return f, nil
}

// describe names the store for logs without its password.
func (f *storeFlags) describe() string {
	if isPostgresURL(f.databaseURL) {
		return "postgres"
	}
	return "sqlite " + f.sqlitePath()
}

func isPostgresURL(u string) bool {
	return strings.HasPrefix(u, "postgres://") || strings.HasPrefix(u, "postgresql://")
}

func (f *storeFlags) sqlitePath() string {
	if p, ok := strings.CutPrefix(f.databaseURL, "sqlite:"); ok {
		return strings.TrimPrefix(p, "//")
	}
	return filepath.Join(f.dataDir, "cardcat.db")
}

// open opens the configured store.
func (f *storeFlags) open(ctx context.Context) (store.Store, error) {
	switch {
	case isPostgresURL(f.databaseURL):
		return postgres.Open(ctx, f.databaseURL)
	case f.databaseURL == "" || strings.HasPrefix(f.databaseURL, "sqlite:"):
		return sqlite.Open(ctx, f.sqlitePath())
	default:
		return nil, usageError{fmt.Sprintf("--database-url: want postgres://..., postgresql://... or sqlite:PATH, got %q", redact(f.databaseURL))}
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
