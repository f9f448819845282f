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
	st      Store
	log     *slog.Logger
	view    atomic.Pointer[directoryView]
	tracker *poll.Tracker
}

// The bounds of a refresh's store calls, so that a partition from the
// database cannot hold the refresh loop (and with it every revocation) for as
// long as TCP lets it: the version check reads one row every interval; the
// keys are read only when they changed, and are far fewer rows than a
// catalogue.
const (
	versionTimeout = 5 * time.Second
	keysTimeout    = time.Minute
)

type directoryView struct {
	version int64
	byHash  map[[sha256.Size]byte]directoryEntry
	// gen tells this view from every other one of the process (KeyMemo): a
	// store's version may come back to an earlier number after a restore.
	gen uint64
}

// viewGens numbers the directory views made in the process.
var viewGens atomic.Uint64

// directoryEntry is a key's account and the key's store id (for the usage
// meter's last use).
type directoryEntry struct {
	acc   *Account
	keyID int64
}

// NewDirectory loads the active keys once.
func NewDirectory(ctx context.Context, st Store, log *slog.Logger) (*Directory, error) {
	d := &Directory{st: st, log: log, tracker: poll.NewTracker("key directory refresh", "keeping the keys loaded last", log, nil)}
	d.view.Store(&directoryView{version: -1, gen: viewGens.Add(1)})
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
	acc, _, ok := d.LookupRef(key)
	return acc, ok
}

// LookupRef is Lookup that also returns the key's store id.
func (d *Directory) LookupRef(key string) (acc *Account, keyRef int64, ok bool) {
	e, ok := d.view.Load().lookup(key)
	return e.acc, e.keyID, ok
}

func (v *directoryView) lookup(key string) (directoryEntry, bool) {
	var buf [48]byte // a key is 40 bytes
	e, ok := v.byHash[sha256.Sum256(append(buf[:0], key...))]
	return e, ok
}

// KeyMemo is a client connection's memory of the last key that opened the
// API on it: the connection's next requests with the same key skip its
// SHA-256 and lookup (bench/README.md, "A connection's key remembered") for
// as long as the directory holds the same keys. A refresh that finds any
// change (a revocation, a plan, a new key) makes a new view, which the memo
// no longer matches. It keeps the view's number, not the view: an idle
// connection does not hold a replaced view's keys in memory. The zero
// KeyMemo remembers nothing; one request uses it at a time.
type KeyMemo struct {
	key   string
	gen   uint64 // of the directory's view the key was found in
	entry directoryEntry
	names *accountNames
}

// Remembers reports whether m remembers key.
func (m *KeyMemo) Remembers(key string) bool { return m.key != "" && m.key == key }

// remembered returns what m holds of key, found in the directory's current
// view.
func (m *KeyMemo) remembered(key string, view *directoryView) (directoryEntry, *accountNames, bool) {
	if m.gen != view.gen || m.key != key {
		return directoryEntry{}, nil, false
	}
	return m.entry, m.names, true
}

// Refresh reloads the keys when the accounts version changed. The version
// check and the reading of the keys each have a deadline; the outcome goes to
// the tracker (LastSuccess, FailingSince, the outage log).
func (d *Directory) Refresh(ctx context.Context) error {
	err := d.refresh(ctx)
	d.tracker.Record(ctx, err)
	return err
}

// LastSuccess is when a refresh last succeeded: the keys in memory were
// those of the store then. Zero before the first.
func (d *Directory) LastSuccess() time.Time { return d.tracker.LastSuccess() }

// FailingSince is when refreshes started failing, zero while they succeed.
func (d *Directory) FailingSince() time.Time { return d.tracker.FailingSince() }

func (d *Directory) refresh(ctx context.Context) error {
	var v int64
	err := poll.Bounded(ctx, versionTimeout, "accounts version check", func(ctx context.Context) (err error) {
		v, err = d.st.AccountsVersion(ctx)
		return err
	})
	if err != nil {
		return err
	}
	if v == d.view.Load().version {
		return nil
	}
	var kas []KeyAccount
	err = poll.Bounded(ctx, keysTimeout, "keys load", func(ctx context.Context) (err error) {
		kas, err = d.st.ActiveKeys(ctx)
		return err
	})
	if err != nil {
		return err
	}
	accounts := map[int64]*Account{}
	byHash := make(map[[sha256.Size]byte]directoryEntry, len(kas))
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
		byHash[sum] = directoryEntry{acc: a, keyID: ka.Key.ID}
	}
	d.view.Store(&directoryView{version: v, byHash: byHash, gen: viewGens.Add(1)})
	return nil
}

// Watch refreshes every interval until ctx ends; failures keep the last
// view, and an outage is logged once (the tracker).
func (d *Directory) Watch(ctx context.Context, every time.Duration) {
	poll.Every(ctx, every, func(ctx context.Context) { d.Refresh(ctx) })
}
