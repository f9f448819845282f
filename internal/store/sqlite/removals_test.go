package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/cardcat/cardcat/internal/store"
	"github.com/cardcat/cardcat/internal/store/storetest"
)

func TestRemovalsStore(t *testing.T) {
	storetest.RunRemovals(t, func(t *testing.T) store.Store {
		return mustOpen(t, filepath.Join(t.TempDir(), "cardcat.db"))
	})
}
