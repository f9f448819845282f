package httpapi

import (
	"net/url"

	"github.com/cardcat/cardcat/internal/apiref"
)

// Paging limits of the spec.
const (
	setPageDefault    = 50
	setPageMax        = 200
	searchPageDefault = 20
	searchPageMax     = 100
)

// paging is the API's paging rule, shared with the other surfaces.
type paging = apiref.Paging

// parsePaging is apiref.ParsePaging with its 400 as this package's error.
func parsePaging(q url.Values, defLimit, maxLimit int) (paging, error) {
	p, err := apiref.ParsePaging(q, defLimit, maxLimit)
	if pr, ok := err.(*apiref.Problem); ok {
		return p, newError(pr.Status, pr.Code, pr.Message)
	}
	return p, err
}
