package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/store/sqlrow"
)

// The portal's sessions, tokens and usage. None of their writes bumps the
// accounts version: the key directory does not hold them.

// CreateSession stores a new session.
func (db *DB) CreateSession(ctx context.Context, s *account.Session) error {
	_, err := db.write.ExecContext(ctx, `INSERT INTO sessions (id_hash, account_id, created_at, last_seen_at) VALUES (?, ?, ?, ?)`,
		s.IDHash, s.AccountID, micros(s.CreatedAt), micros(s.LastSeenAt))
	if err != nil {
		return fmt.Errorf("sqlite: create session: %w", err)
	}
	return nil
}

// Session returns the session of the id hash.
func (db *DB) Session(ctx context.Context, idHash string) (*account.Session, error) {
	s, err := sqlrow.ReadSession(ctx, reader{db.read}, `SELECT id_hash, account_id, created_at, last_seen_at FROM sessions WHERE id_hash = ?`, idHash)
	if err != nil {
		// The id hash stays out of the message: it would let a log reader
		// look the session up.
		return nil, fmt.Errorf("sqlite: session: %w", err)
	}
	return s, nil
}

// TouchSession moves the session's LastSeenAt to at; ErrNotFound when there
// is no such session.
func (db *DB) TouchSession(ctx context.Context, idHash string, at time.Time) error {
	res, err := db.write.ExecContext(ctx, `UPDATE sessions SET last_seen_at = ? WHERE id_hash = ?`, micros(at), idHash)
	if err == nil {
		if n, _ := res.RowsAffected(); n == 0 {
			err = account.ErrNotFound
		}
	}
	if err != nil {
		return fmt.Errorf("sqlite: touch session: %w", err)
	}
	return nil
}

// DeleteSession deletes one session; none is not an error.
func (db *DB) DeleteSession(ctx context.Context, idHash string) error {
	if _, err := db.write.ExecContext(ctx, `DELETE FROM sessions WHERE id_hash = ?`, idHash); err != nil {
		return fmt.Errorf("sqlite: delete session: %w", err)
	}
	return nil
}

// DeleteSessions deletes every session of the account.
func (db *DB) DeleteSessions(ctx context.Context, accountID int64) error {
	if _, err := db.write.ExecContext(ctx, `DELETE FROM sessions WHERE account_id = ?`, accountID); err != nil {
		return fmt.Errorf("sqlite: delete sessions of account %d: %w", accountID, err)
	}
	return nil
}

// CreateToken stores a one-time token.
func (db *DB) CreateToken(ctx context.Context, t *account.Token) error {
	_, err := db.write.ExecContext(ctx, `INSERT INTO tokens (hash, account_id, purpose, created_at, expires_at) VALUES (?, ?, ?, ?, ?)`,
		t.Hash, t.AccountID, t.Purpose, micros(t.CreatedAt), micros(t.ExpiresAt))
	if err != nil {
		return fmt.Errorf("sqlite: create token: %w", err)
	}
	return nil
}

// UseToken deletes and returns the token of hash and purpose in one
// statement, so that it works once.
func (db *DB) UseToken(ctx context.Context, hash, purpose string) (*account.Token, error) {
	t, err := sqlrow.ReadToken(ctx, reader{db.write}, `DELETE FROM tokens WHERE hash = ? AND purpose = ?
RETURNING hash, account_id, purpose, created_at, expires_at`, hash, purpose)
	if err != nil {
		return nil, fmt.Errorf("sqlite: use %s token: %w", purpose, err)
	}
	return t, nil
}

// DeleteTokens deletes every token of the account of purpose.
func (db *DB) DeleteTokens(ctx context.Context, accountID int64, purpose string) error {
	if _, err := db.write.ExecContext(ctx, `DELETE FROM tokens WHERE account_id = ? AND purpose = ?`, accountID, purpose); err != nil {
		return fmt.Errorf("sqlite: delete %s tokens of account %d: %w", purpose, accountID, err)
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
	return db.writeTx(ctx, "add usage", func(tx *sql.Tx) error {
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO usage_hours (account_id, hour, requests, refused) VALUES (?, ?, ?, ?)
ON CONFLICT (account_id, hour) DO UPDATE SET requests = requests + excluded.requests, refused = refused + excluded.refused`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for _, e := range rows {
			if _, err := stmt.ExecContext(ctx, e.AccountID, micros(e.Hour), e.Requests, e.Refused); err != nil {
				return err
			}
		}
		return nil
	})
}

// MarkKeysUsed moves each key's LastUsedAt forward to At, never back, in one
// transaction. Unknown keys and zero times are skipped.
func (db *DB) MarkKeysUsed(ctx context.Context, uses []account.KeyUse) error {
	rows := sqlrow.KeyUses(uses)
	if len(rows) == 0 {
		return nil
	}
	return db.writeTx(ctx, "mark keys used", func(tx *sql.Tx) error {
		stmt, err := tx.PrepareContext(ctx, `UPDATE api_keys SET last_used_at = max(last_used_at, ?) WHERE id = ?`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for _, u := range rows {
			if _, err := stmt.ExecContext(ctx, micros(u.At), u.KeyID); err != nil {
				return err
			}
		}
		return nil
	})
}

// UsageBetween returns the account's hours in [from, to), oldest first.
func (db *DB) UsageBetween(ctx context.Context, accountID int64, from, to time.Time) ([]account.Usage, error) {
	u, err := sqlrow.ReadUsage(ctx, reader{db.read}, `SELECT account_id, hour, requests, refused FROM usage_hours
WHERE account_id = ? AND hour >= ? AND hour < ? ORDER BY hour`, accountID, micros(from), micros(to))
	if err != nil {
		return nil, fmt.Errorf("sqlite: usage of account %d: %w", accountID, err)
	}
	return u, nil
}
