package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/account/accounttest"
)

func TestAccounts(t *testing.T) {
	accounttest.Run(t, func(t *testing.T) account.Store {
		return mustOpen(t, filepath.Join(t.TempDir(), "cardcat.db"))
	})
}
