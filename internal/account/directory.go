package account

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/cardcat/cardcat/internal/poll"
)

// Directory answers key lookups from memory: no store round trip per
// request. It reloads the active keys when the store's accounts version
// changes, so a revoked key or a plan change reaches every replica within one
// poll interval.
type Directory struct {
	st   Store
	log  *slog.Logger
	view atomic.Pointer[directoryView]
}

type directoryView struct {
	version int64
	byHash  map[[sha256.Size]byte]*Account
}

// NewDirectory loads the active keys once.
func NewDirectory(ctx context.Context, st Store, log *slog.Logger) (*Directory, error) {
	d := &Directory{st: st, log: log}
	d.view.Store(&directoryView{version: -1})
	if err := d.Refresh(ctx); err != nil {
		return nil, err
	}
	return d, nil
}

// Lookup returns the account of a well-formed key, or false. It runs on
// every request: the raw digest keys the map, and the key is hashed from a
// stack buffer (a plain []byte(key) of more than 32 bytes is a heap
// allocation), so a lookup allocates nothing.
func (d *Directory) Lookup(key string) (*Account, bool) {
	var buf [48]byte // a key is 40 bytes
	a, ok := d.view.Load().byHash[sha256.Sum256(append(buf[:0], key...))]
	return a, ok
}

// Refresh reloads the keys when the accounts version changed.
func (d *Directory) Refresh(ctx context.Context) error {
	v, err := d.st.AccountsVersion(ctx)
	if err != nil {
		return err
	}
	if v == d.view.Load().version {
		return nil
	}
	kas, err := d.st.ActiveKeys(ctx)
	if err != nil {
		return err
	}
	accounts := map[int64]*Account{}
	byHash := make(map[[sha256.Size]byte]*Account, len(kas))
	for _, ka := range kas {
		a := accounts[ka.Account.ID]
		if a == nil {
			acc := ka.Account
			a = &acc
			accounts[a.ID] = a
		}
		var sum [sha256.Size]byte
		if n, err := hex.Decode(sum[:], []byte(ka.Key.Hash)); err != nil || n != len(sum) {
			return fmt.Errorf("account: key %d has a malformed stored hash", ka.Key.ID)
		}
		byHash[sum] = a
	}
	d.view.Store(&directoryView{version: v, byHash: byHash})
	return nil
}

// Watch refreshes every interval until ctx ends; failures keep the last view.
func (d *Directory) Watch(ctx context.Context, every time.Duration) {
	poll.Every(ctx, every, d.Refresh, func(err error) {
		if d.log != nil {
			d.log.Error("key directory refresh failed; keeping the last view", "err", err)
		}
	})
}
