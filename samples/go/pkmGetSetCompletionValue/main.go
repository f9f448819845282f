// GET /sets/{set}/completion-value: Pokémon Trading Card Game: what one copy of every card of a set costs (operationId pkmGetSetCompletionValue).
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

	resp, err := client.PkmGetSetCompletionValueWithResponse(ctx, "BS", nil)
	if err != nil {
		log.Fatal(err) // no answer
	}
	if resp.JSON200 == nil {
		log.Fatalf("%s: %s", resp.Status(), resp.Body) // an error body: 401, 404, 429, ...
	}
	value, err := resp.JSON200.AsCompletionValue() // or AsDisambiguation, for a code several sets share
	if err != nil {
		log.Fatal(err)
	}
	cost := value.CompletionCost.MarketT
	fmt.Println(value.SetInfo.Name, "-", value.SetInfo.TotalCards, "cards")
	if cost.MarketEstimate != nil {
		fmt.Printf("one of each at TCGplayer market prices: %.2f %s\n", *cost.MarketEstimate, cost.Currency)
	}
}
