package accounttest

import (
	"context"
	"fmt"

	"github.com/cardcat/cardcat/internal/account"
)

// KeyFormat authenticates by form alone: every well-formed key is a Free
// account of its own that never started a trial, named by the key's display
// prefix (never by the key itself, which a persisted limiter would write to
// disk). For the HTTP layer's tests, which need callers but no accounts.
type KeyFormat struct{}

// Authenticate implements the HTTP layer's Authenticator.
func (KeyFormat) Authenticate(_ context.Context, key string) (account.Caller, error) {
	if !account.WellFormed(key) {
		return account.Caller{}, fmt.Errorf("malformed key: %w", account.ErrInvalidKey)
	}
	id := account.DisplayPrefix(key)
	return account.Caller{AccountID: id, KeyID: id, Plan: account.Free, Pool: account.PoolPrefix + id, Limits: account.FreeLimits()}, nil
}
