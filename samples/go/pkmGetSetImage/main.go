// GET /sets/{set}/image: Pokémon Trading Card Game: the set's logo, cacheable for 24 hours (operationId pkmGetSetImage).
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

	resp, err := client.PkmGetSetImageWithResponse(ctx, "BS", nil) // the logo's bytes: resp.Body
	if err != nil {
		log.Fatal(err) // no answer
	}
	if resp.StatusCode() != 200 {
		log.Fatalf("%s: %s", resp.Status(), resp.Body) // an error body: 401, 404, 429, ...
	}
	if err := os.WriteFile("set-logo.png", resp.Body, 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Println("set-logo.png:", resp.HTTPResponse.Header.Get("Content-Type"), len(resp.Body), "bytes")
}
