package main

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/cardcat/cardcat/internal/httpapi"
	"github.com/cardcat/cardcat/internal/metrics"
	"github.com/cardcat/cardcat/internal/web"
)

// portalPrefix is where the account portal lives, beside the API.
const portalPrefix = "/account"

// serverHandler is the server's whole handler: the account portal under
// /account with its own chain (web.Surface: request id, access log,
// recovery; no CORS, no key, never counted), and the API, with the docs
// site and /mcp on its mux, for every other path. Without a portal, the
// API answers /account too (its 404).
func serverHandler(api *httpapi.Server, portal http.Handler, publicURL string, log *slog.Logger,
	access func(web.AccessEntry), mx *metrics.Metrics) http.Handler {
	if portal == nil {
		return api.Handler()
	}
	requests := mx.HTTP([]metrics.Route{{Template: "portal"}})
	surface := &web.Surface{HTTPS: web.IsHTTPS(publicURL), Log: log, AccessLog: access,
		Metrics: func(method string, status int, d time.Duration) { requests.Request(0, method, status, d) }}
	return web.Mount(portalPrefix, surface.Wrap(portal), api.Handler())
}
