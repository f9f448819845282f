package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/store/sqlrow"
)

// The portal's sessions, tokens and usage. None of their writes bumps the
// accounts version: the key directory does not hold them.

// CreateSession stores a new session.
func (db *DB) CreateSession(ctx context.Context, s *account.Session) error {
	_, err := db.pool.Exec(ctx, `INSERT INTO sessions (id_hash, account_id, created_at, last_seen_at) VALUES ($1, $2, $3, $4)`,
		s.IDHash, s.AccountID, sqlrow.Time(s.CreatedAt), sqlrow.Time(s.LastSeenAt))
	if err != nil {
		return fmt.Errorf("postgres: create session: %w", err)
	}
	return nil
}

// Session returns the session of the id hash.
func (db *DB) Session(ctx context.Context, idHash string) (*account.Session, error) {
	s, err := sqlrow.ReadSession(ctx, reader{db.pool}, `SELECT id_hash, account_id, created_at, last_seen_at FROM sessions WHERE id_hash = $1`, idHash)
	if err != nil {
		// The id hash stays out of the message: it would let a log reader
		// look the session up.
		return nil, fmt.Errorf("postgres: session: %w", err)
	}
	return s, nil
}

// TouchSession moves the session's LastSeenAt to at; ErrNotFound when there
// is no such session.
func (db *DB) TouchSession(ctx context.Context, idHash string, at time.Time) error {
	tag, err := db.pool.Exec(ctx, `UPDATE sessions SET last_seen_at = $1 WHERE id_hash = $2`, sqlrow.Time(at), idHash)
	if err == nil && tag.RowsAffected() == 0 {
		err = account.ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("postgres: touch session: %w", err)
	}
	return nil
}

// DeleteSession deletes one session; none is not an error.
func (db *DB) DeleteSession(ctx context.Context, idHash string) error {
	if _, err := db.pool.Exec(ctx, `DELETE FROM sessions WHERE id_hash = $1`, idHash); err != nil {
		return fmt.Errorf("postgres: delete session: %w", err)
	}
	return nil
}

// DeleteSessions deletes every session of the account.
func (db *DB) DeleteSessions(ctx context.Context, accountID int64) error {
	if _, err := db.pool.Exec(ctx, `DELETE FROM sessions WHERE account_id = $1`, accountID); err != nil {
		return fmt.Errorf("postgres: delete sessions of account %d: %w", accountID, err)
	}
	return nil
}

// CreateToken stores a one-time token.
func (db *DB) CreateToken(ctx context.Context, t *account.Token) error {
	_, err := db.pool.Exec(ctx, `INSERT INTO tokens (hash, account_id, purpose, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)`,
		t.Hash, t.AccountID, t.Purpose, sqlrow.Time(t.CreatedAt), sqlrow.Time(t.ExpiresAt))
	if err != nil {
		return fmt.Errorf("postgres: create token: %w", err)
	}
	return nil
}

// UseToken deletes and returns the token of hash and purpose in one
// statement, so that it works once: of two concurrent uses, the second
// waits for the first's row lock and then finds the row gone.
func (db *DB) UseToken(ctx context.Context, hash, purpose string) (*account.Token, error) {
	t, err := sqlrow.ReadToken(ctx, reader{db.pool}, `DELETE FROM tokens WHERE hash = $1 AND purpose = $2
RETURNING hash, account_id, purpose, created_at, expires_at`, hash, purpose)
	if err != nil {
		return nil, fmt.Errorf("postgres: use %s token: %w", purpose, err)
	}
	return t, nil
}

// DeleteTokens deletes every token of the account of purpose.
func (db *DB) DeleteTokens(ctx context.Context, accountID int64, purpose string) error {
	if _, err := db.pool.Exec(ctx, `DELETE FROM tokens WHERE account_id = $1 AND purpose = $2`, accountID, purpose); err != nil {
		return fmt.Errorf("postgres: delete %s tokens of account %d: %w", purpose, accountID, err)
	}
	return nil
}

// AddUsage adds each entry's counts to its account's hour, in one
// transaction. Each Hour is truncated to the start of its UTC hour; entries
// without counts are skipped.
func (db *DB) AddUsage(ctx context.Context, u []account.Usage) error {
	rows := sqlrow.UsageRows(u)
	if len(rows) == 0 {
		return nil
	}
	return db.tx(ctx, "add usage", func(tx pgx.Tx) error {
		var b pgx.Batch
		for _, e := range rows {
			b.Queue(`INSERT INTO usage_hours (account_id, hour, requests, refused) VALUES ($1, $2, $3, $4)
ON CONFLICT (account_id, hour) DO UPDATE SET requests = usage_hours.requests + excluded.requests, refused = usage_hours.refused + excluded.refused`,
				e.AccountID, e.Hour, e.Requests, e.Refused)
		}
		return tx.SendBatch(ctx, &b).Close()
	})
}

// MarkKeysUsed moves each key's LastUsedAt forward to At, never back, in one
// transaction. Unknown keys and zero times are skipped.
func (db *DB) MarkKeysUsed(ctx context.Context, uses []account.KeyUse) error {
	rows := sqlrow.KeyUses(uses)
	if len(rows) == 0 {
		return nil
	}
	return db.tx(ctx, "mark keys used", func(tx pgx.Tx) error {
		var b pgx.Batch
		for _, u := range rows {
			// greatest ignores NULL (never used).
			b.Queue(`UPDATE api_keys SET last_used_at = greatest(last_used_at, $1) WHERE id = $2`, u.At, u.KeyID)
		}
		return tx.SendBatch(ctx, &b).Close()
	})
}

// UsageBetween returns the account's hours in [from, to), oldest first.
func (db *DB) UsageBetween(ctx context.Context, accountID int64, from, to time.Time) ([]account.Usage, error) {
	u, err := sqlrow.ReadUsage(ctx, reader{db.pool}, `SELECT account_id, hour, requests, refused FROM usage_hours
WHERE account_id = $1 AND hour >= $2 AND hour < $3 ORDER BY hour`, accountID, from, to)
	if err != nil {
		return nil, fmt.Errorf("postgres: usage of account %d: %w", accountID, err)
	}
	return u, nil
}
