package sqlite

import (
	"context"
	"fmt"
	"regexp"

	"github.com/cardcat/cardcat/internal/store"
)

var _ store.Locker = (*DB)(nil)

var lockName = regexp.MustCompile(`^[a-z0-9-]+$`)

// TryLock locks the file DATABASE-NAME.lock beside the database file
// (cardcat.db-catalogue-refresh.lock), so that the processes sharing one
// SQLite file, and the stores of one process opened on it, exclude each
// other. The database's own locks would not do: holding one would stop the
// very ingest the lock is taken for from writing. The file is kept after
// unlock (removing it could let two holders lock two different files).
func (db *DB) TryLock(ctx context.Context, name string) (func(), bool, error) {
	if !lockName.MatchString(name) {
		return nil, false, fmt.Errorf("sqlite: lock %q: want lower-case letters, digits and dashes", name)
	}
	var path string
	if err := db.read.QueryRowContext(ctx, `SELECT file FROM pragma_database_list WHERE name = 'main'`).Scan(&path); err != nil {
		return nil, false, fmt.Errorf("sqlite: lock %s: %w", name, err)
	}
	unlock, ok, err := lockFile(path + "-" + name + ".lock")
	if err != nil {
		return nil, false, fmt.Errorf("sqlite: lock %s: %w", name, err)
	}
	return unlock, ok, nil
}
