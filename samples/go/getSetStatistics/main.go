// GET /{game}/sets/{set}/statistics: Price statistics of a set's cards in one finish, and its rarity breakdown (operationId getSetStatistics).
// The Go client, github.com/cardcat/cardcat/clients/go/cardcat (see its README to use it from a checkout). The key is read from CARDCAT_API_KEY. Paid: Ultra, Business or a trial.
package main

import (
	"cmp"
	"context"
	"fmt"
	"log"
	"os"

	"github.com/cardcat/cardcat/clients/go/cardcat"
)

func main() {
	ctx := context.Background()
	client, err := cardcat.NewClientWithResponses(cmp.Or(os.Getenv("CARDCAT_URL"), "http://localhost:8080"),
		cardcat.WithAPIKey(os.Getenv("CARDCAT_API_KEY")))
	if err != nil {
		log.Fatal(err)
	}

	resp, err := client.GetSetStatisticsWithResponse(ctx, "dbs", "FB01", nil)
	if err != nil {
		log.Fatal(err) // no answer
	}
	if resp.JSON200 == nil {
		log.Fatalf("%s: %s", resp.Status(), resp.Body) // an error body: 401, 404, 429, ...
	}
	stats, err := resp.JSON200.AsSetStatistics() // or AsDisambiguation, for a code several sets share
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(stats.SetInfo.Name, "-", stats.SetInfo.TotalCards, "cards")
	if top := stats.PriceStatistics.MarketT.MostExpensive; top != nil {
		fmt.Printf("most expensive on TCGplayer: %s (%.2f USD)\n", top.Name, top.Price)
	}
}
