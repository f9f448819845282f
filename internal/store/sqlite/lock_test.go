package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/cardcat/cardcat/internal/store/storetest"
)

func TestLocker(t *testing.T) {
	t.Parallel()
	storetest.RunLocker(t, mustOpen(t, filepath.Join(t.TempDir(), "cardcat.db")))
}
