// GET /: What the service is, how to authenticate, every endpoint (operationId getRoot).
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

	resp, err := client.GetRootWithResponse(ctx)
	if err != nil {
		log.Fatal(err) // no answer
	}
	if resp.JSON200 == nil {
		log.Fatalf("%s: %s", resp.Status(), resp.Body) // an error body: 401, 404, 429, ...
	}
	root := resp.JSON200
	fmt.Println(root.Name, "-", root.Status)
	fmt.Println(len(root.Endpoints), "endpoints listed")
}
