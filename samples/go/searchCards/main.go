// GET /{game}/search: Cards by name or card number, with their prices (operationId searchCards).
// The Go client, github.com/cardcat/cardcat/clients/go/cardcat (see its README to use it from a checkout). The key is read from CARDCAT_API_KEY.
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

	limit := 3
	resp, err := client.SearchCardsWithResponse(ctx, "dbs", &cardcat.SearchCardsParams{Q: "Ultimate Sparking", Limit: &limit})
	if err != nil {
		log.Fatal(err) // no answer
	}
	if resp.JSON200 == nil {
		log.Fatalf("%s: %s", resp.Status(), resp.Body) // an error body: 401, 404, 429, ...
	}
	found := resp.JSON200
	fmt.Println(found.Pagination.Total, "cards match", found.Query)
	for _, card := range found.Results {
		fmt.Println(card.Id, card.CardInfo.Name)
	}
}
