package store

import "context"

// Locker is a store that can hand one named lock to one holder at a time
// among every process sharing it: the scheduled refresh takes one so that,
// of several replicas on one database, a single one ingests. Both stores
// implement it (PostgreSQL: an advisory lock; SQLite: a lock file).
type Locker interface {
	// TryLock takes the lock name without waiting: ok is false when another
	// holder (this process or another) has it. When ok, unlock releases it;
	// it is released too when the holding process dies. A lost connection
	// may release it early, so a holder still guards its writes (the
	// catalogue's version check, ErrVersionConflict).
	TryLock(ctx context.Context, name string) (unlock func(), ok bool, err error)
}
