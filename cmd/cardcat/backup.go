package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/cardcat/cardcat/internal/config"
	_ "modernc.org/sqlite" // the "sqlite" driver, as the store uses it
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
	sum, err := backupSQLite(ctx, src, *out, *force)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "backup of sqlite %s written to %s: %.1f MB in %s; schema %d, catalogue version %d, accounts %d, active keys %d\n",
		src, *out, float64(sum.bytes)/1e6, time.Since(start).Round(time.Millisecond), sum.schema, sum.catalogue, sum.accounts, sum.keys)
	return nil
}

// backupSummary is what a backup holds, read from the written file.
type backupSummary struct {
	bytes                             int64
	schema, catalogue, accounts, keys int64
}

// backupSQLite copies the database at src to out with VACUUM INTO: one read
// transaction, so the copy is the database as of one commit while writers go
// on (WAL), where copying the files could catch a commit halfway. It opens
// src without migrating it (a backup taken before an upgrade must be of the
// old schema), writes beside out and renames into place once the copy is
// checked, so that out is a whole backup or nothing.
func backupSQLite(ctx context.Context, src, out string, force bool) (backupSummary, error) {
	var sum backupSummary
	si, err := os.Stat(src)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return sum, fmt.Errorf("backup: no SQLite store at %s (set --data-dir, or --database-url sqlite:PATH)", src)
	case err != nil:
		return sum, fmt.Errorf("backup: %w", err)
	case !si.Mode().IsRegular():
		return sum, fmt.Errorf("backup: %s is not a database file", src)
	}
	oi, err := os.Stat(out)
	switch {
	case err == nil && os.SameFile(si, oi):
		return sum, usageError{fmt.Sprintf("backup: --out %s is the store itself", out)}
	case err == nil && oi.IsDir():
		return sum, fmt.Errorf("backup: --out %s is a directory; name a file", out)
	case err == nil && !force:
		return sum, fmt.Errorf("backup: %s exists; pass --force to replace it", out)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return sum, fmt.Errorf("backup: --out: %w", err)
	}
	dir := filepath.Dir(out)
	if di, err := os.Stat(dir); err != nil || !di.IsDir() {
		return sum, fmt.Errorf("backup: --out: no directory %s", dir)
	}

	// VACUUM INTO wants a file that does not exist or is empty: an empty
	// temporary file, so that no other writer can take the name.
	tmpf, err := os.CreateTemp(dir, "."+filepath.Base(out)+".*.tmp")
	if err != nil {
		return sum, fmt.Errorf("backup: %w", err)
	}
	tmp := tmpf.Name()
	tmpf.Close()
	done := false
	defer func() {
		if !done {
			removeSQLiteFiles(tmp)
		}
	}()

	db, err := openSQLiteFile(src, "rw")
	if err != nil {
		return sum, err
	}
	_, err = db.ExecContext(ctx, `VACUUM INTO ?`, tmp)
	db.Close()
	if err != nil {
		return sum, fmt.Errorf("backup: copying %s: %w", src, err)
	}
	if sum, err = checkBackup(ctx, tmp); err != nil {
		return sum, err
	}
	if err := syncFile(tmp); err != nil {
		return sum, fmt.Errorf("backup: %w", err)
	}
	if err := placeFile(tmp, out, force); err != nil {
		return sum, err
	}
	done = true
	if err := syncFile(dir); err != nil {
		return sum, fmt.Errorf("backup: %w", err)
	}
	return sum, nil
}

// openSQLiteFile opens an existing database file (mode rw or ro), never
// creating it, with the store's busy timeout: a writer's commit holds the
// lock for a moment.
func openSQLiteFile(path, mode string) (*sql.DB, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("backup: %w", err)
	}
	q := url.Values{"mode": {mode}, "_pragma": {"busy_timeout(10000)"}}
	dsn := "file:" + (&url.URL{Path: filepath.ToSlash(abs)}).EscapedPath() + "?" + q.Encode()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("backup: open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

// checkBackup checks the copy page by page and reads what it holds. The copy
// leaves WAL mode for a rollback journal: one self-contained file to move
// around (the store turns WAL back on when it opens it).
func checkBackup(ctx context.Context, path string) (backupSummary, error) {
	var sum backupSummary
	db, err := openSQLiteFile(path, "rw")
	if err != nil {
		return sum, err
	}
	defer db.Close()
	var mode, check string
	if err := db.QueryRowContext(ctx, `PRAGMA journal_mode=DELETE`).Scan(&mode); err != nil {
		return sum, fmt.Errorf("backup: checking the copy: %w", err)
	}
	if err := db.QueryRowContext(ctx, `PRAGMA quick_check`).Scan(&check); err != nil {
		return sum, fmt.Errorf("backup: checking the copy: %w", err)
	}
	if check != "ok" {
		return sum, fmt.Errorf("backup: the copy fails SQLite's quick_check: %s", check)
	}
	for _, q := range []struct {
		to  *int64
		sql string
	}{
		{&sum.schema, `SELECT coalesce(max(version), 0) FROM schema_migrations`},
		{&sum.catalogue, `SELECT coalesce(max(version), 0) FROM catalog_versions`},
		{&sum.accounts, `SELECT count(*) FROM accounts`},
		{&sum.keys, `SELECT count(*) FROM api_keys WHERE revoked_at = 0`},
	} {
		if err := db.QueryRowContext(ctx, q.sql).Scan(q.to); err != nil {
			return sum, fmt.Errorf("backup: the copy is not a cardcat store: %w", err)
		}
	}
	fi, err := os.Stat(path)
	if err != nil {
		return sum, fmt.Errorf("backup: %w", err)
	}
	sum.bytes = fi.Size()
	return sum, nil
}

// placeFile moves the finished copy to out: a hard link when out must not be
// replaced (it fails if out appeared meanwhile), a rename otherwise.
func placeFile(tmp, out string, force bool) error {
	if force {
		if err := os.Rename(tmp, out); err != nil {
			return fmt.Errorf("backup: %w", err)
		}
		return nil
	}
	err := os.Link(tmp, out)
	switch {
	case errors.Is(err, fs.ErrExist):
		return fmt.Errorf("backup: %s exists; pass --force to replace it", out)
	case err != nil:
		// A file system without hard links: the check before the copy stands.
		if _, serr := os.Lstat(out); serr == nil {
			return fmt.Errorf("backup: %s exists; pass --force to replace it", out)
		}
		if err := os.Rename(tmp, out); err != nil {
			return fmt.Errorf("backup: %w", err)
		}
		return nil
	}
	return os.Remove(tmp)
}

// removeSQLiteFiles removes a database file and the journal files SQLite
// may have left beside it.
func removeSQLiteFiles(path string) {
	for _, suffix := range []string{"", "-journal", "-wal", "-shm"} {
		os.Remove(path + suffix)
	}
}

// syncFile flushes a file or directory to disk.
func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}
