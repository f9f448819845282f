// GET /cards: Pokémon Trading Card Game: up to 100 cards by their ids, in one request (operationId pkmGetCards).
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

	params := &cardcat.PkmGetCardsParams{Ids: "pkm_7dfccec2b4149d0f"} // up to 100 ids, comma-separated
	resp, err := client.PkmGetCardsWithResponse(ctx, params)
	if err != nil {
		log.Fatal(err) // no answer
	}
	if resp.JSON200 == nil {
		log.Fatalf("%s: %s", resp.Status(), resp.Body) // an error body: 401, 404, 429, ...
	}
	for _, card := range resp.JSON200.Data {
		fmt.Println(card.Id, card.CardInfo.Name, "-", card.CardInfo.SetName)
	}
	fmt.Println(len(resp.JSON200.NotFound), "not found")
}
