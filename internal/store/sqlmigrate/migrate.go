// Package sqlmigrate runs numbered SQL migrations, the same way for every SQL
// store: files named NNNN_name.sql, applied in order, each in its own
// transaction, and a database whose schema is newer than the program refused.
// The stores supply the dialect through Target.
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

// Target is a database to migrate.
type Target interface {
	// Applied creates the schema_migrations table when it is missing and
	// returns the highest version it records, 0 when none.
	Applied(ctx context.Context) (int, error)
	// Apply runs m and records it in schema_migrations, in one transaction.
	// It does nothing when m is already recorded (another process got there
	// first).
	Apply(ctx context.Context, m Migration) error
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
	applied, err := t.Applied(ctx)
	if err != nil {
		return fmt.Errorf("sqlmigrate: %w", err)
	}
	if applied > len(ms) {
		return fmt.Errorf("sqlmigrate: schema version %d, this cardcat knows up to %d: %w", applied, len(ms), ErrSchemaTooNew)
	}
	for _, m := range ms[applied:] {
		if err := t.Apply(ctx, m); err != nil {
			return fmt.Errorf("sqlmigrate: %s: %w", m.Name, err)
		}
	}
	return nil
}
