// GET /prices/{set}: Pokémon Trading Card Game: the prices of every product of a set, one row per finish (operationId pkmGetSetPrices).
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

	resp, err := client.PkmGetSetPricesWithResponse(ctx, "BS", nil)
	if err != nil {
		log.Fatal(err) // no answer
	}
	if resp.JSON200 == nil {
		log.Fatalf("%s: %s", resp.Status(), resp.Body) // an error body: 401, 404, 429, ...
	}
	prices, err := resp.JSON200.AsPricesBySet() // or AsDisambiguation, for a code several sets share
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(text(prices.SetCode), "-", prices.Total, "rows, one per card and finish")
	for _, row := range prices.Data[:min(3, len(prices.Data))] {
		fmt.Println(row.Id, row.Name, "-", row.Variant)
	}
}

// text is a nullable string's value: "" for null.
func text(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
