package postgres_test

import (
	"testing"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/account/accounttest"
)

func TestAccounts(t *testing.T) {
	baseURL(t)
	accounttest.Run(t, func(t *testing.T) account.Store { return mustOpen(t, newSchema(t)) })
}
