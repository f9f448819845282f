package cardcat_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/cardcat/cardcat/clients/go/cardcat"
)

// These examples are the README's; they compile with the client, and are
// not run (they need a server).

func Example() {
	ctx := context.Background()
	client, err := cardcat.NewClientWithResponses("http://localhost:8080", cardcat.WithAPIKey(os.Getenv("CARDCAT_KEY")))
	if err != nil {
		log.Fatal(err)
	}

	// One card with its prices.
	resp, err := client.GetCardWithResponse(ctx, "dbs", "dbs_b8900e61064a48cb", nil)
	if err != nil {
		log.Fatal(err) // the request failed: no answer
	}
	if card := resp.JSON200; card != nil && card.MarketT != nil {
		fmt.Println(card.CardInfo.Name, card.MarketT.Prices)
	}

	// Search by name or card number.
	limit := 10
	found, err := client.SearchCardsWithResponse(ctx, "mtg", &cardcat.SearchCardsParams{Q: "lightning", Limit: &limit})
	if err != nil {
		log.Fatal(err)
	}
	if found.JSON200 != nil {
		for _, c := range found.JSON200.Results {
			fmt.Println(c.Id, c.CardInfo.Name)
		}
	}
}

func ExampleRateLimitOf() {
	ctx := context.Background()
	client, err := cardcat.NewClientWithResponses("http://localhost:8080", cardcat.WithAPIKey(os.Getenv("CARDCAT_KEY")))
	if err != nil {
		log.Fatal(err)
	}
	sets, err := client.ListSetsWithResponse(ctx, "dbs", nil)
	if err != nil {
		log.Fatal(err)
	}
	switch {
	case sets.JSON200 != nil:
		rl, _ := cardcat.RateLimitOf(sets.HTTPResponse.Header)
		fmt.Println(sets.JSON200.Total, "sets;", rl.RemainingHour, "requests left this hour")
	case sets.JSON429 != nil:
		rl, _ := cardcat.RateLimitOf(sets.HTTPResponse.Header) // X-RateLimit-* and Retry-After
		fmt.Printf("%s; retry in %s\n", sets.JSON429.Message, rl.RetryAfter)
	case sets.JSON401 != nil:
		fmt.Println(sets.JSON401.Error, sets.JSON401.Message) // "API key required" or "Invalid API key"
	}
}
