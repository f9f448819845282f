package alertsapi

import (
	"net/http"

	"github.com/cardcat/cardcat/internal/apiref"
)

// Operation is what the reference (the OpenAPI document, GET /, /llms.txt)
// says of GET /alerts; httpapi's route table registers it.
var Operation = apiref.Operation{
	ID: "listAlerts", Tag: apiref.TagAlerts, Summary: "Your account's price alerts, with their state, oldest first",
	Description: "The alerts of the key's account (every key of the account sees the same), as the account portal's Alerts page manages them: " +
		"each watches one finish of one card on one marketplace with a rule (`above` or `below` a `threshold`, in the marketplace's currency, " +
		"or a `move` of at least `percent`% against the 7-day average). `armed` is false from a firing until the price goes back; " +
		"`last_price` is the price read at `last_version`, the last catalogue version evaluated (GET /health's `catalogue.version` is the one served). " +
		"Read-only: alerts and webhooks are created, edited, paused and deleted in the account portal. " +
		"Counted like every keyed request; always revalidated (`Cache-Control: private, no-cache`), so send the ETag back in `If-None-Match`: " +
		"an unchanged list is a 304, never counted.",
	Params: []apiref.Param{
		{Name: "page", In: "query", Description: "The page, from 1. A page past the end is an empty list with the true totals.",
			Schema: apiref.ParamSchema{Type: "integer", Default: 1, Minimum: apiref.Ptr(1)}},
		apiref.LimitParam(PageDefault, PageMax, "alerts"),
	},
	Answers: []apiref.Answer{
		apiref.Success("A page of the account's alerts; none when it has none.", "AlertList"),
		apiref.Failure(http.StatusBadRequest, "`page` or `limit` is not an integer of 1 or more.", apiref.ErrInvalidParameter),
		apiref.WithHeaders(apiref.Failure(http.StatusServiceUnavailable, "The alerts cannot be read right now. Retry after `Retry-After` seconds.",
			apiref.ErrServiceUnavailable), "Retry-After"),
	},
}
