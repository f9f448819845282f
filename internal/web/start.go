package web

import (
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
)

var (
	// nosniff: browsers must take every answer as its Content-Type says
	// (a security baseline that scanners check for).
	nosniff = []string{"nosniff"}
	// hsts asks browsers to use https only for a year. Without
	// includeSubDomains: the server's host does not speak for the other
	// hosts of its domain, which may not all serve https.
	hsts = []string{"max-age=31536000"}
	// connectionClose makes net/http close the connection after the answer.
	connectionClose = []string{"close"}
)

// StartHeaders sets the headers every answer of the server has, before any
// handler runs (so that 5xx and panics have them too): X-Request-Id (id, a
// one-value slice the caller owns, so that setting it allocates nothing),
// nosniff, Strict-Transport-Security when callers reach the server over
// https, and Connection: close after a request sent with a
// Transfer-Encoding.
func StartHeaders(rec *Response, r *http.Request, id []string, https bool) {
	SetField(rec, FieldXRequestID, id)
	SetField(rec, FieldXContentTypeOptions, nosniff)
	if https {
		SetField(rec, FieldStrictTransportSecurity, hsts)
	}
	if len(r.TransferEncoding) > 0 {
		// A request with both Transfer-Encoding and Content-Length may be an
		// attempt to smuggle a second request past a proxy that reads the
		// other length: RFC 9112 (6.1) has the server close the connection
		// after answering. net/http drops the Content-Length before any
		// handler runs, so every request sent with a Transfer-Encoding (rare:
		// bodies here are small) ends its connection.
		rec.Header()["Connection"] = connectionClose // net/http reads it from its map
	}
}

// EntryOf is the access log's entry of a request answered through rec,
// without its times and account: the target as the client sent it (a
// request made in process: its URL), credentials redacted.
func EntryOf(r *http.Request, id string, rec *Response) AccessEntry {
	e := AccessEntry{RequestID: id, Method: r.Method, Path: r.RequestURI, Status: rec.Status, Bytes: rec.Bytes, Remote: r.RemoteAddr}
	if e.Path == "" {
		e.Path = r.URL.RequestURI()
	}
	e.Path = RedactTarget(e.Path)
	return e
}

// LogPanic logs a handler's panic v, with the request's id and the stack.
func LogPanic(log *slog.Logger, r *http.Request, id string, v any) {
	log.LogAttrs(r.Context(), slog.LevelError, "panic",
		slog.String("request_id", id), slog.String("path", RedactTarget(r.URL.Path)),
		slog.String("panic", fmt.Sprint(v)), slog.String("stack", string(debug.Stack())))
}
