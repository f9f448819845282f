// Package sqlmigrate runs numbered SQL migrations, the same way for every SQL
// store: files named NNNN_name.sql, applied in order, each in its own
// transaction and recorded in a schema_migrations table, and a database whose
// schema is newer than the program refused. The stores supply the dialect
// through Target.
package sqlmigrate

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
)

// ErrSchemaTooNew is returned when the database records a migration this
// program does not know: a newer cardcat wrote it, and running an older one
// against it could corrupt data.
var ErrSchemaTooNew = errors.New("database schema is newer than this cardcat: upgrade cardcat")

// Migration is one numbered schema change.
type Migration struct {
	Version int
	Name    string // file name, for messages and the schema_migrations table
	SQL     string
}

// Target is a database to migrate, in its dialect.
type Target interface {
	// InTx runs fn in one transaction, committed when fn returns nil. The
	// transactions of processes migrating the same database run one at a
	// time (replicas starting together), so that each migration is applied
	// once.
	InTx(ctx context.Context, fn func(Tx) error) error
	// Dialect returns the SQL of the schema_migrations table.
	Dialect() Dialect
}

// Dialect is the SQL of the schema_migrations table (version, name,
// applied_at) in one dialect.
type Dialect struct {
	// Create creates the table when it is missing.
	Create string
	// Count counts the rows of the version given as its one parameter.
	Count string
	// Record inserts a row of the version and name given as its parameters.
	Record string
}

// Tx is a transaction of a Target.
type Tx interface {
	// Exec runs query. Without args it may hold several statements (a
	// migration file).
	Exec(ctx context.Context, query string, args ...any) error
	// Int runs query and scans the one column of its one row.
	Int(ctx context.Context, query string, args ...any) (int, error)
}

const appliedVersion = `SELECT coalesce(max(version), 0) FROM schema_migrations`

// Migrate applies the migrations in dir of fsys that t has not applied yet;
// see Load and Run.
func Migrate(ctx context.Context, t Target, fsys fs.FS, dir string) error {
	ms, err := Load(fsys, dir)
	if err != nil {
		return err
	}
	return Run(ctx, t, ms)
}

// Load reads the migrations in dir of fsys. Their versions must be 1, 2, 3, ...
// without gaps, so that a missing file is noticed before it is needed.
func Load(fsys fs.FS, dir string) ([]Migration, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("sqlmigrate: load: %w", err)
	}
	var ms []Migration
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".sql") {
			continue
		}
		num, _, ok := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("sqlmigrate: load: %s: name is not NNNN_name.sql", name)
		}
		b, err := fs.ReadFile(fsys, path.Join(dir, name))
		if err != nil {
			return nil, fmt.Errorf("sqlmigrate: load: %w", err)
		}
		ms = append(ms, Migration{Version: v, Name: name, SQL: string(b)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].Version < ms[j].Version })
	for i, m := range ms {
		if m.Version != i+1 {
			return nil, fmt.Errorf("sqlmigrate: load: %s: expected version %d", m.Name, i+1)
		}
	}
	return ms, nil
}

// Run applies, in order, the migrations (as Load returns them) that t has not
// applied yet. It returns an error wrapping ErrSchemaTooNew, and changes
// nothing, when t records a version beyond the last of ms.
func Run(ctx context.Context, t Target, ms []Migration) error {
	d := t.Dialect()
	var applied int
	err := t.InTx(ctx, func(tx Tx) error {
		if err := tx.Exec(ctx, d.Create); err != nil {
			return fmt.Errorf("create schema_migrations: %w", err)
		}
		var err error
		if applied, err = tx.Int(ctx, appliedVersion); err != nil {
			return fmt.Errorf("read schema_migrations: %w", err)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("sqlmigrate: %w", err)
	}
	if applied > len(ms) {
		return fmt.Errorf("sqlmigrate: schema version %d, this cardcat knows up to %d: %w", applied, len(ms), ErrSchemaTooNew)
	}
	for _, m := range ms[applied:] {
		if err := t.InTx(ctx, func(tx Tx) error { return apply(ctx, tx, d, m) }); err != nil {
			return fmt.Errorf("sqlmigrate: %s: %w", m.Name, err)
		}
	}
	return nil
}

// apply runs m and records it, unless another process got there first.
func apply(ctx context.Context, tx Tx, d Dialect, m Migration) error {
	n, err := tx.Int(ctx, d.Count, m.Version)
	if err != nil || n > 0 {
		return err
	}
	if err := tx.Exec(ctx, m.SQL); err != nil {
		return err
	}
	return tx.Exec(ctx, d.Record, m.Version, m.Name)
}
