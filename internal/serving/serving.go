// Package serving holds what the API serves of one catalogue version: the
// snapshot of the free endpoints and the paid answers computed from the same
// catalogue, built together and published together (one atomic pointer), so
// that one request never sees a snapshot of one version and paid answers of
// another. A Holder keeps the version being served and swaps in the store's
// next one.
package serving

import (
	"github.com/cardcat/cardcat/internal/analytics"
	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/game"
)

// View is one catalogue version as the API serves it. It never changes after
// Build returns; a new version is a new View.
type View struct {
	*catalog.Snapshot
	// Paid are the paid answers of each game, by game code; each is built on
	// the snapshot's GameSnapshot of that game.
	Paid map[string]*analytics.Game
}

// Build builds the snapshot of c for the games of reg, then every game's
// paid answers from the same catalogue: all the work a version needs before
// it is served (the prices-by-set bodies excepted, which the first request of
// each renders once). c is only read and is not referenced afterwards.
// opts.TCGHistory gives each game's TCGplayer price history at c's day (the
// caller reads it from the store with the catalogue); Build keeps none of it.
func Build(c *catalog.Catalog, reg *game.Registry, opts analytics.Options) (*View, error) {
	snap, err := catalog.NewSnapshot(c, reg)
	if err != nil {
		return nil, err
	}
	v := &View{Snapshot: snap, Paid: make(map[string]*analytics.Game, len(snap.Games()))}
	for _, gs := range snap.Games() {
		code := gs.Game().Code
		v.Paid[code] = analytics.Build(gs, c.Game(code), opts)
	}
	return v, nil
}
