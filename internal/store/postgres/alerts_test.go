package postgres_test

import (
	"testing"

	"github.com/cardcat/cardcat/internal/store"
	"github.com/cardcat/cardcat/internal/store/storetest"
)

func TestAlertsStore(t *testing.T) {
	baseURL(t)
	storetest.RunAlerts(t, func(t *testing.T) store.Store { return mustOpen(t, newSchema(t)) })
}
