// GET /analytics/top-cards: Pokémon Trading Card Game: the most expensive cards, or the fastest-growing ones (operationId pkmGetTopCards).
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

	metric, source, limit := cardcat.PkmGetTopCardsParamsMetric("price"), cardcat.PkmGetTopCardsParamsSource("tcg"), 3
	resp, err := client.PkmGetTopCardsWithResponse(ctx, &cardcat.PkmGetTopCardsParams{Metric: &metric, Source: &source, Limit: &limit})
	if err != nil {
		log.Fatal(err) // no answer
	}
	if resp.JSON200 == nil {
		log.Fatalf("%s: %s", resp.Status(), resp.Body) // an error body: 401, 404, 429, ...
	}
	for _, card := range resp.JSON200.TopCards {
		fmt.Println(card.Id, card.CardInfo.Name)
	}
}
