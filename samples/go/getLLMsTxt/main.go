// GET /llms.txt: A plain-text guide to the API for AI assistants (operationId getLLMsTxt).
// The Go client, github.com/cardcat/cardcat/clients/go/cardcat (see its README to use it from a checkout). A public route: no key needed.
package main

import (
	"cmp"
	"context"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/cardcat/cardcat/clients/go/cardcat"
)

func main() {
	ctx := context.Background()
	client, err := cardcat.NewClientWithResponses(cmp.Or(os.Getenv("CARDCAT_URL"), "http://localhost:8080"),
		cardcat.WithAPIKey(os.Getenv("CARDCAT_API_KEY")))
	if err != nil {
		log.Fatal(err)
	}

	resp, err := client.GetLLMsTxtWithResponse(ctx) // plain text: resp.Body
	if err != nil {
		log.Fatal(err) // no answer
	}
	if resp.StatusCode() != 200 {
		log.Fatalf("%s: %s", resp.Status(), resp.Body) // an error body: 401, 404, 429, ...
	}
	first, _, _ := strings.Cut(string(resp.Body), "\n")
	fmt.Println(first)
}
