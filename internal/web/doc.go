// Package web is the HTTP plumbing every surface of cardcat shares (the
// REST API, the docs site, MCP, the portal): content negotiation and
// compression, the response recorder, request ids, the access log's entry
// and its redaction of credentials, client addresses behind proxies, and
// path checks. One concern per file; no route, no handler.
package web
