package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/cardcat/cardcat/internal/config"
	"github.com/cardcat/cardcat/internal/store/sqlite"
)

func init() {
	register("backup", "write a consistent copy of the SQLite store while servers run (PostgreSQL: pg_dump)", cmdBackup)
}

func cmdBackup(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "backup", "--out FILE [--force]")
	sf, err := storeSettings(env, fs, config.Backup)
	if err != nil {
		return err
	}
	out := fs.String("out", "", "the file to write the backup to: a SQLite database, restored by putting it in place of the store's file")
	force := fs.Bool("force", false, "replace --out when it exists")
	if err := parseFlags(fs, env, args); err != nil {
		return err
	}
	if *out == "" {
		return usageError{"backup: --out FILE is required"}
	}
	switch {
	case sf.Postgres():
		return usageError{"backup: the store is PostgreSQL; back it up with pg_dump (docs/operations.md, \"Backups and restore\")"}
	case !sf.SQLite():
		return usageError{fmt.Sprintf("--database-url: want postgres://..., postgresql://... or sqlite:PATH, got %q", redact(sf.DatabaseURL))}
	}
	src := sf.SQLitePath()
	start := time.Now()
	sum, err := sqlite.Backup(ctx, src, *out, *force)
	switch {
	case errors.Is(err, sqlite.ErrNoDatabase):
		return fmt.Errorf("backup: no SQLite store at %s (set --data-dir, or --database-url sqlite:PATH)", src)
	case errors.Is(err, sqlite.ErrBackupIsSource):
		return usageError{fmt.Sprintf("backup: --out %s is the store itself", *out)}
	case errors.Is(err, sqlite.ErrBackupIsDir):
		return fmt.Errorf("backup: --out %s is a directory; name a file", *out)
	case errors.Is(err, sqlite.ErrBackupNoDir):
		return fmt.Errorf("backup: --out: no directory %s", filepath.Dir(*out))
	case errors.Is(err, sqlite.ErrBackupExists):
		return fmt.Errorf("backup: %s exists; pass --force to replace it", *out)
	case err != nil:
		return err
	}
	fmt.Fprintf(env.Stdout, "backup of sqlite %s written to %s: %.1f MB in %s; schema %d, catalogue version %d, accounts %d, active keys %d\n",
		src, *out, float64(sum.Bytes)/1e6, time.Since(start).Round(time.Millisecond), sum.Schema, sum.Catalogue, sum.Accounts, sum.Keys)
	return nil
}
