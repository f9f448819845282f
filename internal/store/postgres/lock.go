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
	var ok bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, lockKey(schema, name)).Scan(&ok); err != nil {
		closeConn(conn)
		return nil, false, fmt.Errorf("postgres: lock %s: %w", name, err)
	}
	if !ok {
		closeConn(conn)
		return nil, false, nil
	}
	// Closing the session releases its advisory locks: no unlock call that
	// could fail on a broken connection.
	return func() { closeConn(conn) }, true, nil
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
