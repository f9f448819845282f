// GET /{game}/sets: Every set of the game that has products, newest first (operationId listSets).
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

	resp, err := client.ListSetsWithResponse(ctx, "dbs", nil)
	if err != nil {
		log.Fatal(err) // no answer
	}
	if resp.JSON200 == nil {
		log.Fatalf("%s: %s", resp.Status(), resp.Body) // an error body: 401, 404, 429, ...
	}
	sets := resp.JSON200
	fmt.Println(sets.Total, "sets")
	for _, s := range sets.Data[:min(3, len(sets.Data))] {
		fmt.Println(s.SetId, text(s.SetCode), s.Name)
	}
}

// text is a nullable string's value: "" for null.
func text(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
