// Package httpapi is cardcat's REST API: the public routes (GET /, /games,
// /health) and, for every game of the registry, the free game endpoints
// (sets, cards of a set, card detail, search, images, bulk files, the change
// feed) and the paid ones (prices by set, set statistics, completion value,
// trending sets, top cards, price history), answered from the catalogue
// version being served (a serving.View: the snapshot and the paid answers of
// one version). Its siblings are the other surfaces, mounted on its mux or
// beside it: internal/apiref (the reference rendered from the route table),
// internal/site (the docs pages), internal/mcpserver (POST /mcp) and the
// account portal (mounted beside the API by cmd/cardcat); internal/web is
// the plumbing they share.
//
// Where to look: routes.go lists every route (router.go dispatches to
// them: pathValue reads a path's wildcards); compose.go puts the API's
// chain together (cmd/cardcat mounts the portal beside it); middleware.go the steps
// of the API's chain (request id and CORS, access log, panic recovery, GET
// only, path check); auth.go the key's identification, the Authenticator
// interface and the Caller it returns; admission.go the one step between
// routing and a keyed route's handler (429, 401, 403, 304, then the reply);
// reply.go what a keyed handler answers and how it is sent (ETag, coding);
// ratelimit.go the pools, the X-RateLimit-* headers, the 429 and the guard
// bucket; paid.go the 403 and what the paid handlers share; errors.go how a
// handler's error becomes the answer; didyoumean.go the 404 (with suggest/);
// handler_*.go one file per endpoint (family), with handler_*_test.go and
// testdata/golden/{endpoint}_*.json beside them (errors_*.json for the
// answers of middleware and routing, paid_*.json for the 403s, sample_*.json
// for the bundled sample).
// Regenerate the golden files with go test ./internal/httpapi -update.
//
// docs/api.md is the callers' contract; docs/changelog.md says what changed
// for them.
package httpapi
