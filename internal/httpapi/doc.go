// Package httpapi is cardcat's HTTP API: the public routes (GET /, /games,
// /health) and, for every game of the registry, the free game endpoints
// (sets, cards of a set, card detail, search), answered from the current
// catalogue snapshot.
//
// Where to look: routes.go lists every route; middleware.go the chain that
// wraps them (request id and CORS, access log, panic recovery, GET only,
// path check); auth.go the key check and the Authenticator interface;
// errors.go how a handler's error becomes the answer; handler_*.go one file
// per endpoint family, with handler_*_test.go and testdata/golden/{family}_*.json
// beside them (errors_*.json for the answers of middleware and routing).
// Regenerate the golden files with go test ./internal/httpapi -update.
//
// API.md in this directory lists the decisions taken on the points the spec
// leaves open.
package httpapi
