package analytics_test

import (
	"errors"
	"fmt"
	"net/url"

	"github.com/cardcat/cardcat/internal/analytics"
	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/game"
)

// A handler parses the query, maps a *ParamError to 400 and writes the
// precomputed body.
func ExampleParseTopCards() {
	gc := &catalog.GameCatalog{Game: "dbs"}
	snap, _ := catalog.NewSnapshot(&catalog.Catalog{Games: []catalog.GameCatalog{*gc}}, game.Default())
	g := analytics.Build(snap.Game("dbs"), gc, analytics.Options{})

	for _, raw := range []string{"metric=growth", "metric=growth&source=tcg", "limit=500"} {
		q, _ := url.ParseQuery(raw)
		metric, source, limit, err := analytics.ParseTopCards(q)
		if errors.Is(err, analytics.ErrInvalidParameter) {
			fmt.Printf("400 %s\n", err)
			continue
		}
		fmt.Printf("200 %s (limit %d)\n", g.TopCards(metric, source, limit).Body, limit)
	}
	// Output:
	// 200 {"metric":"growth","source":"cm","top_cards":[]} (limit 10)
	// 400 Invalid value "tcg" for parameter source: metric=growth is computed from Cardmarket 7- and 30-day averages and works with source=cm only (its default); allowed values: cm
	// 200 {"metric":"price","source":"tcg","top_cards":[]} (limit 100)
}
