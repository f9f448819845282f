// GET /{game}/sets/{set}: The products of one set, paginated (prices empty) (operationId getSetCards).
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
	resp, err := client.GetSetCardsWithResponse(ctx, "dbs", "FB01", &cardcat.GetSetCardsParams{Limit: &limit})
	if err != nil {
		log.Fatal(err) // no answer
	}
	if resp.JSON200 == nil {
		log.Fatalf("%s: %s", resp.Status(), resp.Body) // an error body: 401, 404, 429, ...
	}
	page, err := resp.JSON200.AsSetCards() // or AsDisambiguation, for a code several sets share
	if err != nil || page.Set.Name == "" {
		log.Fatalf("not a page of cards: %s", resp.Body)
	}
	fmt.Println(page.Set.Name, "-", page.Pagination.Total, "products")
	for _, card := range page.Cards {
		fmt.Println(card.Id, card.CardInfo.Name)
	}
}
