package main

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/cardcat/cardcat/internal/httpapi"
	"github.com/cardcat/cardcat/internal/metrics"
	"github.com/cardcat/cardcat/internal/status"
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

// withStatus serves the status page (internal/status: /status and below,
// /status.json) beside the rest, behind its own web.Surface like the
// portal: mounted beside the API rather than on its mux, so that the page
// still answers, and says so, when the API's chain fails, and so that it
// is never counted.
func withStatus(rest, page http.Handler, publicURL string, log *slog.Logger, access func(web.AccessEntry), mx *metrics.Metrics) http.Handler {
	requests := mx.HTTP([]metrics.Route{{Template: "status"}})
	surface := &web.Surface{HTTPS: web.IsHTTPS(publicURL), Log: log, AccessLog: access,
		Metrics: func(method string, status int, d time.Duration) { requests.Request(0, method, status, d) }}
	page = surface.Wrap(page)
	return web.Mount(status.PagePath, page, web.Mount(status.JSONPath, page, rest))
}
