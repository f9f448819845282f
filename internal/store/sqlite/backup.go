package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
)

// Why Backup refused, before it wrote anything: mistakes in its paths, which
// the caller words in its own terms (the backup command names its flags).
var (
	ErrNoDatabase     = errors.New("no database file")
	ErrBackupIsSource = errors.New("the backup file is the database itself")
	ErrBackupIsDir    = errors.New("the backup file is a directory")
	ErrBackupNoDir    = errors.New("the backup file's directory does not exist")
	ErrBackupExists   = errors.New("the backup file exists")
)

// BackupSummary is what a backup holds, read from the written file.
type BackupSummary struct {
	Bytes     int64 // the file's size
	Schema    int64 // the last migration applied
	Catalogue int64 // the catalogue version
	Accounts  int64
	Keys      int64 // active (unrevoked) keys
}

// Backup copies the database at src to out with VACUUM INTO: one read
// transaction, so the copy is the database as of one commit while writers go
// on (WAL), where copying the files could catch a commit halfway. The
// catalogue file's tables are then copied into it, as of one commit of that
// file: the backup is one file, in the layout before migration 0016, which
// Open splits again when it is restored. It opens src without migrating it (a
// backup taken before an upgrade must be of the old schema), writes beside
// out and renames into place once the copy is checked, so that out is a whole
// backup or nothing. An existing out is replaced only when replace is set.
func Backup(ctx context.Context, src, out string, replace bool) (BackupSummary, error) {
	var sum BackupSummary
	si, err := os.Stat(src)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return sum, fmt.Errorf("backup: %s: %w", src, ErrNoDatabase)
	case err != nil:
		return sum, fmt.Errorf("backup: %w", err)
	case !si.Mode().IsRegular():
		return sum, fmt.Errorf("backup: %s is not a database file", src)
	}
	oi, err := os.Stat(out)
	switch {
	case err == nil && os.SameFile(si, oi):
		return sum, fmt.Errorf("backup: %s: %w", out, ErrBackupIsSource)
	case err == nil && oi.IsDir():
		return sum, fmt.Errorf("backup: %s: %w", out, ErrBackupIsDir)
	case err == nil && !replace:
		return sum, fmt.Errorf("backup: %s: %w", out, ErrBackupExists)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return sum, fmt.Errorf("backup: %w", err)
	}
	dir := filepath.Dir(out)
	if di, err := os.Stat(dir); err != nil || !di.IsDir() {
		return sum, fmt.Errorf("backup: %s: %w", dir, ErrBackupNoDir)
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
			removeDatabaseFiles(tmp)
		}
	}()

	db, err := openExisting(src, "rw")
	if err != nil {
		return sum, err
	}
	_, err = db.ExecContext(ctx, `VACUUM INTO ?`, tmp)
	db.Close()
	if err != nil {
		return sum, fmt.Errorf("backup: copying %s: %w", src, err)
	}
	if err := mergeCatalogue(ctx, src, tmp); err != nil {
		return sum, err
	}
	if sum, err = checkBackup(ctx, tmp); err != nil {
		return sum, err
	}
	if err := syncPath(tmp); err != nil {
		return sum, fmt.Errorf("backup: %w", err)
	}
	if err := placeBackup(tmp, out, replace); err != nil {
		return sum, err
	}
	done = true
	if err := syncPath(dir); err != nil {
		return sum, fmt.Errorf("backup: %w", err)
	}
	return sum, nil
}

