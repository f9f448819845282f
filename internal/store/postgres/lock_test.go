package postgres_test

import (
	"context"
	"testing"

	"github.com/cardcat/cardcat/internal/store/storetest"
)

func TestLocker(t *testing.T) {
	t.Parallel()
	storetest.RunLocker(t, mustOpen(t, newSchema(t)))
}

// TestLockerPerSchema: two deployments sharing a database in two schemas
// each have their own lock.
func TestLockerPerSchema(t *testing.T) {
	t.Parallel()
	a, b := mustOpen(t, newSchema(t)), mustOpen(t, newSchema(t))
	ctx := context.Background()
	unlock, ok, err := a.TryLock(ctx, "catalogue-refresh")
	if err != nil || !ok {
		t.Fatalf("first schema: %v, %v", ok, err)
	}
	defer unlock()
	unlock2, ok, err := b.TryLock(ctx, "catalogue-refresh")
	if err != nil || !ok {
		t.Fatalf("second schema, while the first holds its lock: %v, %v", ok, err)
	}
	unlock2()
}
