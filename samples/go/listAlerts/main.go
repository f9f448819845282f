// GET /alerts: Your account's price alerts, with their state, oldest first (operationId listAlerts).
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

	limit := 100 // up to 1000
	for page := 1; ; page++ {
		resp, err := client.ListAlertsWithResponse(ctx, &cardcat.ListAlertsParams{Page: &page, Limit: &limit})
		if err != nil {
			log.Fatal(err) // no answer
		}
		if resp.JSON200 == nil {
			log.Fatalf("%s: %s", resp.Status(), resp.Body) // an error body: 401, 404, 429, ...
		}
		answer := resp.JSON200
		if page == 1 {
			fmt.Println(answer.Pagination.Total, "alerts")
		}
		for _, alert := range answer.Alerts {
			var rule string
			if alert.Rule == cardcat.AlertRuleMove {
				rule = fmt.Sprintf("move %d%%", *alert.Percent)
			} else {
				rule = fmt.Sprintf("%s %.2f %s", alert.Rule, *alert.Threshold, alert.Currency)
			}
			state := "fired"
			switch {
			case alert.Paused:
				state = "paused"
			case alert.Armed:
				state = "armed"
			}
			if alert.Email {
				state += ", emails"
			}
			fmt.Println(alert.Id, alert.CardId, alert.Source, alert.Variant, rule, state)
		}
		if page >= answer.Pagination.TotalPages {
			break
		}
	}
}
