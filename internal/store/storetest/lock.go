package storetest

import (
	"context"
	"testing"

	"github.com/cardcat/cardcat/internal/store"
)

// RunLocker checks store.Locker on s, which must implement Reopener: a lock
// excludes every other holder, in this store and in another store on the
// same database (another replica), until it is unlocked; names are
// independent.
func RunLocker(t *testing.T, s store.Store) {
	t.Helper()
	ctx := context.Background()
	lockerOf := func(s store.Store) store.Locker {
		l, ok := s.(store.Locker)
		if !ok {
			t.Fatalf("%T is not a store.Locker", s)
		}
		return l
	}
	r, ok := s.(Reopener)
	if !ok {
		t.Fatalf("%T is not a Reopener", s)
	}
	other, err := r.Reopen(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	a, b := lockerOf(s), lockerOf(other)

	try := func(l store.Locker, name string, want bool) func() {
		t.Helper()
		unlock, ok, err := l.TryLock(ctx, name)
		if err != nil || ok != want {
			t.Fatalf("TryLock(%s) = %v, %v; want %v", name, ok, err, want)
		}
		if ok {
			t.Cleanup(unlock) // a test that fails midway leaves nothing held
		}
		return unlock
	}
	unlockA := try(a, "catalogue-refresh", true)
	try(a, "catalogue-refresh", false) // one holder, even in one store
	try(b, "catalogue-refresh", false) // nor in another store (replica)
	unlockOther := try(b, "other-lock", true)
	unlockA()
	unlockB := try(b, "catalogue-refresh", true) // released: the next one gets it
	try(a, "catalogue-refresh", false)
	unlockB()
	unlockOther()
	try(a, "catalogue-refresh", true)
	try(a, "other-lock", true)

	// The context bounds the taking, not the holding.
	cctx, cancel := context.WithCancel(ctx)
	unlockC, ok, err := b.TryLock(cctx, "held-after-cancel")
	cancel()
	if err != nil || !ok {
		t.Fatalf("TryLock(held-after-cancel) = %v, %v", ok, err)
	}
	t.Cleanup(unlockC)
	try(a, "held-after-cancel", false)
}
