package postgres_test

import (
	"testing"

	"github.com/cardcat/cardcat/internal/store"
	"github.com/cardcat/cardcat/internal/store/storetest"
)

func TestSubscriptionsStore(t *testing.T) {
	baseURL(t)
	storetest.RunSubscriptions(t, func(t *testing.T) store.Store { return mustOpen(t, newSchema(t)) })
}
