// GET /sets/trending: Pokémon Trading Card Game: the sets whose Cardmarket prices moved most (7-day against 30-day average) (operationId pkmGetTrendingSets).
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

	period, limit := cardcat.PkmGetTrendingSetsParamsPeriod("7d"), 3
	resp, err := client.PkmGetTrendingSetsWithResponse(ctx, &cardcat.PkmGetTrendingSetsParams{Period: &period, Limit: &limit})
	if err != nil {
		log.Fatal(err) // no answer
	}
	if resp.JSON200 == nil {
		log.Fatalf("%s: %s", resp.Status(), resp.Body) // an error body: 401, 404, 429, ...
	}
	for _, s := range resp.JSON200.TrendingSets {
		fmt.Println(text(s.SetCode), s.SetName, s.MarketC.PriceChange)
	}
}

// text is a nullable string's value: "" for null.
func text(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
