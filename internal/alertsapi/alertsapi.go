// Package alertsapi is GET /alerts, the callers' side of the price alerts
// of issue 25: the key's account's alerts (internal/alerts), as JSON, a
// page at a time. It is a surface of its own, beside the catalogue's REST
// API (internal/httpapi) rather than in it: httpapi's route table
// registers its operation (Operation) and admits its requests like every
// keyed route's (counted, 401, 429, the free 304 of an unchanged answer),
// then asks Handler.Answer for the body. The alerts themselves are created,
// edited, paused and deleted in the account portal (internal/portal) and by
// the operator's CLI; the REST API stays read-only.
package alertsapi

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/alerts"
	"github.com/cardcat/cardcat/internal/apiref"
	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/jsonw"
)

// Lister is the part of alerts.Store that GET /alerts reads.
type Lister interface {
	Alerts(ctx context.Context, accountID int64) ([]alerts.Alert, error)
}

var _ Lister = alerts.Store(nil)

// Paging of the list: an Ultra account keeps up to 1,000 alerts, a
// Business one 10,000 by default; a page of the largest limit is a few
// hundred KB.
const (
	PageDefault = 100
	PageMax     = 1000
)

// DefaultTimeout bounds the store read of one request.
const DefaultTimeout = 2 * time.Second

// retryAfter is the Retry-After, in seconds, of a list the store could not
// read.
const retryAfter = "5"

// Handler answers GET /alerts from the store.
type Handler struct {
	Store Lister
	// Timeout bounds the store read (DefaultTimeout when 0); past it the
	// answer is 503.
	Timeout time.Duration
}

// Answer is the body of GET /alerts for caller: a page of its account's
// alerts, oldest first. A bad page or limit is a 400, a store that cannot
// be read in time a 503 (its cause is logged by the caller of Answer,
// never sent); both are *apiref.Problem.
func (h *Handler) Answer(r *http.Request, caller account.Caller) ([]byte, error) {
	p, err := apiref.ParsePaging(r.URL.Query(), PageDefault, PageMax)
	if err != nil {
		return nil, err
	}
	var list []alerts.Alert
	// A caller without a store account (a test's key that only has a form)
	// has no alerts.
	if caller.AccountRef != 0 {
		if list, err = h.read(r.Context(), caller.AccountRef); err != nil {
			return nil, err
		}
	}
	from, to := p.Window(len(list))
	b := []byte(`{"alerts":[`)
	for i := from; i < to; i++ {
		if i > from {
			b = append(b, ',')
		}
		b = appendAlert(b, &list[i])
	}
	b = append(b, `],"pagination":`...)
	b = p.AppendJSON(b, len(list))
	return append(b, '}'), nil
}

// read reads the account's alerts within the handler's deadline. A client
// gone is passed on as it is; any other failure is the 503.
func (h *Handler) read(ctx context.Context, accountID int64) ([]alerts.Alert, error) {
	timeout := h.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	readCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	list, err := h.Store.Alerts(readCtx, accountID)
	switch {
	case err == nil:
		return list, nil
	case errors.Is(err, context.Canceled) && ctx.Err() != nil:
		return nil, err
	}
	return nil, &apiref.Problem{Status: http.StatusServiceUnavailable, Code: apiref.ErrServiceUnavailable,
		Message: "Your alerts cannot be read right now; please retry in a few seconds.",
		Header:  map[string]string{apiref.HeaderRetryAfter: retryAfter},
		Cause:   err}
}

// currency is the currency of a marketplace's prices.
func currency(s alerts.Source) string {
	if s == alerts.CM {
		return "EUR"
	}
	return "USD"
}

// appendAlert appends one alert as the Alert schema says it
// (internal/apiref/openapi_schemas.json).
func appendAlert(b []byte, a *alerts.Alert) []byte {
	b = append(b, `{"id":`...)
	b = strconv.AppendInt(b, a.ID, 10)
	b = append(b, `,"game":`...)
	b = jsonw.AppendString(b, a.Game)
	b = append(b, `,"card_id":`...)
	b = jsonw.AppendString(b, a.CardID)
	b = append(b, `,"source":`...)
	b = jsonw.AppendString(b, string(a.Source))
	b = append(b, `,"variant":`...)
	b = jsonw.AppendString(b, a.Finish)
	b = append(b, `,"currency":`...)
	b = jsonw.AppendString(b, currency(a.Source))
	b = append(b, `,"rule":`...)
	b = jsonw.AppendString(b, string(a.Rule.Kind))
	b = append(b, `,"threshold":`...)
	if a.Rule.Kind == alerts.Move {
		b = append(b, "null"...)
	} else {
		b = catalog.Cents(a.Rule.Cents).AppendJSON(b)
	}
	b = append(b, `,"percent":`...)
	if a.Rule.Kind == alerts.Move {
		b = strconv.AppendInt(b, int64(a.Rule.Percent), 10)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"paused":`...)
	b = strconv.AppendBool(b, a.Paused)
	b = append(b, `,"armed":`...)
	b = strconv.AppendBool(b, a.Armed)
	b = append(b, `,"last_price":`...)
	b = a.LastPrice.AppendJSON(b)
	b = append(b, `,"last_version":`...)
	b = appendIDOrNull(b, a.LastVersion)
	b = append(b, `,"webhook_id":`...)
	b = appendIDOrNull(b, a.WebhookID)
	b = append(b, `,"email":`...)
	b = strconv.AppendBool(b, a.Email)
	b = append(b, `,"created":"`...)
	b = a.CreatedAt.UTC().AppendFormat(b, time.RFC3339Nano)
	return append(b, `"}`...)
}

// appendIDOrNull appends n, or null for 0 (none).
func appendIDOrNull(b []byte, n int64) []byte {
	if n == 0 {
		return append(b, "null"...)
	}
	return strconv.AppendInt(b, n, 10)
}
