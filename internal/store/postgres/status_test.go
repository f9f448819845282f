package postgres_test

import (
	"testing"

	"github.com/cardcat/cardcat/internal/store"
	"github.com/cardcat/cardcat/internal/store/storetest"
)

func TestStatusStore(t *testing.T) {
	baseURL(t)
	storetest.RunStatus(t, func(t *testing.T) store.Store { return mustOpen(t, newSchema(t)) })
}
