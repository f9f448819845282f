package postgres

import (
	"context"
	"fmt"
	"hash/fnv"
	"time"

	"github.com/cardcat/cardcat/internal/store"
	"github.com/jackc/pgx/v5"
)

var _ store.Locker = (*DB)(nil)

// TryLock takes a session-level advisory lock on a connection of its own,
// outside the pool, held until unlock: the pool's connections come and go,
// and a lock taken on one would be released, or kept, with it. The key is
// a hash of the schema and name, so that deployments sharing a database in
// different schemas do not exclude each other. PostgreSQL releases the lock
// when the connection ends, so a replica that dies frees it.
func (db *DB) TryLock(ctx context.Context, name string) (func(), bool, error) {
	conn, err := pgx.ConnectConfig(ctx, db.pool.Config().ConnConfig.Copy())
	if err != nil {
		return nil, false, fmt.Errorf("postgres: lock %s: %w", name, err)
	}
	var schema string
	if err := conn.QueryRow(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		closeConn(conn)
		return nil, false, fmt.Errorf("postgres: lock %s: %w", name, err)
	}
	key := lockKey(schema, name)
	var ok bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, key).Scan(&ok); err != nil {
		closeConn(conn)
		return nil, false, fmt.Errorf("postgres: lock %s: %w", name, err)
	}
	if !ok {
		closeConn(conn)
		return nil, false, nil
	}
	return func() { unlockConn(conn, key) }, true, nil
}

// unlockConn releases the lock, then closes its connection. Closing alone
// releases it too (a broken connection needs nothing more), but only once the
// server has noticed the session's end, a moment after the close returns: a
// TryLock right after an unlock could find the lock still held.
func unlockConn(conn *pgx.Conn, key int64) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn.Exec(ctx, `SELECT pg_advisory_unlock($1)`, key) // on failure the close releases it
	conn.Close(ctx)
}

// lockKey is the advisory lock's 64-bit key of name in schema.
func lockKey(schema, name string) int64 {
	h := fnv.New64a()
	h.Write([]byte("cardcat\x00" + schema + "\x00" + name))
	return int64(h.Sum64())
}

func closeConn(conn *pgx.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn.Close(ctx)
}
