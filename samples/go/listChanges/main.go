// GET /{game}/changes: The cards whose detail body changed after a time, to keep a copy in sync (operationId listChanges).
// The Go client, github.com/cardcat/cardcat/clients/go/cardcat (see its README to use it from a checkout). The key is read from CARDCAT_API_KEY.
package main

import (
	"cmp"
	"context"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/cardcat/cardcat/clients/go/cardcat"
)

func main() {
	ctx := context.Background()
	client, err := cardcat.NewClientWithResponses(cmp.Or(os.Getenv("CARDCAT_URL"), "http://localhost:8080"),
		cardcat.WithAPIKey(os.Getenv("CARDCAT_API_KEY")))
	if err != nil {
		log.Fatal(err)
	}

	since, err := time.Parse(time.RFC3339, "2099-01-01T00:00:00Z")
	if err != nil {
		log.Fatal(err)
	}
	for page := 1; ; page++ {
		resp, err := client.ListChangesWithResponse(ctx, "dbs", &cardcat.ListChangesParams{Since: since, Page: &page})
		if err != nil {
			log.Fatal(err) // no answer
		}
		if resp.JSON200 == nil {
			log.Fatalf("%s: %s", resp.Status(), resp.Body) // an error body: 401, 404, 429, ...
		}
		changes := resp.JSON200
		fmt.Println(len(changes.Changed), "cards changed;", changes.Pagination.Total, "in all")
		if page >= changes.Pagination.TotalPages {
			break // keep changes.Until: the since of your next call
		}
	}
}
