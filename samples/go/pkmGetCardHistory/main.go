// GET /cards/{id}/history: Pokémon Trading Card Game: a card's daily prices on one marketplace, oldest first (operationId pkmGetCardHistory).
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

	source, days := cardcat.PkmGetCardHistoryParamsSource("tcg"), 30
	resp, err := client.PkmGetCardHistoryWithResponse(ctx, "pkm_7dfccec2b4149d0f", &cardcat.PkmGetCardHistoryParams{Source: &source, Days: &days})
	if err != nil {
		log.Fatal(err) // no answer
	}
	if resp.JSON200 == nil {
		log.Fatalf("%s: %s", resp.Status(), resp.Body) // an error body: 401, 404, 429, ...
	}
	history := resp.JSON200
	fmt.Println(history.Id, history.Source, history.Currency, history.Days, "days")
	// Format "csv" answers the same points as CSV text, in resp.Body
}
