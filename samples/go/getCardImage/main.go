// GET /{game}/images/{id}: The card's image, cacheable for 24 hours (operationId getCardImage).
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

	resp, err := client.GetCardImageWithResponse(ctx, "dbs", "dbs_3ef29751ae2b88a4", nil) // the image's bytes: resp.Body
	if err != nil {
		log.Fatal(err) // no answer
	}
	if resp.StatusCode() != 200 {
		log.Fatalf("%s: %s", resp.Status(), resp.Body) // an error body: 401, 404, 429, ...
	}
	if err := os.WriteFile("card.jpg", resp.Body, 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Println("card.jpg:", resp.HTTPResponse.Header.Get("Content-Type"), len(resp.Body), "bytes")
}
