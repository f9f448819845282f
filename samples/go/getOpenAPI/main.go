// GET /openapi.json: The OpenAPI 3.1 document of this API (operationId getOpenAPI).
// The Go client, github.com/cardcat/cardcat/clients/go/cardcat (see its README to use it from a checkout). A public route: no key needed.
package main

import (
	"cmp"
	"context"
	"encoding/json"
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

	resp, err := client.GetOpenAPIWithResponse(ctx)
	if err != nil {
		log.Fatal(err) // no answer
	}
	if resp.JSON200 == nil {
		log.Fatalf("%s: %s", resp.Status(), resp.Body) // an error body: 401, 404, 429, ...
	}
	// The client types the document as a map: decode what you read of it.
	var doc struct {
		OpenAPI string `json:"openapi"`
		Info    struct{ Title string }
		Paths   map[string]map[string]json.RawMessage
	}
	if err := json.Unmarshal(resp.Body, &doc); err != nil {
		log.Fatal(err)
	}
	fmt.Println(doc.Info.Title, "- OpenAPI", doc.OpenAPI)
	operations := 0
	for _, item := range doc.Paths {
		operations += len(item)
	}
	fmt.Println(operations, "operations")
}
