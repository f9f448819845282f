package httpapi

import (
	"net/http"
	"testing"
)

// /account/ is no route of the API (the portal is mounted beside it, by
// cmd/cardcat): asked of the API, it is the API's 404.
func TestAccountIsNoAPIRoute(t *testing.T) {
	l := newLimited(t, Config{})
	if w := l.req(http.MethodGet, "/account/trial"); w.Code != http.StatusNotFound {
		t.Errorf("status %d", w.Code)
	}
}
