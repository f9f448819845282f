// GET /games: The games served, with their route templates (operationId listGames).
// The Go client, github.com/cardcat/cardcat/clients/go/cardcat (see its README to use it from a checkout). A public route: no key needed.
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

	resp, err := client.ListGamesWithResponse(ctx)
	if err != nil {
		log.Fatal(err) // no answer
	}
	if resp.JSON200 == nil {
		log.Fatalf("%s: %s", resp.Status(), resp.Body) // an error body: 401, 404, 429, ...
	}
	for _, game := range resp.JSON200.Data {
		fmt.Println(game.Code, game.Name)
	}
}
