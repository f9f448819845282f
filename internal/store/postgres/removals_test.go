package postgres_test

import (
	"testing"

	"github.com/cardcat/cardcat/internal/store"
	"github.com/cardcat/cardcat/internal/store/storetest"
)

func TestRemovalsStore(t *testing.T) {
	baseURL(t)
	storetest.RunRemovals(t, func(t *testing.T) store.Store { return mustOpen(t, newSchema(t)) })
}