// mergeCatalogue copies into the backup at tmp the tables of src's catalogue
// file, in one read transaction of that file. A table the backup holds
// already (a store not yet split, or split halfway: see moveCatalogue) is the
// one Open keeps, and is not copied.
func mergeCatalogue(ctx context.Context, src, tmp string) error {
	catalogue := CataloguePath(src)
	if _, err := os.Stat(catalogue); errors.Is(err, fs.ErrNotExist) {
		return nil // a store made before the catalogue file
	}
	db, err := openExisting(tmp, "rw")
	if err != nil {
		return err
	}
	defer db.Close()
	// The copy is the backup's own file until it is checked and synced:
	// no journal (VACUUM INTO left it in WAL mode, which wrote the catalogue
	// twice: 33 s instead of 16 at a million cards), a failure deletes it.
	for _, pragma := range []string{"journal_mode = OFF", "synchronous = OFF", "cache_size = -65536"} {
		if _, err := db.ExecContext(ctx, `PRAGMA `+pragma); err != nil {
			return fmt.Errorf("backup: %w", err)
		}
	}
	abs, err := filepath.Abs(catalogue)
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	if _, err := db.ExecContext(ctx, `ATTACH DATABASE ? AS `+catalogueSchema, fileDSN(abs, url.Values{"mode": {"ro"}})); err != nil {
		return fmt.Errorf("backup: open %s: %w", catalogue, err)
	}
	err = inTx(ctx, db, func(tx *sql.Tx) error {
		have, err := schemaOf(ctx, tx, "main")
		if err != nil {
			return err
		}
		objs, err := schemaOf(ctx, tx, catalogueSchema)
		if err != nil {
			return err
		}
		for _, o := range objs { // tables first: each filled before its indexes are made
			if slices.ContainsFunc(have, func(h schemaObject) bool { return h.kind == "table" && h.name == o.table }) {
				continue
			}
			if _, err := tx.ExecContext(ctx, o.sql); err != nil {
				return fmt.Errorf("%s: %w", o.name, err)
			}
			if o.kind == "table" {
				if _, err := tx.ExecContext(ctx, `INSERT INTO main.`+o.name+` SELECT * FROM `+catalogueSchema+`.`+o.name); err != nil {
					return fmt.Errorf("copy %s: %w", o.name, err)
				}
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("backup: copying %s: %w", catalogue, err)
	}
	return nil
}

// openExisting opens an existing database file (mode rw or ro), never
// creating it, with the store's busy timeout (a writer's commit holds the
// lock for a moment) and none of its other pragmas: the copy must not
// change the file it copies.
func openExisting(path, mode string) (*sql.DB, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("backup: %w", err)
	}
	db, err := sql.Open("sqlite", fileDSN(abs, url.Values{"mode": {mode}, "_pragma": {"busy_timeout(10000)"}}))
	if err != nil {
		return nil, fmt.Errorf("backup: open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

// checkBackup checks the copy page by page and reads what it holds. The copy
// leaves WAL mode for a rollback journal: one self-contained file to move
// around (the store turns WAL back on when it opens it).
func checkBackup(ctx context.Context, path string) (BackupSummary, error) {
	var sum BackupSummary
	db, err := openExisting(path, "rw")
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
		{&sum.Schema, `SELECT coalesce(max(version), 0) FROM schema_migrations`},
		{&sum.Catalogue, `SELECT coalesce(max(version), 0) FROM catalog_versions`},
		{&sum.Accounts, `SELECT count(*) FROM accounts`},
		{&sum.Keys, `SELECT count(*) FROM api_keys WHERE revoked_at = 0`},
	} {
		if err := db.QueryRowContext(ctx, q.sql).Scan(q.to); err != nil {
			return sum, fmt.Errorf("backup: the copy is not a cardcat store: %w", err)
		}
	}
	fi, err := os.Stat(path)
	if err != nil {
		return sum, fmt.Errorf("backup: %w", err)
	}
	sum.Bytes = fi.Size()
	return sum, nil
}

// placeBackup moves the finished copy to out: a hard link when out must not
// be replaced (it fails if out appeared meanwhile), a rename otherwise.
func placeBackup(tmp, out string, replace bool) error {
	if replace {
		if err := os.Rename(tmp, out); err != nil {
			return fmt.Errorf("backup: %w", err)
		}
		return nil
	}
	err := os.Link(tmp, out)
	switch {
	case errors.Is(err, fs.ErrExist):
		return fmt.Errorf("backup: %s: %w", out, ErrBackupExists)
	case err != nil:
		// A file system without hard links: the check before the copy stands.
		if _, serr := os.Lstat(out); serr == nil {
			return fmt.Errorf("backup: %s: %w", out, ErrBackupExists)
		}
		if err := os.Rename(tmp, out); err != nil {
			return fmt.Errorf("backup: %w", err)
		}
		return nil
	}
	return os.Remove(tmp)
}

// removeDatabaseFiles removes a database file and the journal files SQLite
// may have left beside it.
func removeDatabaseFiles(path string) {
	for _, suffix := range []string{"", "-journal", "-wal", "-shm"} {
		os.Remove(path + suffix)
	}
}

// syncPath flushes a file or directory to disk.
func syncPath(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}
