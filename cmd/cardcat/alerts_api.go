package main

import (
	"github.com/cardcat/cardcat/internal/alerts"
	"github.com/cardcat/cardcat/internal/alertsapi"
	"github.com/cardcat/cardcat/internal/httpapi"
	"github.com/cardcat/cardcat/internal/store"
)

// alertsSurface is GET /alerts on the store's alerts; nil (the route
// answers 503) when the store keeps none.
func alertsSurface(st store.Store) httpapi.KeyedSurface {
	as, ok := st.(alerts.Store)
	if !ok {
		return nil
	}
	return &alertsapi.Handler{Store: as}
}
