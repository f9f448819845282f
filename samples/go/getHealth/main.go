// GET /health: Whether the service and its dependencies work (operationId getHealth).
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

	resp, err := client.GetHealthWithResponse(ctx)
	if err != nil {
		log.Fatal(err) // no answer
	}
	health := resp.JSON200 // a 503 carries the same body: JSON503
	if health == nil {
		health = resp.JSON503
	}
	if health == nil {
		log.Fatalf("%s: %s", resp.Status(), resp.Body)
	}
	fmt.Println("status:", health.Status)
}
