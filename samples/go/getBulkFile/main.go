// GET /{game}/bulk/{name}: One bulk file, as gzip bytes, resumable (operationId getBulkFile).
// The Go client, github.com/cardcat/cardcat/clients/go/cardcat (see its README to use it from a checkout). The key is read from CARDCAT_API_KEY.
package main

import (
	"bufio"
	"cmp"
	"compress/gzip"
	"context"
	"fmt"
	"io"
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

	// The plain client (not ...WithResponse) leaves the body unread: it is streamed to the file.
	raw, err := client.ClientInterface.(*cardcat.Client).GetBulkFile(ctx, "dbs", "cards.jsonl.gz", nil)
	if err != nil {
		log.Fatal(err) // no answer
	}
	defer raw.Body.Close()
	if raw.StatusCode != 200 {
		body, _ := io.ReadAll(raw.Body)
		log.Fatalf("%s: %s", raw.Status, body)
	}
	f, err := os.Create("cards.jsonl.gz")
	if err != nil {
		log.Fatal(err)
	}
	if _, err := io.Copy(f, raw.Body); err != nil {
		log.Fatal(err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		log.Fatal(err)
	}
	gz, err := gzip.NewReader(f)
	if err != nil {
		log.Fatal(err)
	}
	cards := 0
	for lines := bufio.NewScanner(gz); lines.Scan(); {
		cards++
	}
	fmt.Println(cards, "cards in", "cards.jsonl.gz")
}
